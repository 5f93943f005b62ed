"""Migration 0008 keeps every stored seed and marks it legacy; registering tournaments get a
master seed; the constraints keep a derived seed tied to a master seed."""

from __future__ import annotations

import asyncpg
import pytest

from services.db.migrate import load_migrations, migrate

pytestmark = pytest.mark.anyio

SETUP = """
INSERT INTO accounts (name, api_key_hash) VALUES ('old', decode(repeat('ab', 32), 'hex'));
INSERT INTO tournaments (organiser_id, name, format, mode, status, started_at, finished_at)
VALUES (1, 'done', 'swiss', '1v1', 'finished', now(), now()),
       (1, 'going', 'swiss', '1v1', 'running', now(), NULL),
       (1, 'open', 'swiss', '1v1', 'registering', NULL, NULL),
       (1, 'also open', 'round_robin', '1v1', 'registering', NULL, NULL);
INSERT INTO matches (mode, status, seed, finished_at) VALUES
    ('1v1', 'done', 11, now()), ('1v1', 'pending', 12, NULL);
"""


async def test_stored_seeds_stay_and_are_marked_legacy(fresh_database: str) -> None:
    migrations = load_migrations()
    conn = await asyncpg.connect(fresh_database)
    try:
        await migrate(conn, [m for m in migrations if m.version < 8])
        await conn.execute(SETUP)
        await migrate(conn, migrations)
        rows = await conn.fetch("SELECT seed, seed_scheme, master_seed FROM matches ORDER BY id")
        assert [tuple(r) for r in rows] == [(11, "legacy", None), (12, "legacy", None)]
        masters = dict(await conn.fetch("SELECT name, master_seed FROM tournaments"))
        assert masters["done"] is None and masters["going"] is None
        assert len(masters["open"]) == 32 and len(masters["also open"]) == 32
        assert masters["open"] != masters["also open"]

        fresh = await conn.fetchval(
            "INSERT INTO matches (mode, seed) VALUES ('1v1', 5) RETURNING seed_scheme"
        )
        assert fresh == "legacy"  # a row that does not say how its seed was made claims nothing
        with pytest.raises(asyncpg.CheckViolationError):  # derived, but from no master seed
            await conn.execute(
                "INSERT INTO matches (mode, seed, seed_scheme) VALUES ('1v1', 6, 'derived-v1')"
            )
        with pytest.raises(asyncpg.CheckViolationError):
            await conn.execute("UPDATE tournaments SET master_seed = '\\x00ff'::bytea")
        with pytest.raises(asyncpg.CheckViolationError):
            await conn.execute("UPDATE matches SET seed_scheme = 'chosen'")
    finally:
        await conn.close()
