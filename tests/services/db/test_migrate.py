"""The migration runner against a real PostgreSQL, and the constraints of the schema."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from services.db.migrate import (
    TABLE,
    ChecksumMismatchError,
    MigrationFailedError,
    MigrationFileError,
    MigrationOrderError,
    UnknownMigrationError,
    applied_migrations,
    load_migrations,
    migrate,
    migrate_url,
)

pytestmark = pytest.mark.anyio

EXPECTED_TABLES = {
    "accounts",
    "bots",
    "tournaments",
    "tournament_entries",
    "rounds",
    "matches",
    "match_entrants",
    "match_results",
    "replays",
    "ratings",
    "rating_history",
    TABLE,
}


async def _tables(url: str) -> set[str]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        )
    finally:
        await conn.close()
    return {row["tablename"] for row in rows}


def _write(folder: Path, name: str, sql: str) -> Path:
    path = folder / name
    path.write_text(sql)
    return path


# -- files ----------------------------------------------------------------------------------


def test_shipped_migrations_load_in_order() -> None:
    migrations = load_migrations()
    assert migrations[0].version == 1
    assert migrations[0].name == "initial"
    versions = [m.version for m in migrations]
    assert versions == sorted(set(versions))
    assert all(len(m.checksum) == 64 for m in migrations)


def test_misnamed_and_duplicate_files_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, "0001_a.sql", "SELECT 1;")
    _write(tmp_path, "1_b.sql", "SELECT 1;")
    with pytest.raises(MigrationFileError, match=r"1_b\.sql"):
        load_migrations(tmp_path)
    (tmp_path / "1_b.sql").unlink()
    _write(tmp_path, "0001_c.sql", "SELECT 1;")
    with pytest.raises(MigrationFileError, match="version 1"):
        load_migrations(tmp_path)


def test_line_endings_do_not_change_the_checksum(tmp_path: Path) -> None:
    (tmp_path / "0001_a.sql").write_bytes(b"SELECT 1;\nSELECT 2;\n")
    unix = load_migrations(tmp_path)[0].checksum
    (tmp_path / "0001_a.sql").write_bytes(b"SELECT 1;\r\nSELECT 2;\r\n")
    assert load_migrations(tmp_path)[0].checksum == unix


# -- runner ---------------------------------------------------------------------------------


async def test_migrations_apply_to_an_empty_database(fresh_database: str) -> None:
    assert await _tables(fresh_database) == set()
    report = await migrate_url(fresh_database)
    assert report.applied == [m.version for m in load_migrations()]
    assert report.already_applied == []
    assert await _tables(fresh_database) >= EXPECTED_TABLES
    conn = await asyncpg.connect(fresh_database)
    try:
        recorded = await applied_migrations(conn)
    finally:
        await conn.close()
    assert [(r.version, r.checksum) for r in recorded] == [
        (m.version, m.checksum) for m in load_migrations()
    ]


async def test_running_again_is_a_no_op(fresh_database: str) -> None:
    first = await migrate_url(fresh_database)
    second = await migrate_url(fresh_database)
    versions = [m.version for m in load_migrations()]
    assert first.applied == versions
    assert second.applied == []
    assert second.already_applied == versions
    conn = await asyncpg.connect(fresh_database)
    try:
        assert await conn.fetchval(f"SELECT count(*) FROM {TABLE}") == len(versions)
    finally:
        await conn.close()


async def test_concurrent_runners_apply_each_migration_once(
    fresh_database: str, tmp_path: Path
) -> None:
    # Slow migrations widen the race window; a counter table shows how often each body ran.
    _write(
        tmp_path,
        "0001_counter.sql",
        "CREATE TABLE runs (version int NOT NULL); INSERT INTO runs VALUES (1); "
        "SELECT pg_sleep(0.3);",
    )
    _write(tmp_path, "0002_more.sql", "INSERT INTO runs VALUES (2); SELECT pg_sleep(0.3);")
    _write(tmp_path, "0003_last.sql", "INSERT INTO runs VALUES (3);")
    migrations = load_migrations(tmp_path)
    conns = [await asyncpg.connect(fresh_database) for _ in range(4)]
    try:
        reports = await asyncio.gather(*(migrate(c, migrations) for c in conns))
        runs = await conns[0].fetch("SELECT version, count(*) AS n FROM runs GROUP BY version")
        # only these runners' locks: other test runs on the same server take the same key
        held = await conns[0].fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND pid = ANY($1::int[])",
            [c.get_server_pid() for c in conns],
        )
    finally:
        for conn in conns:
            await conn.close()
    assert {row["version"]: row["n"] for row in runs} == {1: 1, 2: 1, 3: 1}
    applied = sorted(v for report in reports for v in report.applied)
    assert applied == [1, 2, 3]
    assert sum(1 for report in reports if report.applied) == 1
    assert held == 0  # every runner let go of the lock


async def test_an_edited_applied_migration_is_detected(fresh_database: str, tmp_path: Path) -> None:
    path = _write(tmp_path, "0001_t.sql", "CREATE TABLE t (a int);")
    await migrate_url(fresh_database, load_migrations(tmp_path))
    path.write_text("CREATE TABLE t (a bigint);")
    _write(tmp_path, "0002_u.sql", "CREATE TABLE u (a int);")
    with pytest.raises(ChecksumMismatchError, match="0001_t was edited"):
        await migrate_url(fresh_database, load_migrations(tmp_path))
    assert "u" not in await _tables(fresh_database)  # nothing after the error ran


async def test_unknown_and_out_of_order_versions_are_refused(
    fresh_database: str, tmp_path: Path
) -> None:
    _write(tmp_path, "0001_a.sql", "CREATE TABLE a (x int);")
    _write(tmp_path, "0003_c.sql", "CREATE TABLE c (x int);")
    await migrate_url(fresh_database, load_migrations(tmp_path))
    _write(tmp_path, "0002_b.sql", "CREATE TABLE b (x int);")
    with pytest.raises(MigrationOrderError, match="0002_b"):
        await migrate_url(fresh_database, load_migrations(tmp_path))
    (tmp_path / "0002_b.sql").unlink()
    (tmp_path / "0003_c.sql").unlink()
    with pytest.raises(UnknownMigrationError, match="0003_c"):
        await migrate_url(fresh_database, load_migrations(tmp_path))


async def test_a_failing_migration_is_rolled_back_and_stops_the_run(
    fresh_database: str, tmp_path: Path
) -> None:
    _write(tmp_path, "0001_ok.sql", "CREATE TABLE ok (x int);")
    _write(tmp_path, "0002_bad.sql", "CREATE TABLE half (x int); SELECT * FROM missing_table;")
    _write(tmp_path, "0003_after.sql", "CREATE TABLE after (x int);")
    with pytest.raises(MigrationFailedError, match="0002_bad") as caught:
        await migrate_url(fresh_database, load_migrations(tmp_path))
    assert caught.value.version == 2
    tables = await _tables(fresh_database)
    assert "ok" in tables
    assert "half" not in tables
    assert "after" not in tables
    conn = await asyncpg.connect(fresh_database)
    try:
        assert [r.version for r in await applied_migrations(conn)] == [1]
    finally:
        await conn.close()


# -- schema constraints (one rolled-back transaction per test) -----------------------------


async def _account(db: asyncpg.Connection, name: str = "alice") -> int:
    account_id: int = await db.fetchval(
        "INSERT INTO accounts (name, api_key_hash) VALUES ($1, $2) RETURNING id",
        name,
        bytes(32) if name == "alice" else name.encode().ljust(32, b"\0"),
    )
    return account_id


async def _bot(db: asyncpg.Connection, owner: int, name: str) -> int:
    bot_id: int = await db.fetchval(
        "INSERT INTO bots (owner_id, name, url, signing_secret_enc, signing_key_id) "
        "VALUES ($1, $2, 'http://127.0.0.1:9000', '\\x00'::bytea, 'k1') RETURNING id",
        owner,
        name,
    )
    return bot_id


async def _match(db: asyncpg.Connection, *bots: int) -> int:
    match_id: int = await db.fetchval(
        "INSERT INTO matches (mode, seed) VALUES ('1v1', 42) RETURNING id"
    )
    for slot, bot in enumerate(bots):
        await db.execute(
            "INSERT INTO match_entrants (match_id, slot, bot_id, side) VALUES ($1, $2, $3, $4)",
            match_id,
            slot,
            bot,
            slot % 2,
        )
    return match_id


async def _savepoint_raises(
    db: asyncpg.Connection, error: type[Exception], sql: str, *args: object
) -> str:
    """Run ``sql`` in a savepoint; return the violated constraint's name."""
    with pytest.raises(error) as caught:
        async with db.transaction():
            await db.execute(sql, *args)
    return str(getattr(caught.value, "constraint_name", ""))


async def test_foreign_keys_hold(db: asyncpg.Connection) -> None:
    name = await _savepoint_raises(
        db,
        asyncpg.ForeignKeyViolationError,
        "INSERT INTO bots (owner_id, name, url, signing_secret_enc, signing_key_id) "
        "VALUES (999999, 'ghost', 'http://x', '\\x00'::bytea, 'k1')",
    )
    assert name == "bots_owner_id_fkey"
    owner = await _account(db)
    bot = await _bot(db, owner, "truquero")
    await _savepoint_raises(
        db,
        asyncpg.ForeignKeyViolationError,
        "INSERT INTO match_results (match_id, result) VALUES (999999, '{}'::jsonb)",
    )
    await _savepoint_raises(
        db,
        asyncpg.ForeignKeyViolationError,
        "DELETE FROM accounts WHERE id = $1",
        owner,
    )
    assert await db.fetchval("SELECT count(*) FROM bots WHERE id = $1", bot) == 1


async def test_a_match_result_is_stored_once(db: asyncpg.Connection) -> None:
    owner = await _account(db)
    match = await _match(db, await _bot(db, owner, "uno"), await _bot(db, owner, "dos"))
    insert = (
        "INSERT INTO match_results (match_id, winner_side, result) "
        "VALUES ($1, 0, '{\"games\": []}'::jsonb)"
    )
    await db.execute(insert, match)
    name = await _savepoint_raises(db, asyncpg.UniqueViolationError, insert, match)
    assert name == "match_results_one_per_match"
    # The idempotent form a retried task uses: nothing inserted, no error.
    again = await db.fetchval(
        "INSERT INTO match_results (match_id, result) VALUES ($1, '{}'::jsonb) "
        "ON CONFLICT ON CONSTRAINT match_results_one_per_match DO NOTHING RETURNING id",
        match,
    )
    assert again is None
    assert await db.fetchval("SELECT count(*) FROM match_results WHERE match_id = $1", match) == 1


async def test_bad_statuses_and_values_are_rejected(db: asyncpg.Connection) -> None:
    owner = await _account(db)
    bot = await _bot(db, owner, "cuatro")
    assert (
        await _savepoint_raises(
            db,
            asyncpg.CheckViolationError,
            "UPDATE bots SET status = 'sleeping' WHERE id = $1",
            bot,
        )
        == "bots_status_check"
    )
    assert (
        await _savepoint_raises(
            db,
            asyncpg.CheckViolationError,
            "INSERT INTO matches (mode, seed, status) VALUES ('1v1', 1, 'paused')",
        )
        == "matches_status_check"
    )
    assert (
        await _savepoint_raises(
            db,
            asyncpg.CheckViolationError,
            "INSERT INTO tournaments (organiser_id, name, format, mode) "
            "VALUES ($1, 'cup', 'ladder', '1v1')",
            owner,
        )
        == "tournaments_format_check"
    )
    assert (
        await _savepoint_raises(
            db,
            asyncpg.CheckViolationError,
            "INSERT INTO tournaments (organiser_id, name, format, mode) "
            "VALUES ($1, 'cup', 'swiss', '3v3')",
            owner,
        )
        == "tournaments_mode_check"
    )
    assert (
        await _savepoint_raises(
            db,
            asyncpg.CheckViolationError,
            "INSERT INTO tournaments (organiser_id, name, format, mode, status) "
            "VALUES ($1, 'cup', 'swiss', '1v1', 'paused')",
            owner,
        )
        == "tournaments_status_check"
    )
    assert (
        await _savepoint_raises(
            db,
            asyncpg.CheckViolationError,
            "INSERT INTO matches (mode, seed, status, winner_side) VALUES ('1v1', 1, 'running', 0)",
        )
        == "matches_winner_only_when_over"
    )


async def test_names_and_entries_are_unique(db: asyncpg.Connection) -> None:
    owner = await _account(db)
    assert (
        await _savepoint_raises(
            db,
            asyncpg.UniqueViolationError,
            "INSERT INTO accounts (name, api_key_hash) VALUES ('ALICE', $1)",
            b"\x01" * 32,
        )
        == "accounts_name_unique"
    )
    bot = await _bot(db, owner, "Mano")
    assert (
        await _savepoint_raises(
            db,
            asyncpg.UniqueViolationError,
            "INSERT INTO bots (owner_id, name, url, signing_secret_enc, signing_key_id) "
            "VALUES ($1, 'mano', 'http://x', '\\x00'::bytea, 'k1')",
            owner,
        )
        == "bots_name_unique"
    )
    tournament = await db.fetchval(
        "INSERT INTO tournaments (organiser_id, name, format, mode) "
        "VALUES ($1, 'cup', 'swiss', '1v1') RETURNING id",
        owner,
    )
    entry = "INSERT INTO tournament_entries (tournament_id, bot_id) VALUES ($1, $2)"
    await db.execute(entry, tournament, bot)
    assert (
        await _savepoint_raises(db, asyncpg.UniqueViolationError, entry, tournament, bot)
        == "tournament_entries_pkey"
    )


async def test_elo_is_recorded_once_per_bot_and_match(db: asyncpg.Connection) -> None:
    owner = await _account(db)
    a, b = await _bot(db, owner, "a"), await _bot(db, owner, "b")
    match = await _match(db, a, b)
    await db.execute("INSERT INTO ratings (bot_id, mode) VALUES ($1, '1v1'), ($2, '1v1')", a, b)
    history = (
        "INSERT INTO rating_history (bot_id, mode, match_id, rating_before, rating_after) "
        "VALUES ($1, '1v1', $2, 1500, 1516)"
    )
    await db.execute(history, a, match)
    assert (
        await _savepoint_raises(db, asyncpg.UniqueViolationError, history, a, match)
        == "rating_history_once_per_match"
    )
    leaderboard = await db.fetch(
        "EXPLAIN SELECT bot_id FROM ratings WHERE mode = '1v1' ORDER BY rating DESC LIMIT 20"
    )
    assert leaderboard  # the statement plans; the index exists:
    assert await db.fetchval("SELECT to_regclass('ratings_leaderboard') IS NOT NULL")


async def test_a_replay_round_trips_compressed(db: asyncpg.Connection) -> None:
    import zlib

    owner = await _account(db)
    match = await _match(db, await _bot(db, owner, "r1"), await _bot(db, owner, "r2"))
    document = b'{"seed": 42, "games": []}' * 200
    packed = zlib.compress(document)
    await db.execute(
        "INSERT INTO replays (match_id, data, size_bytes) VALUES ($1, $2, $3)",
        match,
        packed,
        len(document),
    )
    row = await db.fetchrow(
        "SELECT data, size_bytes, stored_size FROM replays WHERE match_id = $1", match
    )
    assert row is not None
    assert zlib.decompress(row["data"]) == document
    assert row["stored_size"] == len(packed) < row["size_bytes"]
