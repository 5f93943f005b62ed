"""Users' reports of a bot or a name: made by anyone (a key is optional), queued for the admins
(docs/moderation.md). The budget (so many an hour per address, per account) is the API's."""

from __future__ import annotations

import asyncpg

from services.db import reports as db_reports
from services.db.reports import DuplicateReport, Report
from services.domain.moderation import ReportCategory, ReportTarget
from services.flow.moderation import AlreadyDone, TargetNotFound
from services.metrics.catalog import REPORTS


async def report(
    pool: asyncpg.Pool,
    *,
    target_kind: ReportTarget,
    target_id: int,
    category: ReportCategory,
    text: str,
    reporter_id: int | None,
    reporter_address: str,
) -> Report:
    """File a report; :class:`TargetNotFound` if there is no such bot or account,
    :class:`AlreadyDone` if this address's report of it is still open."""
    async with pool.acquire() as conn:
        if await db_reports.target_name(conn, target_kind, target_id) is None:
            raise TargetNotFound(f"there is no {target_kind} {target_id}")
        try:
            made = await db_reports.insert_report(
                conn,
                target_kind=target_kind,
                target_id=target_id,
                category=category,
                text=text,
                reporter_id=reporter_id,
                reporter_address=reporter_address,
            )
        except DuplicateReport:
            raise AlreadyDone(
                f"a report of {target_kind} {target_id} from your address is already waiting "
                "for an admin"
            ) from None
    REPORTS.labels(target_kind).inc()
    return made
