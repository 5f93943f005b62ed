"""API keys as objects (migration 0025): an account's live keys, adding, rotating, revoking.

Only a key's SHA-256 is stored, with its last characters (``hint``) to tell keys apart. A
revoked key (``revoked_at`` set) is never found by :func:`key_owner`: it stops working at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from services.db.accounts import Account, Connection, Executor

HINT_LENGTH = 4


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: int
    account_id: int
    hint: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class KeyOwner:
    """The account a live key belongs to, and which key it is."""

    account: Account
    key_id: int


class TooManyKeys(Exception):
    """The account holds its most live keys already."""


class LastKey(Exception):
    """Revoking this key would leave the account without one (rotate it instead)."""


class NoSuchKey(Exception):
    """No live key of this account has that id (never was, revoked, or another's)."""


def hint_of(key: str) -> str:
    return key[-HINT_LENGTH:]


def _key(row: asyncpg.Record) -> ApiKey:
    return ApiKey(row["id"], row["account_id"], row["hint"], row["created_at"])


async def key_owner(conn: Executor, key_hash: bytes) -> KeyOwner | None:
    """The account of the live key whose SHA-256 is ``key_hash``; None if none (or revoked, or
    the account is suspended: docs/moderation.md)."""
    row = await conn.fetchrow(
        "SELECT a.id, a.name, a.created_at, k.id AS key_id FROM api_keys AS k "
        "JOIN accounts AS a ON a.id = k.account_id "
        "WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND a.suspended_at IS NULL",
        key_hash,
    )
    if row is None:
        return None
    return KeyOwner(Account(row["id"], row["name"], row["created_at"]), row["key_id"])


async def live_keys(conn: Executor, account_id: int) -> list[ApiKey]:
    """The account's live keys, oldest first."""
    rows = await conn.fetch(
        "SELECT id, account_id, hint, created_at FROM api_keys "
        "WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id",
        account_id,
    )
    return [_key(row) for row in rows]


async def insert_key(conn: Executor, account_id: int, key_hash: bytes, hint: str) -> ApiKey:
    row = await conn.fetchrow(
        "INSERT INTO api_keys (account_id, key_hash, hint) VALUES ($1, $2, $3) "
        "RETURNING id, account_id, hint, created_at",
        account_id,
        key_hash,
        hint,
    )
    assert row is not None
    return _key(row)


async def _lock_account(conn: Connection, account_id: int) -> None:
    """Serialise key changes of one account (the count of live keys is then exact)."""
    await conn.execute("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", account_id)


async def add_key(
    conn: Connection, account_id: int, key_hash: bytes, hint: str, *, most: int
) -> ApiKey:
    """Add a key; :class:`TooManyKeys` if the account holds ``most`` live keys already."""
    async with conn.transaction():
        await _lock_account(conn, account_id)
        live = await conn.fetchval(
            "SELECT count(*) FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL",
            account_id,
        )
        if live >= most:
            raise TooManyKeys(account_id)
        return await insert_key(conn, account_id, key_hash, hint)


async def rotate_key(
    conn: Connection, account_id: int, old_key_id: int, key_hash: bytes, hint: str
) -> ApiKey:
    """Revoke ``old_key_id`` and add the new key, in one transaction; :class:`NoSuchKey` if the
    old key is not live any more (revoked meanwhile, by another rotation for instance)."""
    async with conn.transaction():
        await _lock_account(conn, account_id)
        revoked = await conn.fetchval(
            "UPDATE api_keys SET revoked_at = now() "
            "WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id",
            old_key_id,
            account_id,
        )
        if revoked is None:
            raise NoSuchKey(old_key_id)
        return await insert_key(conn, account_id, key_hash, hint)


async def revoke_key(conn: Connection, account_id: int, key_id: int) -> None:
    """Revoke a live key of the account: :class:`NoSuchKey` if it has no such live key,
    :class:`LastKey` if it is the account's only live key."""
    async with conn.transaction():
        await _lock_account(conn, account_id)
        live = [key.id for key in await live_keys(conn, account_id)]
        if key_id not in live:
            raise NoSuchKey(key_id)
        if len(live) == 1:
            raise LastKey(key_id)
        await conn.execute("UPDATE api_keys SET revoked_at = now() WHERE id = $1", key_id)
