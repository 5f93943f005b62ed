"""Filling ``name_key`` for rows written before migration 0006, and for every row again after
0021 (which forgot the keys when the folding changed); keys are computed in Python.

:func:`fill_missing_name_keys` runs at the end of every ``migrate()`` (cheap when nothing is
missing). Rows are keyed oldest first; a row whose key is already taken by an older row keeps
a NULL key (NULL never conflicts) and is logged for an operator to rename.
"""

from __future__ import annotations

import logging

import asyncpg

from services.domain.names import name_key

logger = logging.getLogger("services.db.name_keys")
_TABLES = {
    "accounts": "TRUE",
    "bots": "status <> 'deleted'",
}


async def _has_column(conn: asyncpg.Connection, table: str) -> bool:
    found = await conn.fetchval(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = $1 AND column_name = 'name_key'",
        table,
    )
    return found is not None


async def fill_missing_name_keys(conn: asyncpg.Connection) -> int:
    """Key every row without one; returns how many were keyed."""
    keyed = 0
    for table, live in _TABLES.items():
        if not await _has_column(conn, table):
            continue
        rows = await conn.fetch(
            f"SELECT id, name FROM {table} WHERE name_key IS NULL AND {live} ORDER BY id"
        )
        for row in rows:
            try:
                async with conn.transaction():
                    await conn.execute(
                        f"UPDATE {table} SET name_key = $2 WHERE id = $1",
                        row["id"],
                        name_key(row["name"]),
                    )
                keyed += 1
            except asyncpg.UniqueViolationError:
                logger.warning(
                    "%s %s: its name is confusable with an older one's; it keeps no name key",
                    table.rstrip("s"),
                    row["id"],
                )
    return keyed
