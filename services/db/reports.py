"""Users' reports of a bot or a name (migration 0065): made, queued for the admins, resolved."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from services.db.accounts import Executor
from services.domain.moderation import (
    ReportCategory,
    ReportOutcome,
    ReportStatus,
    ReportTarget,
)


class DuplicateReport(Exception):
    """This address already has an open report of this target."""


@dataclass(frozen=True, slots=True)
class Report:
    id: int
    created_at: datetime
    target_kind: ReportTarget
    target_id: int
    target_name: str | None
    category: ReportCategory
    text: str
    reporter_id: int | None
    reporter_address: str
    status: ReportStatus
    resolved_at: datetime | None
    resolved_by: int | None


_COLUMNS = (
    "r.id, r.created_at, r.target_kind, r.target_id, r.category, r.text, r.reporter_id, "
    "r.reporter_address, r.status, r.resolved_at, r.resolved_by, "
    "CASE r.target_kind WHEN 'bot' THEN (SELECT name FROM bots WHERE id = r.target_id) "
    "ELSE (SELECT name FROM accounts WHERE id = r.target_id) END AS target_name"
)


def _report(row: asyncpg.Record) -> Report:
    return Report(
        id=row["id"],
        created_at=row["created_at"],
        target_kind=row["target_kind"],
        target_id=row["target_id"],
        target_name=row["target_name"],
        category=row["category"],
        text=row["text"],
        reporter_id=row["reporter_id"],
        reporter_address=row["reporter_address"],
        status=row["status"],
        resolved_at=row["resolved_at"],
        resolved_by=row["resolved_by"],
    )


async def target_name(conn: Executor, kind: ReportTarget, target_id: int) -> str | None:
    """The name of the bot or account reported (None: there is none)."""
    table = "bots" if kind == "bot" else "accounts"
    found = await conn.fetchval(f"SELECT name FROM {table} WHERE id = $1", target_id)
    return None if found is None else str(found)


async def insert_report(
    conn: Executor,
    *,
    target_kind: ReportTarget,
    target_id: int,
    category: ReportCategory,
    text: str,
    reporter_id: int | None,
    reporter_address: str,
) -> Report:
    """A new open report; :class:`DuplicateReport` if the address has one open on the target."""
    try:
        row = await conn.fetchrow(
            "WITH r AS (INSERT INTO reports (target_kind, target_id, category, text, "
            "reporter_id, reporter_address) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *) "
            f"SELECT {_COLUMNS} FROM r",
            target_kind,
            target_id,
            category,
            text,
            reporter_id,
            reporter_address,
        )
    except asyncpg.UniqueViolationError:
        raise DuplicateReport(f"{target_kind} {target_id}") from None
    assert row is not None
    return _report(row)


async def get_report(conn: Executor, report_id: int, *, for_update: bool = False) -> Report | None:
    lock = " FOR UPDATE OF r" if for_update else ""
    row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM reports r WHERE r.id = $1{lock}", report_id)
    return None if row is None else _report(row)


async def reports(
    conn: Executor, *, status: ReportStatus | None, before: int | None, limit: int
) -> list[Report]:
    """Reports, oldest first among the open (a queue), newest first otherwise; keyset pages
    (``before``: an id, in the page's order)."""
    if status == "open":
        rows = await conn.fetch(
            f"SELECT {_COLUMNS} FROM reports r WHERE r.status = 'open' "
            "AND ($1::bigint IS NULL OR r.id > $1) ORDER BY r.id LIMIT $2",
            before,
            limit,
        )
    else:
        rows = await conn.fetch(
            f"SELECT {_COLUMNS} FROM reports r WHERE ($1::text IS NULL OR r.status = $1) "
            "AND ($2::bigint IS NULL OR r.id < $2) ORDER BY r.id DESC LIMIT $3",
            status,
            before,
            limit,
        )
    return [_report(row) for row in rows]


async def resolve(conn: Executor, report_id: int, outcome: ReportOutcome, admin_id: int) -> bool:
    """Close an open report; False if it was not open."""
    found = await conn.fetchval(
        "UPDATE reports SET status = $2, resolved_at = now(), resolved_by = $3 "
        "WHERE id = $1 AND status = 'open' RETURNING 1",
        report_id,
        outcome,
        admin_id,
    )
    return found is not None


async def open_count(conn: Executor) -> int:
    return int(await conn.fetchval("SELECT count(*) FROM reports WHERE status = 'open'"))
