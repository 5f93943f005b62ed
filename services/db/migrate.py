"""Forward-only, versioned SQL migrations.

Migrations are the files ``services/db/migrations/NNNN_name.sql``. ``migrate()``:

* takes a session-level PostgreSQL advisory lock, so processes that start together (API,
  workers, tests) apply each migration exactly once; the others wait, then find nothing to do;
* records every applied migration in ``schema_migrations`` with a SHA-256 checksum of its
  file, and refuses to go on when an applied file was edited, when the database knows a
  version this code does not, or when a new file sorts before one already applied;
* runs each migration and its bookkeeping row in one transaction: a failing migration
  leaves no trace and stops the run;
* then gives rows without a ``name_key`` theirs (``services/db/name_keys.py``: a key is
  computed in Python, so a SQL file cannot fill it).

There is no "down": to undo, write the next migration.

Command line: ``python -m services.db.migrate [--status] [--database-url URL]``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import re
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import asyncpg
import msgspec

from services.base.config import ConfigError
from services.base.environment import DATABASE_NEEDS, load_settings
from services.db.name_keys import fill_missing_name_keys

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
TABLE = "schema_migrations"
# One fixed 64-bit key for "migrating this database"; derived from a name so it does not
# collide by accident with other advisory locks the application takes.
LOCK_KEY = int.from_bytes(
    hashlib.sha256(b"truco-arena:schema-migrations").digest()[:8], "big", signed=True
)
_FILE_NAME = re.compile(r"^(?P<version>\d{4,})_(?P<name>[a-z0-9][a-z0-9_]*)\.sql$")

_CREATE_TABLE = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    version     integer PRIMARY KEY,
    name        text NOT NULL,
    checksum    text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now(),
    duration_ms integer NOT NULL
)
"""


class MigrationError(Exception):
    """The migrations cannot be applied as they are."""


class MigrationFileError(MigrationError):
    """A file in the migrations folder is misnamed or duplicates a version."""


class ChecksumMismatchError(MigrationError):
    """A migration that was already applied has been edited since."""


class UnknownMigrationError(MigrationError):
    """The database has a migration this code does not know (the code is older?)."""


class MigrationOrderError(MigrationError):
    """A new migration sorts before one already applied."""


class MigrationLockTimeoutError(MigrationError):
    """Another process held the migration lock for too long."""


class MigrationFailedError(MigrationError):
    """A migration's SQL failed; it was rolled back."""

    def __init__(self, version: int, name: str, cause: BaseException) -> None:
        super().__init__(f"migration {version:04d}_{name} failed and was rolled back: {cause}")
        self.version = version
        self.name = name


class Migration(msgspec.Struct, frozen=True):
    version: int
    name: str
    sql: str
    checksum: str

    @property
    def label(self) -> str:
        return f"{self.version:04d}_{self.name}"


class AppliedMigration(msgspec.Struct, frozen=True):
    version: int
    name: str
    checksum: str
    applied_at: datetime
    duration_ms: int


class MigrationReport(msgspec.Struct, frozen=True):
    """What one ``migrate()`` call did."""

    applied: list[int]
    already_applied: list[int]


def checksum(sql: str) -> str:
    """SHA-256 of the file's text, line endings normalised (a CRLF checkout is no edit)."""
    return hashlib.sha256(sql.replace("\r\n", "\n").encode()).hexdigest()


def load_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Read ``NNNN_name.sql`` files, in version order."""
    found: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise MigrationFileError(
                f"{path.name}: migration files are named NNNN_lower_snake_name.sql"
            )
        version = int(match["version"])
        if version < 1:
            raise MigrationFileError(f"{path.name}: versions start at 0001")
        if version in found:
            raise MigrationFileError(
                f"{path.name}: version {version} is also {found[version].label}.sql"
            )
        sql = path.read_text(encoding="utf-8")
        found[version] = Migration(version, match["name"], sql, checksum(sql))
    return [found[v] for v in sorted(found)]


async def applied_migrations(conn: asyncpg.Connection) -> list[AppliedMigration]:
    """The migrations recorded in this database (none if the table is missing)."""
    exists = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", TABLE)
    if not exists:
        return []
    rows = await conn.fetch(
        f"SELECT version, name, checksum, applied_at, duration_ms FROM {TABLE} ORDER BY version"
    )
    return [AppliedMigration(**dict(row)) for row in rows]


def pending(
    migrations: Sequence[Migration], applied: Sequence[AppliedMigration]
) -> list[Migration]:
    """The migrations still to apply; raise if the recorded history disagrees with the files."""
    by_version = {m.version: m for m in migrations}
    for row in applied:
        known = by_version.get(row.version)
        if known is None:
            raise UnknownMigrationError(
                f"the database has migration {row.version:04d}_{row.name}, which this code "
                "does not have; is the code older than the database?"
            )
        if known.checksum != row.checksum:
            raise ChecksumMismatchError(
                f"migration {known.label} was edited after it was applied "
                f"(recorded {row.checksum[:12]}, file {known.checksum[:12]}); "
                "applied migrations are frozen: write a new migration instead"
            )
    done = {row.version for row in applied}
    latest = max(done, default=0)
    todo = [m for m in migrations if m.version not in done]
    early = [m.label for m in todo if m.version < latest]
    if early:
        raise MigrationOrderError(
            f"{', '.join(early)} sort(s) before {latest:04d}, which is already applied; "
            "give new migrations a higher number"
        )
    return todo


async def _acquire_lock(conn: asyncpg.Connection, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", LOCK_KEY):
        if time.monotonic() > deadline:
            raise MigrationLockTimeoutError(
                f"another process held the migration lock for over {timeout:.0f}s"
            )
        await asyncio.sleep(0.05)


async def migrate(
    conn: asyncpg.Connection,
    migrations: Sequence[Migration] | None = None,
    *,
    lock_timeout: float = 120.0,
) -> MigrationReport:
    """Apply every pending migration to the database ``conn`` is connected to."""
    todo_source = list(migrations) if migrations is not None else load_migrations()
    if conn.is_in_transaction():
        raise MigrationError("migrate() needs a connection outside any transaction")
    await _acquire_lock(conn, lock_timeout)
    try:
        await conn.execute(_CREATE_TABLE)
        applied = await applied_migrations(conn)
        todo = pending(todo_source, applied)
        done_now: list[int] = []
        for migration in todo:
            began = time.monotonic()
            try:
                async with conn.transaction():
                    await conn.execute(migration.sql)
                    await conn.execute(
                        f"INSERT INTO {TABLE} (version, name, checksum, duration_ms) "
                        "VALUES ($1, $2, $3, $4)",
                        migration.version,
                        migration.name,
                        migration.checksum,
                        int((time.monotonic() - began) * 1000),
                    )
            except asyncpg.PostgresError as exc:
                raise MigrationFailedError(migration.version, migration.name, exc) from exc
            done_now.append(migration.version)
        await fill_missing_name_keys(conn)
        return MigrationReport(applied=done_now, already_applied=[row.version for row in applied])
    finally:
        await _release_lock(conn)


async def _release_lock(conn: asyncpg.Connection) -> None:
    if conn.is_closed():
        return  # the server released the lock with the session
    try:
        await conn.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
        # Cannot tell whether the lock is still held: drop the session, which releases it.
        conn.terminate()


async def migrate_url(
    url: str,
    migrations: Sequence[Migration] | None = None,
    *,
    lock_timeout: float = 120.0,
) -> MigrationReport:
    """Connect to ``url``, apply pending migrations, disconnect."""
    conn = await asyncpg.connect(url)
    try:
        return await migrate(conn, migrations, lock_timeout=lock_timeout)
    finally:
        await conn.close()


async def _status(url: str) -> list[str]:
    conn = await asyncpg.connect(url)
    try:
        applied = {row.version: row for row in await applied_migrations(conn)}
    finally:
        await conn.close()
    lines = []
    for m in load_migrations():
        row = applied.get(m.version)
        if row is None:
            lines.append(f"pending  {m.label}")
        elif row.checksum != m.checksum:
            lines.append(f"EDITED   {m.label} (applied {row.applied_at:%Y-%m-%d %H:%M})")
        else:
            lines.append(f"applied  {m.label} ({row.applied_at:%Y-%m-%d %H:%M})")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m services.db.migrate", description="Apply pending SQL migrations."
    )
    parser.add_argument("--database-url", help="default: DATABASE_URL")
    parser.add_argument("--status", action="store_true", help="list migrations; change nothing")
    args = parser.parse_args(argv)
    if not args.database_url:
        try:
            args.database_url = load_settings(needs=DATABASE_NEEDS).database.url
        except ConfigError as exc:
            parser.error(str(exc))
    if not args.database_url:
        parser.error("set DATABASE_URL or pass --database-url")
    try:
        if args.status:
            print("\n".join(asyncio.run(_status(args.database_url))))
        else:
            report = asyncio.run(migrate_url(args.database_url))
            names = ", ".join(f"{v:04d}" for v in report.applied) or "nothing"
            print(f"applied {names}; {len(report.already_applied)} already applied")
    except MigrationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
