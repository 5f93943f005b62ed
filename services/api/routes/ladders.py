"""The ladders (``/v1/ladders/{pool}``): the table, entering and leaving, the owner's controls,
and each ladder day with its committed seed (docs/ladder.md)."""

from __future__ import annotations

import contextlib
from datetime import UTC, date, datetime
from typing import Annotated, Literal

import asyncpg
from litestar import Controller, Request, Response, delete, get, patch, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import JSONBody, Parameter
from litestar.response import Stream

from arena.client.signing import generate_secret
from services.api.auth import SECURITY, current_account
from services.api.deps import services_of
from services.api.guard.read_lane import READ_LANE
from services.api.params import BotIdParam
from services.api.problems import ProblemError, problem_responses
from services.api.routes.bots import _policy, handshake
from services.api.routes.export_serving import (
    accepts_gzip,
    cache_of,
    etag_matches,
    from_file,
    gzipped,
    not_modified,
    stream,
    take_slot,
)
from services.api.routes.ladder_tables import ladder_tables, table_entries
from services.api.schemas.ladders import (
    LadderDayMatch,
    LadderDayRead,
    LadderEntryRead,
    LadderJoin,
    LadderRead,
    LadderUpdate,
)
from services.base.config import LadderSettings
from services.db import bot_health, ladder_days
from services.db import bots as db_bots
from services.db import ladder as db_ladder
from services.db import matches as db_matches
from services.db.accounts import Account
from services.flow import ladder as flow_ladder
from services.flow import ladder_export
from services.flow.errors import BotNotFound, BotUnavailable
from services.flow.export_cache import day_key
from services.flow.ladder_table import read_table
from services.ladder.model import LADDER_POOLS, LadderPool
from services.tournaments.files.export_document import LadderDayExport

_auth = {"account": Provide(current_account)}
DAY_PAGE = 100
"""Matches in one page of a ladder day (``limit``'s default)."""
DAY_PAGE_MAX = 500


def _problem(exc: Exception) -> ProblemError:
    if isinstance(exc, BotNotFound | flow_ladder.NotOnLadder):
        return ProblemError(404, str(exc))
    if isinstance(exc, flow_ladder.NotYourBot):
        return ProblemError(403, str(exc))
    if isinstance(exc, flow_ladder.LadderFull):
        return ProblemError(409, str(exc), slug="ladder-full")
    if isinstance(exc, BotUnavailable):
        return ProblemError(409, str(exc), slug="bot-unavailable")
    if isinstance(exc, flow_ladder.ResumeTooSoon):
        return ProblemError(409, str(exc), slug="ladder-cooldown")
    raise exc


async def _viewer(request: Request[object, object, State]) -> Account | None:
    if not request.headers.get("authorization"):
        return None
    return await current_account(request)


def _ladder(name: str) -> LadderPool:
    for pool in LADDER_POOLS:
        if name == pool:
            return pool
    raise ProblemError(404, f"there is no ladder {name!r}: the ladders are 1v1 and 2v2-individual")


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ProblemError(400, f"{text!r} is not a day: write it YYYY-MM-DD") from None


class LadderController(Controller):
    path = "/v1/ladders"
    tags = ("ladders",)

    @get(
        "/{name:str}",
        operation_id="getLadder",
        summary="A ladder's table: rank, rating, interval, LOS, matches, placement, pause",
        description=(
            "Every bot on the ladder, best fitted rating first (the pool's maximum-likelihood "
            "fit, docs/ratings.md); bots without a rated match yet last, without a rank. "
            "`placement`: `waiting`, `placing` (its 95% interval is still +-100 Elo or wider; "
            "`about` is roughly how many matches a placement takes) or `placed`. A paused bot "
            "keeps its rank, marked `paused`; with your API key, your own bots also show "
            "`pause_cause` and `hourly_cap`. `commitment` is today's seed commitment, once "
            "today's first ladder match is made. Without an API key the table is read at most "
            "once every 5 s per server (a result shows within 5 s); with one, it is read now."
        ),
        responses=problem_responses(401, 404),
    )
    async def get_ladder(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        name: Annotated[str, Parameter(description="1v1 or 2v2-individual")],
    ) -> LadderRead:
        ladder = _ladder(name)
        viewer = await _viewer(request)
        settings = services_of(request.app.state).settings.ladder
        if viewer is None:  # the public table: one read every few seconds, ranked once
            snap = await ladder_tables(request.app.state).snapshot(pool, ladder, settings)
            read, entries = snap.read, snap.public
        else:  # a signed-in reader sees its own bots' pause causes and caps as they are now
            async with pool.acquire() as conn:
                read = await read_table(conn, ladder, datetime.now(UTC), settings)
            entries = table_entries(read, viewer)
        return LadderRead(
            pool=ladder,
            entries=entries,
            in_flight=read.in_flight,
            today=read.today,
            commitment=read.commitment,
        )

    @post(
        "/{name:str}/entries",
        operation_id="joinLadder",
        summary="Put your bot on a ladder (owner only)",
        description=(
            "The platform calls the bot's `GET /` first (as when it was registered) and "
            "refuses it (422) if that fails; an unavailable bot is a 409. Entering again "
            "changes nothing. `hourly_cap` (default and most: TRUCO_LADDER_HOURLY_CAP) "
            "bounds the ladder matches it starts in an hour; an account has at most "
            "TRUCO_LADDER_ENTRIES_PER_ACCOUNT bots on one ladder (409). Its opponents are "
            "chosen by the matchmaker, never by you, and are always bots of other owners."
        ),
        status_code=201,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422),
    )
    async def join_ladder(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        name: Annotated[str, Parameter(description="1v1 or 2v2-individual")],
        data: JSONBody[LadderJoin],
        account: NamedDependency[Account],
    ) -> LadderEntryRead:
        ladder = _ladder(name)
        svc = services_of(request.app.state)
        await _answers_first(request, pool, data.bot_id, account)
        try:
            await flow_ladder.join(
                pool, ladder, data.bot_id, account.id, svc.settings.ladder, data.hourly_cap
            )
        except Exception as exc:
            raise _problem(exc) from None
        ladder_tables(request.app.state).forget(ladder)
        return await _entry(pool, ladder, data.bot_id, account, svc.settings.ladder)

    @patch(
        "/{name:str}/entries/{bot_id:int}",
        operation_id="updateLadderEntry",
        summary="Resume a paused bot or change its hourly cap (owner only)",
        description=(
            "`resume: true` resumes a bot the ladder paused (walkovers or forfeits in a row; "
            "its cause is in the table for you), once the platform has called its `GET /` "
            "(422 if that fails, as when joining) and once its pause's cooldown is over (409 "
            "`ladder-cooldown` with the time: TRUCO_LADDER_RESUME_COOLDOWN_S, doubled for each "
            "earlier pause within a week); `hourly_cap` sets the ladder matches it may start "
            "in an hour (at most TRUCO_LADDER_HOURLY_CAP)."
        ),
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422),
    )
    async def update_entry(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        name: Annotated[str, Parameter(description="1v1 or 2v2-individual")],
        bot_id: BotIdParam,
        data: JSONBody[LadderUpdate],
        account: NamedDependency[Account],
    ) -> LadderEntryRead:
        ladder = _ladder(name)
        settings = services_of(request.app.state).settings.ladder
        if data.resume:  # a bot that is still down is not resumed: it answers first
            await _answers_first(request, pool, bot_id, account)
        try:
            await flow_ladder.update(
                pool,
                ladder,
                bot_id,
                account.id,
                settings,
                hourly_cap=data.hourly_cap,
                resume=data.resume,
            )
        except Exception as exc:
            raise _problem(exc) from None
        ladder_tables(request.app.state).forget(ladder)
        return await _entry(pool, ladder, bot_id, account, settings)

    @delete(
        "/{name:str}/entries/{bot_id:int}",
        operation_id="leaveLadder",
        summary="Take your bot off a ladder (owner only)",
        description="A ladder match it is playing finishes and is rated; its rating stays.",
        status_code=204,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 403, 404),
    )
    async def leave_ladder(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        name: Annotated[str, Parameter(description="1v1 or 2v2-individual")],
        bot_id: BotIdParam,
        account: NamedDependency[Account],
    ) -> None:
        try:
            await flow_ladder.leave(pool, _ladder(name), bot_id, account.id)
        except Exception as exc:
            raise _problem(exc) from None
        ladder_tables(request.app.state).forget(_ladder(name))

    @get(
        "/{name:str}/days/{day:str}",
        operation_id="getLadderDay",
        summary="A ladder day: its seed commitment, its master seed once revealed, its matches",
        description=(
            "Each ladder day (UTC) has a master seed, committed (SHA-256) when its first match "
            "is made and revealed once the day is over and none of its matches is playing; a "
            "match's seed derives from it, the day, the match's number and its bots "
            "(docs/ladder.md, docs/verify.md). A match's seed shows once it is over. The "
            "matches come a page at a time, by number: those numbered past `after` (from the "
            "first when left out), at "
            "most `limit` (100, at most 500); `next_after` is the next page's `after` (null on "
            "the last), `total` the day's matches. The whole day as one document is the "
            "export."
        ),
        responses=problem_responses(400, 404),
    )
    async def get_day(
        self,
        pool: NamedDependency[asyncpg.Pool],
        name: Annotated[str, Parameter(description="1v1 or 2v2-individual")],
        day: Annotated[str, Parameter(description="the day, YYYY-MM-DD (UTC)")],
        after: Annotated[
            int | None,
            Parameter(
                ge=0,
                le=2**31,
                description="the matches numbered past this (the next page); left out: from "
                "the day's first",
            ),
        ] = None,
        limit: Annotated[
            int, Parameter(ge=1, le=DAY_PAGE_MAX, description="at most this many matches")
        ] = DAY_PAGE,
    ) -> LadderDayRead:
        ladder, when = _ladder(name), _day(day)
        async with pool.acquire() as conn:
            found = await db_ladder.get_day(conn, ladder, when)
            if found is None:
                raise ProblemError(404, f"the {ladder} ladder played no match on {when}")
            first = -1 if after is None else after
            ids = await ladder_days.day_match_ids(conn, ladder, when, first, limit + 1)
            total = await ladder_days.day_match_count(conn, ladder, when)
            ids, more = ids[:limit], len(ids) > limit
            places = await db_ladder.places(conn, ids)
            matches = await db_matches.get_matches(conn, ids)
        shown = sorted(matches, key=lambda m: places[m.id].number)
        return LadderDayRead(
            pool=ladder,
            day=when,
            commitment=found.commitment,
            master_seed=found.master_seed.hex() if found.revealed_at is not None else None,
            revealed_at=found.revealed_at,
            matches=[
                LadderDayMatch(
                    id=m.id,
                    number=places[m.id].number,
                    status=m.status,
                    seats=list(m.bots),
                    seed=m.seed if m.over else None,
                    reason=_reason(places[m.id].reason),
                    detail=places[m.id].detail,
                )
                for m in shown
            ],
            total=total,
            next_after=places[shown[-1].id].number if more and shown else None,
        )

    @get(
        "/{name:str}/days/{day:str}/export",
        opt={READ_LANE: False},  # the exports' slots
        operation_id="exportLadderDay",
        summary="A ladder day as one JSON document, for `truco verify ladder`",
        description=(
            "The day's commitment and (once revealed) master seed, and every ladder match of "
            "the day as a tournament export carries it: place (its number), seed once over, "
            "stored result, replay and Elo changes. A revealed day's document is made once "
            "and has a strong `ETag` (`If-None-Match` gives a 304); gzip-compressed when the "
            "request accepts gzip. It takes an export slot, as a tournament's export does "
            "(TRUCO_EXPORTS_PER_ADDRESS: a 429; TRUCO_EXPORTS_TOTAL: a 503)."
        ),
        responses={
            200: ResponseSpec(
                data_container=LadderDayExport,
                description="The export document (format truco-arena-ladder-day/1)",
                generate_examples=False,
            ),
            304: ResponseSpec(
                data_container=None,
                description="Not modified: the revealed day's export has this ETag",
                generate_examples=False,
            ),
            **problem_responses(400, 404, 429, 503),
        },
    )
    async def export_day(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        name: Annotated[str, Parameter(description="1v1 or 2v2-individual")],
        day: Annotated[str, Parameter(description="the day, YYYY-MM-DD (UTC)")],
    ) -> Stream | Response[bytes]:
        ladder, when = _ladder(name), _day(day)
        found = await db_ladder.get_day(pool, ladder, when)
        if found is None:
            raise ProblemError(404, f"the {ladder} ladder played no match on {when}")
        gzip = accepts_gzip(request)
        headers = {
            "Content-Disposition": f'attachment; filename="ladder-{ladder}-{when}.json"',
            "Vary": "Accept-Encoding",
        }
        # a revealed day no longer changes: made once into files, like a finished event's
        # export (issue 33, 7: 88 downloads, 642 MB, in 24 s took others' p50 to 1.1 s)
        final = found.revealed_at is not None
        cache = cache_of(request.app.state)
        cached = cache.find_key(day_key(ladder, when, found.commitment)) if final else None
        if cached is not None and etag_matches(
            cached.etag(gzip), request.headers.get("if-none-match")
        ):
            return not_modified(cached, gzip, headers)
        slot = take_slot(request)
        try:
            if final and cached is None:
                cached = await cache.get_day(pool, ladder, when, found.commitment)
            if cached is not None:
                with contextlib.suppress(OSError):  # removed meanwhile: streamed instead
                    return from_file(cached, gzip, headers, slot)
        except BaseException:
            slot.release()
            raise
        chunks = ladder_export.day_chunks(pool, ladder, when)
        if gzip:
            headers["Content-Encoding"] = "gzip"
            chunks = gzipped(chunks)
        return stream(chunks, headers, slot)


async def _answers_first(
    request: Request[object, object, State], pool: asyncpg.Pool, bot_id: int, account: Account
) -> None:
    """The caller's bot answers its ``GET /`` now (the handshake of registration, through the
    guarded client with a throwaway signature), or a problem: 404, 403, 422."""
    svc = services_of(request.app.state)
    bot = await db_bots.get_bot(pool, bot_id)
    if bot is None or bot.status == "deleted":
        raise ProblemError(404, f"there is no bot {bot_id}")
    if bot.owner_id != account.id:
        raise ProblemError(403, f"bot {bot_id} is not yours")
    await handshake(svc.bot_client_factory, bot.url, generate_secret(), _policy(request.app.state))
    await bot_health.record_check(
        pool,
        bot.id,
        ok=True,
        error=None,
        failures_to_unavailable=svc.settings.worker.health_failures,
    )


def _reason(text: str | None) -> Literal["placing", "top", "uncertain"] | None:
    return text if text in ("placing", "top", "uncertain") else None  # type: ignore[return-value]


async def _entry(
    pool: asyncpg.Pool,
    ladder: LadderPool,
    bot_id: int,
    account: Account,
    settings: LadderSettings,
) -> LadderEntryRead:
    async with pool.acquire() as conn:
        table = await read_table(conn, ladder, datetime.now(UTC), settings)
    for read in table_entries(table, account):
        if read.bot_id == bot_id:
            return read
    raise ProblemError(404, f"bot {bot_id} is not on the {ladder} ladder")
