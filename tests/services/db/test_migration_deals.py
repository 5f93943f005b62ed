"""Migration 0004 labels the matches and tournaments stored before it: what was played was
mirrored, what is still to play is dealt independently, and new rows default to independent."""

from __future__ import annotations

import asyncio

import asyncpg
import msgspec
import pytest

from services.db.migrate import load_migrations, migrate

pytestmark = pytest.mark.anyio

SETUP = """
INSERT INTO accounts (name, api_key_hash) VALUES ('old', decode(repeat('ab', 32), 'hex'));
INSERT INTO tournaments (organiser_id, name, format, mode, status, started_at, finished_at)
VALUES (1, 'done', 'swiss', '1v1', 'finished', now(), now()),
       (1, 'open', 'swiss', '1v1', 'registering', NULL, NULL);
INSERT INTO matches (mode, status, seed, finished_at) VALUES
    ('1v1', 'done', 1, now()), ('1v1', 'running', 2, NULL),
    ('1v1', 'queued', 3, NULL), ('1v1', 'pending', 4, NULL);
"""


async def test_stored_rows_keep_how_they_were_dealt(fresh_database: str) -> None:
    migrations = load_migrations()
    conn = await asyncpg.connect(fresh_database)
    try:
        await migrate(conn, [m for m in migrations if m.version < 4])
        await conn.execute(SETUP)
        await migrate(conn, migrations)
        deals = dict(await conn.fetch("SELECT status, deals FROM matches"))
        assert deals == {
            "done": "mirrored",
            "running": "mirrored",  # being played as a mirrored pair by the old worker
            "queued": "independent",
            "pending": "independent",
        }
        events = dict(await conn.fetch("SELECT name, settings->>'deals' FROM tournaments"))
        assert events == {"done": "mirrored", "open": "independent"}
        fresh = await conn.fetchval(
            "INSERT INTO matches (mode, seed) VALUES ('1v1', 5) RETURNING deals"
        )
        assert fresh == "independent"
        with pytest.raises(asyncpg.CheckViolationError):
            await conn.execute("UPDATE matches SET deals = 'duplicate'")
    finally:
        await conn.close()


def test_the_trusted_worker_reads_a_result_sent_by_the_previous_version() -> None:
    """A match running during the upgrade is reported by the old worker in format 1."""
    from arena.client.connection import InProcessBot, random_decider
    from arena.match.replay import EntrantRecord
    from arena.match.runner import MatchSettings, run_match
    from services.worker.results.store import BadResult, check_replay

    entrants = [
        (EntrantRecord(n, "builtin:random"), InProcessBot(n, random_decider(k)))
        for k, n in enumerate("ab")
    ]
    settings = MatchSettings(games_per_match=2, deals="mirrored")
    replay = asyncio.run(run_match("77", 5, settings, entrants))
    old = msgspec.to_builtins(replay)
    old.update(format="truco-arena-replay/1", duplicate=True)
    del old["deals"]
    checked = check_replay(77, msgspec.json.encode(old))
    assert checked.deals == "mirrored" and checked.games[0].seed == checked.games[1].seed
    old["duplicate"] = False  # claims fresh deals, but the games share a seed
    with pytest.raises(BadResult, match="does not re-simulate"):
        check_replay(77, msgspec.json.encode(old))
