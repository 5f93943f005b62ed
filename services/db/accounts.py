"""Accounts and their API keys (only the SHA-256 of a key is ever stored)."""

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


async def create_account(conn: Executor, name: str, api_key_hash: bytes) -> Account:
    """Insert an account; raise :class:`DuplicateName` if the name is taken (ignoring case, or
    confusable with a taken one: :func:`services.domain.names.name_key`)."""
    try:
        row = await conn.fetchrow(
            "INSERT INTO accounts (name, name_key, api_key_hash) VALUES ($1, $2, $3) "
            "RETURNING id, name, created_at",
            name,
            name_key(name),
            api_key_hash,
        )
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name in NAME_CONSTRAINTS:
            raise DuplicateName(name) from None
        raise
    assert row is not None
    return _account(row)


async def account_by_key_hash(conn: Executor, api_key_hash: bytes) -> Account | None:
    row = await conn.fetchrow(
        "SELECT id, name, created_at FROM accounts WHERE api_key_hash = $1", api_key_hash
    )
    return None if row is None else _account(row)
