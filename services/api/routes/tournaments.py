"""Tournaments: create, list, read (rounds, standings, bracket), enter and withdraw a bot,
start, cancel."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import asyncpg
from litestar import Controller, Request, delete, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import JSONBody, Parameter

from arena.game.deals import MEMORY_RISK
from engine.errors import RulesError
from services import flow
from services.api.auth import SECURITY, current_account, require_owner
from services.api.deps import send_matches, services_of, stop
from services.api.names import check_name
from services.api.params import BotIdParam
from services.api.problems import FieldError, ProblemError, problem_responses
from services.api.routes.bodies import bracket_of, rounds_of, rules_problem, standings_of, summary
from services.api.schemas.tournaments import (
    EntryCreate,
    EntryPage,
    EntryRead,
    TournamentCancelled,
    TournamentCreate,
    TournamentDetail,
    TournamentPage,
    TournamentStarted,
)
from services.db import bots as db_bots
from services.db import tournaments as db_tournaments
from services.db.accounts import Account
from services.db.tournaments import Entry, Tournament
from services.domain import TournamentStatus
from services.flow.pairing import PairingTimedOut

TournamentId = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the tournament's id")]
Limit = Annotated[int, Parameter(ge=1, le=100, description="page size")]
Cursor = Annotated[
    int | None, Parameter(ge=1, le=2**63 - 1, description="the next_cursor of the previous page")
]
_auth = {"account": Provide(current_account)}


def _not_found(tournament_id: int) -> ProblemError:
    return ProblemError(404, f"there is no tournament {tournament_id}", slug="tournament-not-found")


def flow_problem(exc: flow.FlowError) -> ProblemError:
    """A workflow refusal as a problem: 404 for a missing thing, 409 for a state conflict, 503
    for a pairing past its deadline."""
    if isinstance(exc, flow.NotFound):
        return ProblemError(404, str(exc), slug="not-found")
    if isinstance(exc, PairingTimedOut):
        return ProblemError(503, str(exc), slug="pairing-timed-out", headers={"Retry-After": "60"})
    slug = {
        flow.TournamentStateError: "tournament-state",
        flow.NotEnoughEntrants: "not-enough-entrants",
        flow.AlreadyEntered: "already-entered",
        flow.BotUnavailable: "bot-unavailable",
        flow.SameBot: "same-bot",
        flow.EntryWithdrawn: "entry-withdrawn",
        flow.TournamentFull: "tournament-full",
    }.get(type(exc), "conflict")
    return ProblemError(409, str(exc), slug=slug)


async def _organised_by(
    pool: asyncpg.Pool, tournament_id: int, account: Account, action: str
) -> Tournament:
    """The tournament, if ``account`` organises it: else a 404 (none) or a 403 naming
    ``action``."""
    tournament = await _tournament(pool, tournament_id)
    require_owner(
        account, tournament.organiser_id, f"only the tournament's organiser may {action} it"
    )
    return tournament


def too_long_problem(exc: flow.SettingsTooLong) -> ProblemError:
    """Settings under which a match could outlast the workers' cap: a 422 naming the games."""
    return ProblemError(
        422,
        str(exc),
        slug="match-too-long",
        errors=[FieldError(field="body.games_per_match", message=str(exc))],
    )


def check_start_at(start_at: datetime | None) -> None:
    """A 422 naming ``start_at`` for an instant outside what the database stores: year 1 at
    +14:00 is year 0 in UTC, which neither Python nor PostgreSQL can hold."""
    if start_at is None:
        return
    try:
        start_at.astimezone(UTC)
    except (OverflowError, ValueError):
        message = "start_at must be an instant between 0001-01-01 and 9999-12-31 in UTC"
        raise ProblemError(
            422, message, errors=[FieldError(field="body.start_at", message=message)]
        ) from None


def mirrored_problem(exc: flow.MirroredDealsRefused, field: str | None = None) -> ProblemError:
    """Mirrored deals where the bots have more than one owner: a 422 saying why."""
    errors = None if field is None else [FieldError(field=field, message=str(exc))]
    return ProblemError(422, str(exc), slug="mirrored-deals-refused", errors=errors)


def settings_refused_problem(exc: flow.SettingsRefused) -> ProblemError:
    """Another owner's bot that does not accept the event's settings: a 422 saying which."""
    return ProblemError(
        422,
        str(exc),
        slug="settings-refused",
        title="The bot does not accept this event's settings",
        errors=[FieldError(field="body.bot_id", message=str(exc))],
    )


def _entry(entry: Entry) -> EntryRead:
    return EntryRead(
        tournament_id=entry.tournament_id,
        bot_id=entry.bot_id,
        name=entry.name,
        seed=entry.seed,
        entered_at=entry.entered_at,
        withdrawn_at=entry.withdrawn_at,
    )


async def _tournament(pool: asyncpg.Pool, tournament_id: int) -> Tournament:
    tournament = await db_tournaments.get_tournament(pool, tournament_id)
    if tournament is None:
        raise _not_found(tournament_id)
    return tournament


class TournamentController(Controller):
    path = "/v1/tournaments"
    tags = ("tournaments",)

    @post(
        "/",
        operation_id="createTournament",
        summary="Create a tournament (you are its organiser)",
        description=(
            "Starts in status registering. `rules` is the engine's rules object; a bad key or "
            "value is a 422 naming it. `players` follows the mode (2 for 1v1, 4 for 2v2). "
            "In 2v2, `partnership` is `team` (default: one bot plays both seats of its side and "
            "may combine what they see) or `individual` (a bot per seat, each bot entered alone, "
            "partners formed every round; swiss and round_robin; at least 4 bots). "
            "Settings under which a match could outlast the workers' cap on a match's duration "
            "(every bot using its whole time bank and per-call timeout in every game) are a 422 "
            "that says the limit. A tournament with a `start_at` starts by itself then, or is "
            "cancelled if fewer than 2 available bots (4 in individual 2v2) entered. `deals` is `independent` by "
            "default; with `mirrored` only the organiser's own bots may enter (any other is a "
            f"422 `/problems/mirrored-deals-refused`), because {MEMORY_RISK}."
        ),
        status_code=201,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 413, 415, 422),
    )
    async def create_tournament(
        self,
        data: JSONBody[TournamentCreate],
        pool: NamedDependency[asyncpg.Pool],
        account: NamedDependency[Account],
    ) -> TournamentDetail:
        check_name(data.name)
        check_start_at(data.start_at)
        try:
            settings = flow.TournamentSettings(
                rules=flow.mode_rules(data.mode, data.rules),
                rounds=data.rounds,
                games_per_match=data.games_per_match or flow.default_games(data.mode),
                timeout_ms=data.timeout_ms,
                fault_limit=data.fault_limit,
                third_place=data.third_place,
                deals=data.deals,
            )
            tournament = await flow.create_tournament(
                pool,
                organiser_id=account.id,
                name=data.name,
                format=data.format,
                mode=data.mode,
                settings=settings,
                start_at=data.start_at,
                partnership=data.partnership,
            )
        except flow.BadPartnership as exc:
            raise ProblemError(
                422,
                str(exc),
                slug="invalid-partnership",
                title="This partnership is not available here",
                errors=[FieldError(field="body.partnership", message=str(exc))],
            ) from None
        except RulesError as exc:
            raise rules_problem(exc) from None
        except flow.SettingsTooLong as exc:
            raise too_long_problem(exc) from None
        return await _detail(pool, tournament)

    @get(
        "/",
        operation_id="listTournaments",
        summary="List tournaments, newest first",
        description="Keyset pages: pass the response's next_cursor as cursor; null means done.",
        responses=problem_responses(400),
    )
    async def list_tournaments(
        self,
        pool: NamedDependency[asyncpg.Pool],
        status: Annotated[
            TournamentStatus | None, Parameter(description="only tournaments in this status")
        ] = None,
        limit: Limit = 20,
        cursor: Cursor = None,
    ) -> TournamentPage:
        page, more = await db_tournaments.list_tournaments(
            pool, status=status, limit=limit, cursor=cursor
        )
        return TournamentPage(
            items=[summary(t) for t in page], next_cursor=page[-1].id if more and page else None
        )

    @get(
        "/{tournament_id:int}",
        operation_id="getTournament",
        summary="A tournament with its rounds, standings and bracket",
        responses=problem_responses(400, 404),
    )
    async def get_tournament(
        self, pool: NamedDependency[asyncpg.Pool], tournament_id: TournamentId
    ) -> TournamentDetail:
        return await _detail(pool, await _tournament(pool, tournament_id))

    @get(
        "/{tournament_id:int}/entries",
        operation_id="listTournamentEntries",
        summary="The bots entered in a tournament, by bot id",
        responses=problem_responses(400, 404),
    )
    async def list_entries(
        self,
        pool: NamedDependency[asyncpg.Pool],
        tournament_id: TournamentId,
        limit: Limit = 20,
        cursor: Cursor = None,
    ) -> EntryPage:
        await _tournament(pool, tournament_id)
        page, more = await db_tournaments.entries_page(
            pool, tournament_id, limit=limit, cursor=cursor
        )
        return EntryPage(
            items=[_entry(e) for e in page], next_cursor=page[-1].bot_id if more and page else None
        )

    @post(
        "/{tournament_id:int}/entries",
        operation_id="enterTournament",
        summary="Enter one of your bots, or an open bot (while registering)",
        description=(
            'The bot must be yours, or open (`"open": true` on the bot, like the house '
            "bots) and the tournament yours: an organiser may enter any open bot. A "
            "tournament with mirrored deals takes only its organiser's own bots: any other "
            "bot, open ones included, is a 422 (`/problems/mirrored-deals-refused`). "
            "A bot of another owner than the organiser plays only under settings it accepts, "
            "else a 422 (`/problems/settings-refused`): a `timeout_ms` at least its "
            "`min_timeout_ms`, and in a rated event at least the platform's floors "
            "(defaults: timeout_ms 200, fault_limit 3, games_per_match 2; settings "
            "TRUCO_RATED_MIN_TIMEOUT_MS, TRUCO_RATED_MIN_FAULT_LIMIT, "
            "TRUCO_RATED_MIN_GAMES_PER_MATCH). An organiser may have entered 16 bots of other "
            "owners into its registering and running events (TRUCO_OPEN_ENTRIES_PER_ACCOUNT; "
            "bots their owners entered do not count); more is a 429 (`/problems/too-many-entries`) with Retry-After. A withdrawn "
            "entry may be entered again by the bot's owner only (409 "
            "`/problems/entry-withdrawn`). A tournament holds at most TRUCO_ENTRIES_PER_EVENT "
            "entries (default 1024): one more is a 409 (`/problems/tournament-full`)."
        ),
        status_code=201,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(400, 401, 403, 404, 409, 413, 415, 422, 429),
    )
    async def enter(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        tournament_id: TournamentId,
        data: JSONBody[EntryCreate],
        account: NamedDependency[Account],
    ) -> EntryRead:
        tournament = await _tournament(pool, tournament_id)
        bot = await db_bots.get_bot(pool, data.bot_id)
        if bot is None:
            raise ProblemError(404, f"there is no bot {data.bot_id}", slug="bot-not-found")
        if bot.owner_id != account.id:
            if not bot.open:
                raise ProblemError(
                    403, "only the bot's owner may enter it (its owner has not opened it)"
                )
            if tournament.organiser_id != account.id:
                raise ProblemError(
                    403, "an open bot may be entered by its owner or the tournament's organiser"
                )
        fair_play = services_of(request.app.state).settings.fair_play
        try:
            entry = await flow.enter_tournament(
                pool,
                tournament_id,
                data.bot_id,
                entered_by=account.id,
                floors=flow.floors_of(fair_play),
                check=flow.open_entry_quota(
                    tournament.organiser_id, fair_play.open_entries_per_account
                ),
                most=services_of(request.app.state).settings.sizes.entries_per_event,
            )
        except flow.FlowError as exc:
            raise flow_problem(exc) from None
        except flow.MirroredDealsRefused as exc:
            raise mirrored_problem(exc, "body.bot_id") from None
        except flow.SettingsRefused as exc:
            raise settings_refused_problem(exc) from None
        except flow.EntryQuotaExceeded as exc:
            raise ProblemError(
                429,
                str(exc),
                slug="too-many-entries",
                headers={"Retry-After": str(flow.ENTRY_RETRY_AFTER_S)},
            ) from None
        return _entry(entry)

    @delete(
        "/{tournament_id:int}/entries/{bot_id:int}",
        operation_id="withdrawTournamentEntry",
        summary="Withdraw a bot from a tournament that has not started",
        description=(
            "By the bot's owner or the tournament's organiser (anyone else: 403), while the "
            "tournament is registering (409 after it starts). The entry stays listed with its "
            "`withdrawn_at`; it does not play. Only the bot's owner may enter it again. "
            "Closing a bot (`open: false`) withdraws it the same way from the registering "
            "events of other organisers that someone else than its owner entered it into."
        ),
        status_code=204,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(400, 401, 403, 404, 409),
    )
    async def withdraw(
        self,
        pool: NamedDependency[asyncpg.Pool],
        tournament_id: TournamentId,
        bot_id: BotIdParam,
        account: NamedDependency[Account],
    ) -> None:
        tournament = await _tournament(pool, tournament_id)
        bot = await db_bots.get_bot(pool, bot_id)
        if bot is None:
            raise ProblemError(404, f"there is no bot {bot_id}", slug="bot-not-found")
        if account.id not in (bot.owner_id, tournament.organiser_id):
            raise ProblemError(
                403, "only the bot's owner or the tournament's organiser may withdraw it"
            )
        try:
            await flow.withdraw_entry(pool, tournament_id, bot_id)
        except flow.FlowError as exc:
            raise flow_problem(exc) from None

    @post(
        "/{tournament_id:int}/start",
        operation_id="startTournament",
        summary="Start the tournament (organiser only)",
        description=(
            "Seeds the entries by rating, creates the first round (or the first bracket "
            "matches) and queues its matches. The status becomes running, and finished when "
            "the last match is done. A tournament with mirrored deals in which a bot of "
            "another owner is entered does not start (422, `/problems/mirrored-deals-refused`). "
            "Entries whose bot is unavailable, or of another owner and no longer accepting the "
            "event's settings (its `min_timeout_ms` rose, or it was closed after someone else "
            "entered it), are withdrawn and left out. The pairing runs off the API's event loop; one that "
            "takes longer than 120 s is a 503 (`/problems/pairing-timed-out`) and the "
            "tournament stays registering."
        ),
        status_code=202,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(400, 401, 403, 404, 409, 422, 503),
    )
    async def start(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        tournament_id: TournamentId,
        account: NamedDependency[Account],
    ) -> TournamentStarted:
        try:
            floors = flow.floors_of(services_of(request.app.state).settings.fair_play)
            queued = await flow.start_tournament(
                pool, tournament_id, floors, organiser_id=account.id
            )
        except flow.TournamentNotFound:
            raise _not_found(tournament_id) from None
        except flow.NotOrganiser as exc:
            raise ProblemError(403, str(exc)) from None
        except flow.FlowError as exc:
            raise flow_problem(exc) from None
        except flow.MirroredDealsRefused as exc:
            raise mirrored_problem(exc) from None
        await send_matches(services_of(request.app.state), queued)
        return TournamentStarted(id=tournament_id, status="running", queued=queued)

    @post(
        "/{tournament_id:int}/cancel",
        operation_id="cancelTournament",
        summary="Cancel the tournament (organiser only)",
        description=(
            "A registering or running tournament becomes cancelled. Its unfinished matches "
            "(pending, queued or running) become cancelled: they are not queued again and a "
            "result that a worker sends for them later is not stored. Matches already played "
            "keep their results and rating changes. A finished or cancelled tournament is a 409."
        ),
        status_code=200,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(400, 401, 403, 404, 409),
    )
    async def cancel(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        tournament_id: TournamentId,
        account: NamedDependency[Account],
    ) -> TournamentCancelled:
        await _organised_by(pool, tournament_id, account, "cancel")
        try:
            cancelled = await flow.cancel_tournament(pool, tournament_id)
        except flow.FlowError as exc:
            raise flow_problem(exc) from None
        await stop(services_of(request.app.state), cancelled)  # the ones being played stop
        return TournamentCancelled(
            id=tournament_id, status="cancelled", cancelled_matches=cancelled
        )


async def _detail(pool: asyncpg.Pool, tournament: Tournament) -> TournamentDetail:
    entries = await db_tournaments.entries(pool, tournament.id)
    entrants, matches = await flow.event_state(pool, tournament.id)
    rounds = await db_tournaments.rounds(pool, tournament.id)
    names = {e.bot_id: e.name for e in entries}
    standings = flow.standings(
        tournament.format,
        entrants,
        matches,
        third_place=tournament.settings.third_place,
        partnership=tournament.partnership,
    )
    base = summary(tournament)
    return TournamentDetail(
        **{f: getattr(base, f) for f in base.__struct_fields__},
        entries=len(entries),
        rounds=rounds_of(rounds, matches, names),
        standings=standings_of(standings, names),
        bracket=bracket_of(tournament, entrants, matches),
    )


__all__ = ["TournamentController", "flow_problem", "mirrored_problem", "too_long_problem"]
