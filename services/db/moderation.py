"""Moderation's rows (migration 0065): admins, the append-only audit log, and what admins change
on accounts and bots (a suspension, a disqualification, a name they set). The rules are
:mod:`services.flow.moderation`'s; users' reports are :mod:`services.db.reports`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg
import msgspec

from services.db.accounts import Connection, DuplicateName, Executor
from services.domain.moderation import PUBLIC_ACTIONS, Action, AuditDetail, TargetKind
from services.domain.names import name_key

# --- admins -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Admin:
    account_id: int
    name: str
    granted_at: datetime


async def is_admin(conn: Executor, account_id: int) -> bool:
    found = await conn.fetchval("SELECT 1 FROM admins WHERE account_id = $1", account_id)
    return found is not None


async def grant_admin(conn: Executor, account_id: int) -> bool:
    """Make the account an admin; False if it was one already. Only the server's command line
    calls this (``truco admin grant``): no API operation does."""
    found = await conn.fetchval(
        "INSERT INTO admins (account_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING 1",
        account_id,
    )
    return found is not None


async def revoke_admin(conn: Executor, account_id: int) -> bool:
    found = await conn.fetchval("DELETE FROM admins WHERE account_id = $1 RETURNING 1", account_id)
    return found is not None


async def admins(conn: Executor) -> list[Admin]:
    rows = await conn.fetch(
        "SELECT d.account_id, a.name, d.granted_at FROM admins d "
        "JOIN accounts a ON a.id = d.account_id ORDER BY d.account_id"
    )
    return [Admin(row["account_id"], row["name"], row["granted_at"]) for row in rows]


# --- the audit log ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LogEntry:
    id: int
    at: datetime
    actor_id: int | None
    actor: str
    action: Action
    target_kind: TargetKind
    target_id: int
    reason: str
    detail: AuditDetail


_LOG_COLUMNS = "id, at, actor_id, actor, action, target_kind, target_id, reason, detail"


def _entry(row: asyncpg.Record) -> LogEntry:
    return LogEntry(
        id=row["id"],
        at=row["at"],
        actor_id=row["actor_id"],
        actor=row["actor"],
        action=row["action"],
        target_kind=row["target_kind"],
        target_id=row["target_id"],
        reason=row["reason"],
        detail=msgspec.convert(row["detail"], AuditDetail),
    )


async def append(
    conn: Executor,
    *,
    actor_id: int | None,
    actor: str,
    action: Action,
    target_kind: TargetKind,
    target_id: int,
    reason: str,
    detail: AuditDetail | None = None,
) -> LogEntry:
    """Write one action to the log (the only statement the log ever takes)."""
    row = await conn.fetchrow(
        "INSERT INTO moderation_log (actor_id, actor, action, target_kind, target_id, reason, "
        f"detail) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING {_LOG_COLUMNS}",
        actor_id,
        actor,
        action,
        target_kind,
        target_id,
        reason,
        detail or {},
    )
    assert row is not None
    return _entry(row)


async def log_entries(
    conn: Executor,
    *,
    target_kind: TargetKind | None = None,
    target_id: int | None = None,
    before: int | None = None,
    limit: int = 50,
) -> list[LogEntry]:
    """The log, newest first (keyset pages: ``before`` an id), of one target if given."""
    rows = await conn.fetch(
        f"SELECT {_LOG_COLUMNS} FROM moderation_log "
        "WHERE ($1::text IS NULL OR target_kind = $1) AND ($2::bigint IS NULL OR target_id = $2) "
        "AND ($3::bigint IS NULL OR id < $3) ORDER BY id DESC LIMIT $4",
        target_kind,
        target_id,
        before,
        limit,
    )
    return [_entry(row) for row in rows]


async def public_bot_entries(conn: Executor, bot_id: int, limit: int = 20) -> list[LogEntry]:
    """What a bot's public page shows of the log: its disqualification, renames, annulments."""
    rows = await conn.fetch(
        f"SELECT {_LOG_COLUMNS} FROM moderation_log WHERE target_kind = 'bot' "
        "AND target_id = $1 AND action = ANY($2::text[]) ORDER BY id DESC LIMIT $3",
        bot_id,
        sorted(PUBLIC_ACTIONS),
        limit,
    )
    return [_entry(row) for row in rows]


# --- accounts ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AccountState:
    id: int
    name: str
    suspended_at: datetime | None
    name_locked: bool


def _account(row: asyncpg.Record) -> AccountState:
    return AccountState(row["id"], row["name"], row["suspended_at"], row["name_locked"])


async def find_account(conn: Executor, ref: str) -> AccountState | None:
    """An account by its id (digits) or its name (ignoring case and look-alike characters)."""
    if ref.isascii() and ref.isdigit():
        row = await conn.fetchrow(
            "SELECT id, name, suspended_at, name_locked FROM accounts WHERE id = $1", int(ref)
        )
    else:
        row = await conn.fetchrow(
            "SELECT id, name, suspended_at, name_locked FROM accounts WHERE name_key = $1",
            name_key(ref),
        )
    return None if row is None else _account(row)


async def lock_account(conn: Connection, account_id: int) -> AccountState | None:
    """The account, locked (key changes wait: :mod:`services.db.api_keys` locks it too)."""
    row = await conn.fetchrow(
        "SELECT id, name, suspended_at, name_locked FROM accounts WHERE id = $1 FOR UPDATE",
        account_id,
    )
    return None if row is None else _account(row)


async def set_suspended(conn: Executor, account_id: int, suspended: bool) -> None:
    await conn.execute(
        "UPDATE accounts SET suspended_at = CASE WHEN $2 THEN now() END WHERE id = $1",
        account_id,
        suspended,
    )


async def revoke_all_keys(conn: Executor, account_id: int) -> int:
    """Revoke every live key of the account; how many there were."""
    status = await conn.execute(
        "UPDATE api_keys SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL",
        account_id,
    )
    return int(status.split()[-1])


async def live_bots_of(conn: Executor, account_id: int) -> list[int]:
    rows = await conn.fetch(
        "SELECT id FROM bots WHERE owner_id = $1 AND status <> 'deleted' ORDER BY id", account_id
    )
    return [int(row["id"]) for row in rows]


async def rename_account(conn: Executor, account_id: int, name: str) -> None:
    """Set the account's name (an admin's: its owner cannot change it back); raises
    :class:`DuplicateName` if taken."""
    try:
        await conn.execute(
            "UPDATE accounts SET name = $2, name_key = $3, name_locked = true WHERE id = $1",
            account_id,
            name,
            name_key(name),
        )
    except asyncpg.UniqueViolationError:
        raise DuplicateName(name) from None


# --- bots -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotState:
    id: int
    owner_id: int
    name: str
    status: str
    disqualified_at: datetime | None
    name_locked: bool


_BOT_STATE = "id, owner_id, name, status, disqualified_at, name_locked"


def _bot(row: asyncpg.Record) -> BotState:
    return BotState(
        row["id"],
        row["owner_id"],
        row["name"],
        row["status"],
        row["disqualified_at"],
        row["name_locked"],
    )


async def bot_state(conn: Executor, bot_id: int) -> BotState | None:
    row = await conn.fetchrow(f"SELECT {_BOT_STATE} FROM bots WHERE id = $1", bot_id)
    return None if row is None else _bot(row)


async def lock_bot(conn: Connection, bot_id: int) -> BotState | None:
    row = await conn.fetchrow(f"SELECT {_BOT_STATE} FROM bots WHERE id = $1 FOR UPDATE", bot_id)
    return None if row is None else _bot(row)


async def disqualify(conn: Executor, bot_id: int) -> None:
    """The bot never plays again: deleted (its row and history kept), marked disqualified."""
    await conn.execute(
        "UPDATE bots SET status = 'deleted', deleted_at = COALESCE(deleted_at, now()), "
        "disqualified_at = now(), updated_at = now() WHERE id = $1",
        bot_id,
    )


async def close_bot(conn: Executor, bot_id: int) -> None:
    """Not open to others' events, challengeable by nobody."""
    await conn.execute(
        "UPDATE bots SET open = false, challenges = 'owner_only', updated_at = now() WHERE id = $1",
        bot_id,
    )


async def rename_bot(conn: Executor, bot_id: int, name: str) -> None:
    """Set the bot's name (an admin's: its owner cannot change it back); raises
    :class:`DuplicateName` if a live bot has it."""
    try:
        await conn.execute(
            "UPDATE bots SET name = $2, name_key = $3, name_locked = true, updated_at = now() "
            "WHERE id = $1",
            bot_id,
            name,
            name_key(name),
        )
    except asyncpg.UniqueViolationError:
        raise DuplicateName(name) from None


async def name_locked(conn: Executor, bot_id: int) -> bool:
    found = await conn.fetchval("SELECT name_locked FROM bots WHERE id = $1", bot_id)
    return bool(found)


async def withdraw_from_registering(conn: Executor, bot_id: int) -> list[int]:
    """The bot leaves every event still registering; the events' ids."""
    rows = await conn.fetch(
        "UPDATE tournament_entries e SET withdrawn_at = now() FROM tournaments t "
        "WHERE t.id = e.tournament_id AND t.status = 'registering' AND e.bot_id = $1 "
        "AND e.withdrawn_at IS NULL RETURNING e.tournament_id",
        bot_id,
    )
    return sorted(int(row["tournament_id"]) for row in rows)


async def cancel_open_challenges_of(conn: Executor, bot_id: int) -> list[int]:
    """The bot's unfinished matches outside tournaments and tests (challenges, ladder matches)
    are cancelled (a sent one is ``stopping`` until its worker stops); their ids."""
    rows = await conn.fetch(
        "UPDATE matches SET status = 'cancelled', finished_at = now(), "
        "stopping_since = CASE WHEN status IN ('queued', 'running') THEN now() END "
        "WHERE tournament_id IS NULL AND sprt_test_id IS NULL "
        "AND status IN ('pending', 'queued', 'running') "
        "AND id IN (SELECT match_id FROM match_entrants WHERE bot_id = $1) RETURNING id",
        bot_id,
    )
    return sorted(int(row["id"]) for row in rows)


async def running_tests_of(conn: Executor, bot_id: int) -> list[int]:
    rows = await conn.fetch(
        "SELECT id FROM sprt_tests WHERE status = 'running' AND (bot_a = $1 OR bot_b = $1) "
        "ORDER BY id",
        bot_id,
    )
    return [int(row["id"]) for row in rows]
