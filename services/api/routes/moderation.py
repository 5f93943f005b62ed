"""What anyone sees and does of moderation: report a bot or a name (``POST /v1/reports``), and a
bot's public moderation history (``GET /v1/bots/{id}/moderation``). docs/moderation.md.

A report needs no key (a reader of the pages may report), and counts against its client
address's budget, ``TRUCO_REPORTS_PER_HOUR`` (10) an hour, the address being an IPv6 /64 or an
IPv4 address (one host holds a whole /64: :func:`services.api.guard.address_caps.address_key`);
with a key it also counts against the account's own budget of the same size, so many accounts
of one address share the address's. An address has at most one open report of a target: a
second is a 409 while the first waits.
"""

from __future__ import annotations

import math

import asyncpg
from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import JSONBody

from services.api.auth import current_account
from services.api.deps import services_of
from services.api.guard.address_caps import address_key
from services.api.guard.ratelimit import HOUR_S, limiter_of
from services.api.params import BotIdParam
from services.api.problems import ProblemError, problem_responses
from services.api.schemas.moderation import (
    BotModeration,
    PublicAction,
    ReportCreate,
    ReportCreated,
)
from services.db import moderation as db_moderation
from services.flow import reports as flow_reports
from services.flow.moderation import AlreadyDone, TargetNotFound

BUCKET = "reports:"


def reporter_address(request: Request[object, object, State]) -> str:
    """The address a report counts against: the client's, an IPv6 address as its /64."""
    address = limiter_of(request.app.state).address_of(request)
    return address_key(address) or address


async def _spend(request: Request[object, object, State], bucket: str, limit: int) -> None:
    limiter = limiter_of(request.app.state)
    if not limiter.limits.enabled:
        return
    wait = await limiter.counter.hit(bucket, limit, limiter.clock(), HOUR_S)
    if wait is not None:
        seconds = max(1, math.ceil(wait))
        raise ProblemError(
            429,
            f"too many reports: at most {limit} an hour; retry in {seconds} s",
            slug="too-many-reports",
            headers={"Retry-After": str(seconds)},
        )


async def file_report(
    request: Request[object, object, State], pool: asyncpg.Pool, data: ReportCreate
) -> ReportCreated:
    """Spend the budgets, then file the report (the pages' report form uses it too)."""
    account = await current_account(request) if request.headers.get("authorization") else None
    limit = services_of(request.app.state).settings.moderation.reports_per_hour
    address = reporter_address(request)
    await _spend(request, BUCKET + address, limit)
    if account is not None:
        await _spend(request, f"{BUCKET}account:{account.id}", limit)
    try:
        made = await flow_reports.report(
            pool,
            target_kind=data.target,
            target_id=data.target_id,
            category=data.category,
            text=data.text,
            reporter_id=None if account is None else account.id,
            reporter_address=address,
        )
    except TargetNotFound as error:
        raise ProblemError(404, str(error)) from None
    except AlreadyDone as error:
        raise ProblemError(409, str(error), slug="already-reported") from None
    return ReportCreated(id=made.id, status="open")


class ReportController(Controller):
    path = "/v1/reports"
    tags = ("moderation",)

    @post(
        "/",
        operation_id="createReport",
        summary="Report a bot or a name to the platform's admins",
        description=(
            "No key needed; with one (`Authorization: Bearer`), the report names your "
            "account, and a key that does not validate is a 401. At most "
            "TRUCO_REPORTS_PER_HOUR (10) reports an hour from one address (an IPv6 /64) and "
            "from one account: 429 past it. One open report per target and address: 409."
        ),
        status_code=201,
        responses=problem_responses(401, 404, 409, 413, 415, 422),
    )
    async def create(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        data: JSONBody[ReportCreate],
    ) -> ReportCreated:
        return await file_report(request, pool, data)


class BotModerationController(Controller):
    path = "/v1/bots/{bot_id:int}/moderation"
    tags = ("moderation",)

    @get(
        "/",
        operation_id="getBotModeration",
        summary="What the platform's moderators did to a bot, and why",
        description=(
            "Public: its disqualification, renames and annulled results, with the reason and "
            "the date (never who, never an old name)."
        ),
        responses=problem_responses(404),
    )
    async def history(
        self, pool: NamedDependency[asyncpg.Pool], bot_id: BotIdParam
    ) -> BotModeration:
        bot = await db_moderation.bot_state(pool, bot_id)
        if bot is None:
            raise ProblemError(404, f"there is no bot {bot_id}")
        entries = await db_moderation.public_bot_entries(pool, bot_id)
        return BotModeration(
            bot_id=bot_id,
            disqualified_at=bot.disqualified_at,
            actions=[PublicAction(action=e.action, reason=e.reason, at=e.at) for e in entries],
        )
