"""The admins' collusion flags (``/v1/admin/ladder-flags``, docs/moderation.md "Collusion
flags"): read the flags the ladder's detector raised with their evidence, annul a flag's
results or dismiss it. Like every admin operation: an admin's key (no key 401, any other
account's 403), and each decision one transaction with its line in the audit log
(:mod:`services.flow.ladder_integrity`)."""

from __future__ import annotations

from typing import Annotated, Literal

import asyncpg
import msgspec
from litestar import Controller, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, Parameter

from services.api.auth import SECURITY
from services.api.problems import problem_responses
from services.api.routes.admin import (
    ADMIN_ONLY,
    Cursor,
    PageLimit,
    actor_of,
    entry_read,
    problem_of,
)
from services.api.schemas.moderation import (
    ActionBody,
    FlagDecision,
    FlagParty,
    LadderFlagPage,
    LadderFlagRead,
)
from services.db.accounts import Account
from services.db.ladder_flags import Party
from services.flow import ladder_integrity
from services.flow.ladder_integrity import Decision, FlagView
from services.flow.moderation import ModerationError
from services.ladder.model import LadderPool

FlagIdParam = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the flag's id")]
FlagStatus = Literal["open", "annulled", "dismissed", "all"]
_ERRORS = problem_responses(401, 403, 404, 409, 413, 415, 422)


def party_read(party: Party) -> FlagParty:
    return FlagParty(
        kind="bot" if party.kind == "bot" else "owner",
        id=party.id,
        name=party.name,
        owner_id=party.owner_id,
        owner_name=party.owner_name,
    )


def flag_read(view: FlagView) -> LadderFlagRead:
    flag = view.flag
    return LadderFlagRead(
        id=flag.id,
        pool=msgspec.convert(flag.pool, LadderPool),
        status=msgspec.convert(flag.status, Literal["open", "annulled", "dismissed"]),
        bot=party_read(view.bot),
        against=party_read(view.against),
        evidence=flag.evidence,
        flagged_at=flag.flagged_at,
        updated_at=flag.updated_at,
        decided_at=flag.decided_at,
        decided_by=flag.decided_by,
        note=flag.note,
        annulled_matches=view.annulled,
    )


class LadderFlagController(Controller):
    path = "/v1/admin/ladder-flags"
    tags = ("admin",)
    dependencies = ADMIN_ONLY
    security = SECURITY

    @get(
        "/",
        operation_id="listLadderFlags",
        summary="The ladders' collusion flags, with their evidence (admins only)",
        description=(
            "`status=open` (the default): the flags to decide; `annulled`, `dismissed` or "
            "`all`. Newest first; keyset pages (next_cursor). Each names the flagged bot and "
            "what it was flagged against (a bot or an owner's bots), with their owners, and the "
            "evidence: matches, score against prediction, point shares, z values, match ids."
        ),
        responses=problem_responses(401, 403),
    )
    async def flags(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        status: Annotated[
            FlagStatus, Parameter(description="which flags: open, annulled, dismissed, all")
        ] = "open",
        ladder: Annotated[
            LadderPool | None, Parameter(description="only this ladder's: 1v1, 2v2-individual")
        ] = None,
        cursor: Cursor = None,
        limit: PageLimit = 50,
    ) -> LadderFlagPage:
        found = await ladder_integrity.flag_views(
            pool,
            status=None if status == "all" else status,
            ladder=ladder,
            before=cursor,
            limit=limit + 1,
        )
        page = found[:limit]
        more = len(found) > limit
        return LadderFlagPage(
            items=[flag_read(v) for v in page], next_cursor=page[-1].flag.id if more else None
        )

    @get(
        "/{flag_id:int}",
        operation_id="getLadderFlag",
        summary="One collusion flag, with its evidence (admins only)",
        description="The flag as the list shows it, decided or not; an unknown id is a 404.",
        responses=problem_responses(401, 403, 404),
    )
    async def flag(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        flag_id: FlagIdParam,
    ) -> LadderFlagRead:
        try:
            return flag_read(await ladder_integrity.flag_view(pool, flag_id))
        except ModerationError as error:
            raise problem_of(error) from None

    @post(
        "/{flag_id:int}/annul",
        operation_id="annulLadderFlag",
        summary="Annul a collusion flag's ladder results (admins only)",
        description=(
            "Every rated ladder match between the flagged pair counts for nobody, by the rule "
            "of every annulment (docs/moderation.md): its rating changes go, the pool's Elo is "
            "recomputed without it and the fit follows; its result and replay stay. Written to "
            "the audit log as `annul_pair` on the flagged bot (public on its page with the "
            "reason). A decided flag is a 409 (`/problems/already-done`)."
        ),
        status_code=200,
        responses=_ERRORS,
    )
    async def annul(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        flag_id: FlagIdParam,
        data: JSONBody[ActionBody],
    ) -> FlagDecision:
        try:
            done = await ladder_integrity.annul(pool, flag_id, actor_of(admin), data.reason)
        except ModerationError as error:
            raise problem_of(error) from None
        return await _decision(pool, done)

    @post(
        "/{flag_id:int}/dismiss",
        operation_id="dismissLadderFlag",
        summary="Dismiss a collusion flag: its results stand (admins only)",
        description=(
            "Written to the audit log as `dismiss_flag` (admins' eyes only). The pair is "
            "flagged again only once it has as many new results as a flag needs. A decided "
            "flag is a 409 (`/problems/already-done`)."
        ),
        status_code=200,
        responses=_ERRORS,
    )
    async def dismiss(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        flag_id: FlagIdParam,
        data: JSONBody[ActionBody],
    ) -> FlagDecision:
        try:
            done = await ladder_integrity.dismiss(pool, flag_id, actor_of(admin), data.reason)
        except ModerationError as error:
            raise problem_of(error) from None
        return await _decision(pool, done)


async def _decision(pool: asyncpg.Pool, done: Decision) -> FlagDecision:
    view = await ladder_integrity.flag_view(pool, done.flag_id)
    return FlagDecision(
        flag=flag_read(view), entry=entry_read(done.entry), annulled_matches=done.annulled
    )
