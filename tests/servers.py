"""Real PostgreSQL and Redis for the tests, on loopback only (fixtures registered in
``tests/conftest.py`` for every folder).

PostgreSQL: DATABASE_URL's server if set, else 127.0.0.1:5432 if it answers, else the embedded
server (``.data/postgres``). A run CREATES uniquely named databases and DROPS them at the end:
one per test folder (``database_url``), one per API test module (``api_database_url``).
Each pytest process migrates one template database once, on first use, and a migrated
database is a copy of it (``CREATE DATABASE ... TEMPLATE``: a tenth of migrating a new
one). ``fresh_database`` gives a test an empty database of its own (the migrations' own tests
run there). Every database is dropped when the session ends (``_doomed``). Their commits do
not wait for the disk (``synchronous_commit = off``: :data:`NO_COMMIT_FLUSH`).

Redis: REDIS_URL if set, else 127.0.0.1:6379 if it answers, else the embedded one. Each run
gets its own key prefix; its keys are deleted at the end.

``TRUCO_TEST_SERVERS=embedded`` skips the first two choices (what a fresh machine does).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest
import redis

from services.base.data_dir import default_data_dir
from services.db.migrate import migrate_url
from services.launch.embedded import EmbeddedPostgres, EmbeddedRedis
from services.launch.embedded._process import pid_alive
from services.launch.embedded.redis import ping

LOOPBACK_HOSTS = {"127.0.0.1", "::1", "localhost"}
LOCAL_POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"
TEST_DB_PREFIX = "truco_test_"


def _force_embedded() -> bool:
    return os.environ.get("TRUCO_TEST_SERVERS", "").strip().lower() == "embedded"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def require_loopback(name: str, url: str) -> None:
    """Tests talk to this machine only: refuse a URL that points elsewhere."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    socket_dir = "host=/" in parts.query
    if host in LOOPBACK_HOSTS or socket_dir or (not host and parts.scheme == "unix"):
        return
    if not host and parts.scheme.startswith("postgres"):
        return  # no host at all: libpq's default Unix socket
    raise pytest.UsageError(f"{name} must point at 127.0.0.1, ::1 or a local socket, not {host!r}")


def with_database(url: str, database: str) -> str:
    """``url`` with its database (path) replaced."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


async def _answers(url: str) -> bool:
    try:
        conn = await asyncpg.connect(url, timeout=3)
    except (TimeoutError, OSError, asyncpg.PostgresError):
        return False
    await conn.close()
    return True


@dataclass(frozen=True)
class PostgresServer:
    """A server the tests may create databases on, through ``admin_url``."""

    admin_url: str
    origin: str  # "DATABASE_URL", "127.0.0.1:5432" or "embedded"

    def url_for(self, database: str) -> str:
        return with_database(self.admin_url, database)


NO_COMMIT_FLUSH = os.environ.get("TRUCO_TEST_COMMIT_FLUSH", "").strip() != "1"
"""The tests' databases commit without waiting for the write-ahead log to reach the disk
(``synchronous_commit = off`` on each database, so every connection to it, the tests' own and
their API and worker processes', has it): what a transaction sees and when is unchanged, only
a crash of the PostgreSQL server itself could lose the last commits, and no test crashes the
shared server (the restart tests run embedded servers of their own). On this 2-core machine a
commit took 6-8.5 ms with the flush and 1.3-2.2 ms without. ``TRUCO_TEST_COMMIT_FLUSH=1``
keeps the flush."""


def new_database_name() -> str:
    return f"{TEST_DB_PREFIX}{os.getpid()}_{secrets.token_hex(4)}"


async def create_database(server: PostgresServer, name: str, template: str = "") -> str:
    """Database ``name`` (a copy of ``template`` if given), its commits not waiting for the
    disk (:data:`NO_COMMIT_FLUSH`)."""
    conn = await asyncpg.connect(server.admin_url)
    try:
        copy = f' TEMPLATE "{template}"' if template else ""
        await conn.execute(f'CREATE DATABASE "{name}"{copy}')
        if NO_COMMIT_FLUSH:
            await conn.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    finally:
        await conn.close()
    return server.url_for(name)


async def drop_database(server: PostgresServer, name: str) -> None:
    conn = await asyncpg.connect(server.admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def _drop_abandoned(server: PostgresServer) -> None:
    """Drop test databases left by runs that died (their process is gone)."""
    conn = await asyncpg.connect(server.admin_url)
    try:
        names = await conn.fetch(
            "SELECT datname FROM pg_database WHERE datname LIKE $1", TEST_DB_PREFIX + "%"
        )
        for (name,) in names:
            found = re.match(rf"{TEST_DB_PREFIX}(\d+)_", name)
            if found and not pid_alive(int(found[1])):
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    configured = "" if _force_embedded() else os.environ.get("DATABASE_URL", "").strip()
    embedded: EmbeddedPostgres | None = None
    if configured:
        require_loopback("DATABASE_URL", configured)
        server = PostgresServer(configured, "DATABASE_URL")
    elif not _force_embedded() and asyncio.run(_answers(LOCAL_POSTGRES)):
        server = PostgresServer(LOCAL_POSTGRES, "127.0.0.1:5432")
    else:
        embedded = EmbeddedPostgres(default_data_dir() / "postgres")
        embedded.start()
        server = PostgresServer(embedded.server_url("postgres"), "embedded")
    try:
        asyncio.run(_drop_abandoned(server))
        yield server
    finally:
        # the copies first: a template cannot be dropped while it is being copied
        asyncio.run(drop_databases(server, _doomed.pop(server.admin_url, [])))
        template = _templates.pop(server.admin_url, None)
        if template is not None:
            asyncio.run(drop_database(server, template))
        if embedded is not None:
            embedded.stop()  # only stops it if this run started it


# this process's migrated template database on each server (by admin URL), made on first use
# and dropped with the session's server; nothing ever connects to it after its migration (a
# database being copied must have no connection)
_templates: dict[str, str] = {}

# the databases this process made on each server (by admin URL), dropped together when the
# session's server is let go: PostgreSQL 15 checkpoints on every DROP DATABASE (and waits for
# it), which on a machine whose other work dirties the buffers took from 1 s to 54 s a drop;
# drops made together share their checkpoints
_doomed: dict[str, list[str]] = {}


def drop_at_the_end(server: PostgresServer, name: str) -> None:
    """Drop database ``name`` when the session's PostgreSQL is let go."""
    _doomed.setdefault(server.admin_url, []).append(name)


def migrated_template(server: PostgresServer) -> str:
    """The name of this process's template database on ``server``, every migration applied."""
    if server.admin_url not in _templates:
        name = new_database_name()
        url = asyncio.run(create_database(server, name))
        try:
            asyncio.run(migrate_url(url))
        except BaseException:
            asyncio.run(drop_database(server, name))
            raise
        _templates[server.admin_url] = name
    return _templates[server.admin_url]


def new_migrated_database(server: PostgresServer) -> str:
    """A new database with every migration applied (its URL), dropped at the end of the run."""
    name = new_database_name()
    url = asyncio.run(create_database(server, name, template=migrated_template(server)))
    drop_at_the_end(server, name)
    return url


@contextlib.contextmanager
def migrated_database(server: PostgresServer) -> Iterator[str]:
    """A new database with every migration applied (its URL); dropped at the end of the run
    (with the others: see ``_doomed``)."""
    yield new_migrated_database(server)


class RunDatabases:
    """Migrated databases made on first use, one per key, dropped at the end of the run."""

    def __init__(self, server: PostgresServer) -> None:
        self.server = server
        self.urls: dict[str, str] = {}

    def url(self, key: str) -> str:
        if key not in self.urls:
            self.urls[key] = new_migrated_database(self.server)
        return self.urls[key]


async def drop_databases(server: PostgresServer, names: list[str], at_once: int = 16) -> None:
    """Drop ``names``, up to ``at_once`` at a time."""
    gate = asyncio.Semaphore(at_once)

    async def drop(name: str) -> None:
        async with gate:
            await drop_database(server, name)

    await asyncio.gather(*(drop(name) for name in names))


@pytest.fixture(scope="session")
def run_databases(postgres_server: PostgresServer) -> RunDatabases:
    return RunDatabases(postgres_server)


@pytest.fixture(scope="module")
def database_url(request: pytest.FixtureRequest, run_databases: RunDatabases) -> str:
    """A migrated database shared by the tests of one folder (``tests/services/db``,
    ``tests/services/worker``, ...), so one folder's rows never show in another's; dropped at the end
    of the run."""
    return run_databases.url(f"folder:{request.path.parent}")


@pytest.fixture
async def fresh_database(postgres_server: PostgresServer) -> str:
    """An empty database for one test (no migrations applied); dropped at the end of the run."""
    name = new_database_name()
    url = await create_database(postgres_server, name)
    drop_at_the_end(postgres_server, name)
    return url


@pytest.fixture
def empty_database(postgres_server: PostgresServer) -> str:
    """An empty database for a test that runs the platform's own start-up (which migrates);
    dropped at the end of the run."""
    name = new_database_name()
    url = asyncio.run(create_database(postgres_server, name))
    drop_at_the_end(postgres_server, name)
    return url


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection to the run's database inside a transaction that is rolled back."""
    conn = await asyncpg.connect(database_url)
    tx = conn.transaction()
    await tx.start()
    try:
        yield conn
    finally:
        await tx.rollback()
        await conn.close()


@dataclass(frozen=True)
class RedisTarget:
    """A Redis server and the key prefix this run owns there."""

    url: str
    prefix: str
    origin: str

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"


@pytest.fixture(scope="session")
def redis_target() -> Iterator[RedisTarget]:
    configured = "" if _force_embedded() else os.environ.get("REDIS_URL", "").strip()
    embedded: EmbeddedRedis | None = None
    if configured:
        require_loopback("REDIS_URL", configured)
        url, origin = configured, "REDIS_URL"
    elif not _force_embedded() and ping(6379):
        url, origin = LOCAL_REDIS, "127.0.0.1:6379"
    else:
        embedded = EmbeddedRedis(default_data_dir() / "redis")
        url, origin = embedded.start(), "embedded"
    target = RedisTarget(url, f"test:{os.getpid()}:{secrets.token_hex(4)}:", origin)
    try:
        yield target
    finally:
        with contextlib.closing(redis.Redis.from_url(url)) as client:
            doomed = list(client.scan_iter(match=f"{target.prefix}*", count=500))
            if doomed:
                client.delete(*doomed)
        if embedded is not None:
            embedded.stop()
