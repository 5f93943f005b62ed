"""Registered bots: create, read, list (keyset pages), update, soft delete; their ratings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from services.db.accounts import Connection, DuplicateName, Executor
from services.domain import RATING_POOLS, BotStatus, ChallengePolicy
from services.domain.names import name_key

DEFAULT_RATING = 1500.0
_COLUMNS = "id, owner_id, name, url, status, created_at, updated_at, deleted_at, open, challenges, min_timeout_ms"
NAME_CONSTRAINTS = frozenset({"bots_name_unique", "bots_name_key_unique"})


@dataclass(frozen=True, slots=True)
class Bot:
    id: int
    owner_id: int
    name: str
    url: str
    status: BotStatus
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None
    open: bool = False  # anyone may enter it into their tournaments
    challenges: ChallengePolicy = "open"
    min_timeout_ms: int | None = None  # the least timeout it accepts in others' events (0024)


def _bot(row: asyncpg.Record) -> Bot:
    return Bot(
        id=row["id"],
        owner_id=row["owner_id"],
        name=row["name"],
        url=row["url"],
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        deleted_at=row["deleted_at"],
        open=row["open"],
        challenges=row["challenges"],
        min_timeout_ms=row["min_timeout_ms"],
    )


def _name_conflict(exc: asyncpg.UniqueViolationError, name: str | None) -> Exception:
    if exc.constraint_name in NAME_CONSTRAINTS:
        return DuplicateName(name or "")
    return exc


async def create_bot(
    conn: Connection,
    *,
    owner_id: int,
    name: str,
    url: str,
    encrypt_secret: Callable[[int], bytes],
    key_id: str,
    open: bool = False,
    challenges: ChallengePolicy = "open",
    min_timeout_ms: int | None = None,
    most: int | None = None,
) -> Bot:
    """Insert a bot; ``encrypt_secret(bot_id)`` gives the stored secret (the id is bound in).

    Raises :class:`DuplicateName` if a live bot has the name, :class:`TooManyBots` if the
    owner has ``most`` live bots already (counted under a lock on the owner, so concurrent
    registrations stop exactly at ``most``).
    """
    try:
        async with conn.transaction():
            if most is not None:
                await _check_bot_count(conn, owner_id, most)
            row = await conn.fetchrow(
                "INSERT INTO bots (owner_id, name, name_key, url, signing_secret_enc, "
                "signing_key_id, open, challenges, min_timeout_ms) "
                f"VALUES ($1, $2, $3, $4, '', $5, $6, $7, $8) RETURNING {_COLUMNS}",
                owner_id,
                name,
                name_key(name),
                url,
                key_id,
                open,
                challenges,
                min_timeout_ms,
            )
            assert row is not None
            await conn.execute(
                "UPDATE bots SET signing_secret_enc = $2 WHERE id = $1",
                row["id"],
                encrypt_secret(row["id"]),
            )
    except asyncpg.UniqueViolationError as exc:
        raise _name_conflict(exc, name) from None
    return _bot(row)


class TooManyBots(Exception):
    """The owner has as many live bots as it may; ``most`` is that limit."""

    def __init__(self, most: int) -> None:
        super().__init__(most)
        self.most = most


async def _check_bot_count(conn: Connection, owner_id: int, most: int) -> None:
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('truco:bots:owner:' || $1, 0))",
        str(owner_id),
    )
    if await live_bot_count(conn, owner_id) >= most:
        raise TooManyBots(most)


async def live_bot_count(conn: Executor, owner_id: int) -> int:
    """The owner's bots that are not deleted."""
    count: int = await conn.fetchval(
        "SELECT count(*) FROM bots WHERE owner_id = $1 AND status <> 'deleted'", owner_id
    )
    return count


async def get_bot(conn: Executor, bot_id: int) -> Bot | None:
    row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM bots WHERE id = $1", bot_id)
    return None if row is None else _bot(row)


async def signing_secret(conn: Executor, bot_id: int) -> tuple[bytes, str] | None:
    """The stored (encrypted secret, key id) of a bot."""
    row = await conn.fetchrow(
        "SELECT signing_secret_enc, signing_key_id FROM bots WHERE id = $1", bot_id
    )
    return None if row is None else (bytes(row[0]), str(row[1]))


async def rotate_secret(
    conn: Executor,
    bot_id: int,
    *,
    encrypted: bytes,
    key_id: str,
    grace_s: int,
) -> datetime | None:
    """Make ``encrypted`` the live bot's secret; the one it replaces stays valid ``grace_s``
    seconds more (it replaces any earlier previous secret). Returns when the previous secret
    expires; None if there is no such live bot."""
    row = await conn.fetchrow(
        "UPDATE bots SET previous_secret_enc = signing_secret_enc, "
        "previous_key_id = signing_key_id, "
        "previous_secret_until = now() + make_interval(secs => $4), "
        "signing_secret_enc = $2, signing_key_id = $3, secret_rotated_at = now(), "
        "updated_at = now() WHERE id = $1 AND status <> 'deleted' "
        "RETURNING previous_secret_until",
        bot_id,
        encrypted,
        key_id,
        float(grace_s),
    )
    return None if row is None else row["previous_secret_until"]


async def list_bots(
    conn: Executor,
    *,
    limit: int,
    cursor: int | None,
    owner_id: int | None = None,
    name: str | None = None,
) -> tuple[list[Bot], bool]:
    """Live bots, newest first, ``limit`` at a time after ``cursor`` (the last id seen); only
    ``owner_id``'s if given, only the one called ``name`` (ignoring case) if given.

    Returns the page and whether more follow.
    """
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} FROM bots WHERE status <> 'deleted' "
        "AND ($1::bigint IS NULL OR id < $1) AND ($3::bigint IS NULL OR owner_id = $3) "
        "AND ($4::text IS NULL OR lower(name) = lower($4)) ORDER BY id DESC LIMIT $2",
        cursor,
        limit + 1,
        owner_id,
        name,
    )
    return [_bot(row) for row in rows[:limit]], len(rows) > limit


async def ratings(conn: Executor, bot_ids: list[int]) -> dict[int, dict[str, float]]:
    """Rating per mode for each bot; modes without a row get the default 1500."""
    found = await conn.fetch(
        "SELECT bot_id, mode, rating FROM ratings WHERE bot_id = ANY($1::bigint[])", bot_ids
    )
    result: dict[int, dict[str, float]] = {
        bot_id: {pool: DEFAULT_RATING for pool in RATING_POOLS} for bot_id in bot_ids
    }
    for row in found:
        result[row["bot_id"]][row["mode"]] = float(row["rating"])
    return result


async def update_bot(
    conn: Executor,
    bot_id: int,
    *,
    name: str | None = None,
    url: str | None = None,
    open: bool | None = None,
    challenges: ChallengePolicy | None = None,
    min_timeout_ms: int | None = None,
) -> Bot | None:
    """Change what is given of a live bot; None if there is no such live bot."""
    try:
        row = await conn.fetchrow(
            "UPDATE bots SET name = COALESCE($2, name), url = COALESCE($3, url), "
            "name_key = COALESCE($4, name_key), open = COALESCE($5, open), "
            "challenges = COALESCE($6, challenges), "
            "min_timeout_ms = COALESCE($7, min_timeout_ms), updated_at = now() "
            f"WHERE id = $1 AND status <> 'deleted' RETURNING {_COLUMNS}",
            bot_id,
            name,
            url,
            None if name is None else name_key(name),
            open,
            challenges,
            min_timeout_ms,
        )
    except asyncpg.UniqueViolationError as exc:
        raise _name_conflict(exc, name) from None
    return None if row is None else _bot(row)


async def soft_delete_bot(conn: Executor, bot_id: int) -> bool:
    """Mark a live bot deleted (its row stays for history); False if none was live."""
    row = await conn.fetchrow(
        "UPDATE bots SET status = 'deleted', deleted_at = now(), updated_at = now() "
        "WHERE id = $1 AND status <> 'deleted' RETURNING id",
        bot_id,
    )
    return row is not None
