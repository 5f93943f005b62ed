"""Migration 0025 moves every account's key into ``api_keys`` (it keeps working, the old column
is emptied); an ``INSERT INTO accounts`` that gives a key still gives the account its first key."""

from __future__ import annotations

import hashlib

import asyncpg
import pytest

from services.db import api_keys as db_keys
from services.db.accounts import account_by_key_hash
from services.db.migrate import load_migrations, migrate

pytestmark = pytest.mark.anyio
OLD = hashlib.sha256(b"ta_old").digest()
NEW = hashlib.sha256(b"ta_new").digest()


async def test_stored_keys_move_to_api_keys_and_keep_working(fresh_database: str) -> None:
    migrations = load_migrations()
    conn = await asyncpg.connect(fresh_database)
    try:
        await migrate(conn, [m for m in migrations if m.version < 25])
        old_id = await conn.fetchval(
            "INSERT INTO accounts (name, api_key_hash) VALUES ('old', $1) RETURNING id", OLD
        )
        await migrate(conn, migrations)
        assert (
            await conn.fetchval("SELECT api_key_hash FROM accounts WHERE id = $1", old_id) is None
        )
        owner = await db_keys.key_owner(conn, OLD)
        assert owner is not None and owner.account.id == old_id
        assert [k.hint for k in await db_keys.live_keys(conn, old_id)] == [""]  # made before hints

        # a key given in the INSERT (as some tools and tests do) becomes the first key
        new_id = await conn.fetchval(
            "INSERT INTO accounts (name, api_key_hash) VALUES ('new', $1) RETURNING id", NEW
        )
        found = await account_by_key_hash(conn, NEW)
        assert found is not None and found.id == new_id
        assert (
            await conn.fetchval("SELECT api_key_hash FROM accounts WHERE id = $1", new_id) is None
        )
        # revoked: not found any more
        await conn.execute("UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1", NEW)
        assert await account_by_key_hash(conn, NEW) is None
        with pytest.raises(asyncpg.UniqueViolationError):  # one key, one row
            await conn.execute(
                "INSERT INTO api_keys (account_id, key_hash) VALUES ($1, $2)", new_id, OLD
            )
    finally:
        await conn.close()
