"""The admins' API (``/v1/admin``, docs/moderation.md): disqualify a bot, suspend or reinstate an
account, rename or hide a name, read the audit log and the reports' queue, resolve a report.

Every operation needs the key of an ADMIN's account: no key is a 401, any other account's key a
403, on every operation. No operation makes an admin or unmakes one: that is ``truco admin
grant`` on a machine holding the database's credentials (the API has no way to write the
``admins`` table). Every action is written to the append-only audit log in the same
transaction as what it does (:mod:`services.flow.moderation`).
"""

from __future__ import annotations

from typing import Annotated, Literal

import asyncpg
from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import JSONBody, Parameter

from services.api.auth import SECURITY, current_account, hash_api_key, new_api_key
from services.api.deps import send_matches, services_of, stop
from services.api.names import check_name
from services.api.params import BotIdParam
from services.api.problems import FieldError, ProblemError, problem_responses
from services.api.schemas.moderation import (
    ActionBody,
    ActionDone,
    AdminRead,
    AuditPage,
    LogEntryRead,
    NameBody,
    Reinstated,
    ReportPage,
    ReportRead,
    ResolveBody,
)
from services.db import api_keys as db_keys
from services.db import moderation as db_moderation
from services.db import reports as db_reports
from services.db.accounts import Account
from services.db.moderation import LogEntry
from services.db.reports import Report
from services.domain.moderation import Nameable, ReportStatus, TargetKind
from services.flow import moderation as flow
from services.flow.moderation import Actor, Effects

AccountIdParam = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the account's id")]
ReportIdParam = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the report's id")]
PageLimit = Annotated[int, Parameter(ge=1, le=200, description="entries a page")]
Cursor = Annotated[
    int | None, Parameter(ge=1, le=2**63 - 1, description="the next_cursor of the previous page")
]


async def current_admin(request: Request[object, object, State]) -> Account:
    """Dependency: the account of the request's key, if it is an admin's; else 401 (no valid
    key) or 403."""
    account = await current_account(request)
    pool = services_of(request.app.state).pool
    assert pool is not None
    if not await db_moderation.is_admin(pool, account.id):
        raise ProblemError(
            403, "this operation is for the platform's admins only", slug="not-an-admin"
        )
    return account


ADMIN_ONLY = {"admin": Provide(current_admin)}
_ERRORS = problem_responses(401, 403, 404, 409, 413, 415, 422)


def entry_read(entry: LogEntry) -> LogEntryRead:
    return LogEntryRead(
        id=entry.id,
        at=entry.at,
        actor_id=entry.actor_id,
        actor=entry.actor,
        action=entry.action,
        target_kind=entry.target_kind,
        target_id=entry.target_id,
        reason=entry.reason,
        detail=entry.detail,
    )


def report_read(report: Report) -> ReportRead:
    return ReportRead(
        id=report.id,
        created_at=report.created_at,
        target=report.target_kind,
        target_id=report.target_id,
        target_name=report.target_name,
        category=report.category,
        text=report.text,
        reporter_id=report.reporter_id,
        reporter_address=report.reporter_address,
        status=report.status,
        resolved_at=report.resolved_at,
        resolved_by=report.resolved_by,
    )


def problem_of(error: flow.ModerationError) -> ProblemError:
    if isinstance(error, flow.TargetNotFound):
        return ProblemError(404, str(error))
    if isinstance(error, flow.NameTaken):
        return ProblemError(409, str(error), slug="name-taken")
    return ProblemError(409, str(error), slug="already-done")


def actor_of(admin: Account) -> Actor:
    return Actor(admin.id, admin.name)


async def _done(request: Request[object, object, State], effects: Effects) -> ActionDone:
    svc = services_of(request.app.state)
    await stop(svc, effects.stop)
    await send_matches(svc, effects.ready)
    assert effects.entry is not None
    return ActionDone(
        entry=entry_read(effects.entry),
        stopped_matches=sorted(effects.stop),
        sent_matches=sorted(effects.ready),
    )


class AdminController(Controller):
    path = "/v1/admin"
    tags = ("admin",)
    dependencies = ADMIN_ONLY
    security = SECURITY

    @get(
        "/audit",
        operation_id="listAuditLog",
        summary="The audit log of admins' actions (admins only)",
        description="Newest first; keyset pages (next_cursor). Filter by target.",
        responses=problem_responses(401, 403),
    )
    async def audit(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        target_kind: Annotated[
            TargetKind | None, Parameter(description="only actions on this kind of target")
        ] = None,
        target_id: Annotated[int | None, Parameter(ge=1, le=2**63 - 1)] = None,
        cursor: Cursor = None,
        limit: PageLimit = 50,
    ) -> AuditPage:
        entries = await db_moderation.log_entries(
            pool, target_kind=target_kind, target_id=target_id, before=cursor, limit=limit + 1
        )
        more = len(entries) > limit
        page = entries[:limit]
        return AuditPage(
            items=[entry_read(e) for e in page], next_cursor=page[-1].id if more else None
        )

    @get(
        "/admins",
        operation_id="listAdmins",
        summary="The platform's admins (admins only)",
        description="Made and unmade only by `truco admin grant|revoke` on the server.",
        responses=problem_responses(401, 403),
    )
    async def admins(
        self, pool: NamedDependency[asyncpg.Pool], admin: NamedDependency[Account]
    ) -> list[AdminRead]:
        return [
            AdminRead(account_id=a.account_id, name=a.name, granted_at=a.granted_at)
            for a in await db_moderation.admins(pool)
        ]

    @post(
        "/bots/{bot_id:int}/disqualify",
        operation_id="disqualifyBot",
        summary="Disqualify a bot (admins only)",
        description=(
            "The bot never plays again (it is deleted, marked disqualified on its pages). Its "
            "ladder results are annulled and the pools refitted without them; it forfeits "
            "what is left of its running events and leaves the registering ones; its finished "
            "events' results stand; its open challenges and tests are cancelled."
        ),
        status_code=200,
        responses=_ERRORS,
    )
    async def disqualify(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        bot_id: BotIdParam,
        data: JSONBody[ActionBody],
    ) -> ActionDone:
        try:
            effects = await flow.disqualify_bot(pool, bot_id, actor_of(admin), data.reason)
        except flow.ModerationError as error:
            raise problem_of(error) from None
        return await _done(request, effects)

    @post(
        "/accounts/{account_id:int}/suspend",
        operation_id="suspendAccount",
        summary="Suspend an account (admins only)",
        description=(
            "Every API key revoked (no key of a suspended account works); every bot closed, "
            "out of the ladders and of every event (forfeiting what is left of running ones); "
            "open challenges and tests cancelled."
        ),
        status_code=200,
        responses=_ERRORS,
    )
    async def suspend(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        account_id: AccountIdParam,
        data: JSONBody[ActionBody],
    ) -> ActionDone:
        if account_id == admin.id:
            raise ProblemError(409, "an admin cannot suspend their own account", slug="self")
        try:
            effects = await flow.suspend_account(pool, account_id, actor_of(admin), data.reason)
        except flow.ModerationError as error:
            raise problem_of(error) from None
        return await _done(request, effects)

    @post(
        "/accounts/{account_id:int}/reinstate",
        operation_id="reinstateAccount",
        summary="Lift an account's suspension (admins only)",
        description=(
            "The account gets one new API key, in this response only: hand it to its owner. "
            "Its bots stay closed until their owner opens them."
        ),
        status_code=200,
        responses=_ERRORS,
    )
    async def reinstate(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        account_id: AccountIdParam,
        data: JSONBody[ActionBody],
    ) -> Reinstated:
        key = new_api_key()
        try:
            effects = await flow.reinstate_account(
                pool,
                account_id,
                actor_of(admin),
                data.reason,
                hash_api_key(key),
                db_keys.hint_of(key),
            )
        except flow.ModerationError as error:
            raise problem_of(error) from None
        assert effects.entry is not None
        return Reinstated(entry=entry_read(effects.entry), api_key=key)

    async def _name(
        self, pool: asyncpg.Pool, kind: Nameable, target_id: int, admin: Account, data: NameBody
    ) -> LogEntryRead:
        if (data.name is None) == (not data.hide):
            problem = "give exactly one of name and hide: true"
            raise ProblemError(422, problem, errors=[FieldError("body.name", problem)])
        check_name(data.name)
        try:
            effects = await flow.rename(
                pool, kind, target_id, data.name, actor_of(admin), data.reason
            )
        except flow.ModerationError as error:
            raise problem_of(error) from None
        assert effects.entry is not None
        return entry_read(effects.entry)

    @post(
        "/bots/{bot_id:int}/name",
        operation_id="setBotName",
        summary="Rename a bot, or hide its name (admins only)",
        description=(
            "`name`: the new name; `hide: true`: the name becomes `bot-<id>`. Its owner cannot "
            "change it back. The audit log keeps the old name; the bot's page never shows it."
        ),
        status_code=200,
        responses=_ERRORS,
    )
    async def bot_name(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        bot_id: BotIdParam,
        data: JSONBody[NameBody],
    ) -> LogEntryRead:
        return await self._name(pool, "bot", bot_id, admin, data)

    @post(
        "/accounts/{account_id:int}/name",
        operation_id="setAccountName",
        summary="Rename an account, or hide its name (admins only)",
        description="`name`: the new name; `hide: true`: the name becomes `account-<id>`.",
        status_code=200,
        responses=_ERRORS,
    )
    async def account_name(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        account_id: AccountIdParam,
        data: JSONBody[NameBody],
    ) -> LogEntryRead:
        return await self._name(pool, "account", account_id, admin, data)

    @get(
        "/reports",
        operation_id="listReports",
        summary="Users' reports (admins only)",
        description=(
            "`status=open` (the default): the queue, oldest first; `actioned`, `dismissed` or "
            "`all`: newest first. Keyset pages (next_cursor)."
        ),
        responses=problem_responses(401, 403),
    )
    async def reports(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        status: Annotated[
            ReportStatus | Literal["all"], Parameter(description="which reports: open, ..., all")
        ] = "open",
        cursor: Cursor = None,
        limit: PageLimit = 50,
    ) -> ReportPage:
        wanted = None if status == "all" else status
        found = await db_reports.reports(pool, status=wanted, before=cursor, limit=limit + 1)
        more = len(found) > limit
        page = found[:limit]
        return ReportPage(
            items=[report_read(r) for r in page], next_cursor=page[-1].id if more else None
        )

    @post(
        "/reports/{report_id:int}/resolve",
        operation_id="resolveReport",
        summary="Close a report: actioned or dismissed (admins only)",
        description="The report leaves the open queue with its resolution and the admin's "
        "note; the audit log keeps the line this answer returns.",
        status_code=200,
        responses=_ERRORS,
    )
    async def resolve(
        self,
        pool: NamedDependency[asyncpg.Pool],
        admin: NamedDependency[Account],
        report_id: ReportIdParam,
        data: JSONBody[ResolveBody],
    ) -> LogEntryRead:
        try:
            effects = await flow.resolve_report(
                pool, report_id, data.outcome, actor_of(admin), data.reason
            )
        except flow.ModerationError as error:
            raise problem_of(error) from None
        assert effects.entry is not None
        return entry_read(effects.entry)
