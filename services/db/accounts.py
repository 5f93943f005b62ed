"""Accounts and their API keys (only the SHA-256 of a key is ever stored; the keys
themselves are rows of ``api_keys``: :mod:`services.db.api_keys`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from services.domain.names import name_key

Executor = asyncpg.Pool | asyncpg.Connection | PoolConnectionProxy
"""What repository functions accept: a pool, a connection or a pooled connection."""
Connection = asyncpg.Connection | PoolConnectionProxy
"""One connection (what a transaction needs)."""


class DuplicateName(Exception):
    """The name is taken (names are unique ignoring case and confusable characters)."""


@dataclass(frozen=True, slots=True)
class Account:
    id: int
    name: str
    created_at: datetime


def _account(row: asyncpg.Record) -> Account:
    return Account(id=row["id"], name=row["name"], created_at=row["created_at"])


NAME_CONSTRAINTS = frozenset({"accounts_name_unique", "accounts_name_key_unique"})


async def create_account(conn: Executor, name: str, api_key_hash: bytes, hint: str = "") -> Account:
    """Insert an account and its first API key (one statement); raise :class:`DuplicateName`
    if the name is taken (ignoring case, or confusable with a taken one:
    :func:`services.domain.names.name_key`). ``hint``: the key's last characters."""
    try:
        row = await conn.fetchrow(
            "WITH account AS ("
            "  INSERT INTO accounts (name, name_key) VALUES ($1, $2)"
            "  RETURNING id, name, created_at), "
            "key AS (INSERT INTO api_keys (account_id, key_hash, hint) "
            "  SELECT id, $3, $4 FROM account) "
            "SELECT id, name, created_at FROM account",
            name,
            name_key(name),
            api_key_hash,
            hint,
        )
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name in NAME_CONSTRAINTS:
            raise DuplicateName(name) from None
        raise
    assert row is not None
    return _account(row)


async def account_by_key_hash(conn: Executor, api_key_hash: bytes) -> Account | None:
    """The account of the live (not revoked) key whose SHA-256 is ``api_key_hash``."""
    row = await conn.fetchrow(
        "SELECT a.id, a.name, a.created_at FROM api_keys AS k "
        "JOIN accounts AS a ON a.id = k.account_id "
        "WHERE k.key_hash = $1 AND k.revoked_at IS NULL",
        api_key_hash,
    )
    return None if row is None else _account(row)
