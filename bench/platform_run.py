"""One run of the real platform for a benchmark: a fresh, migrated PostgreSQL database of the
run's own, a Redis key prefix of its own, a work folder (logs, data) and the environment the
platform's processes start with; all of it removed on the way out.

``with platform_run("round") as run:`` then start processes with ``run.env`` under
``run.work / "logs"``. On the way out the database is dropped and the Redis keys of the prefix
deleted; the work folder too, unless the run set ``run.keep`` (a process logged an error) or
an exception left the block (then its path is printed, with the logs in it). A database left by
a run killed with -9 is dropped by the next run (its name carries the dead run's pid).
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import redis

from bench.database import server_url, with_database
from services.base.config import LOCAL_REDIS_URL
from services.db.migrate import migrate_url
from services.launch.embedded._process import pid_alive

ROOT = Path(__file__).resolve().parents[1]
DB_PREFIX = "truco_bench_"


def platform_env(
    database_url: str, redis_url: str, prefix: str, data_dir: Path, root: Path
) -> dict[str, str]:
    """What the platform's processes (API, workers, beat) of a run start with: its database,
    its Redis prefix, a fresh master key, loopback bots allowed, the budgets out of the way
    (a benchmark measures the platform, not its limits)."""
    return {
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "PYTHONPATH": str(root),
        "TRUCO_ENV": "local",  # bots on loopback are allowed
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "TRUCO_REDIS_PREFIX": prefix,
        "TRUCO_SECRET_KEY": secrets.token_urlsafe(48),
        "TRUCO_DATA_DIR": str(data_dir),
        "TRUCO_RATE_LIMIT_PER_MINUTE": "10000000",
        "TRUCO_HEALTH_RATE_LIMIT_PER_MINUTE": "10000000",
        "TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE": "10000000",
        "TRUCO_ACCOUNT_RATE_LIMIT_PER_HOUR": "10000000",
        "TRUCO_CONNECTIONS_PER_ADDRESS": "100000",  # every client of a bench is 127.0.0.1
        "TRUCO_UNFINISHED_HEADS_PER_ADDRESS": "100000",
        "TRUCO_BOTS_PER_ACCOUNT": "1000000",  # a bench registers all its bots in one account
        "TRUCO_ENTRIES_PER_EVENT": "1000000",
        "PYTHONUNBUFFERED": "1",
    }


@dataclass
class PlatformRun:
    database_url: str
    database: str
    redis_url: str
    prefix: str
    work: Path
    env: dict[str, str]
    keep: bool = False


async def create_database(server: str, name: str) -> str:
    """``name``, migrated; first the databases of runs that died."""
    admin = await asyncpg.connect(server, timeout=5)
    try:
        for (old,) in await admin.fetch(
            "SELECT datname FROM pg_database WHERE datname LIKE $1", DB_PREFIX + "%"
        ):
            found = re.match(rf"{DB_PREFIX}(\d+)_", old)
            if found and not pid_alive(int(found[1])):
                await admin.execute(f'DROP DATABASE IF EXISTS "{old}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = with_database(server, name)
    await migrate_url(url)
    return url


async def drop_database(server: str, name: str) -> None:
    admin = await asyncpg.connect(server, timeout=5)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@contextmanager
def platform_run(
    label: str, root: Path = ROOT, *, server: str = "", redis_url: str = ""
) -> Iterator[PlatformRun]:
    """A run's database, Redis prefix, work folder and environment (the module docstring);
    ``root``: the checkout whose platform the processes run; ``server`` and ``redis_url``:
    PostgreSQL's admin URL and Redis (by default ``bench.database`` and ``REDIS_URL``)."""
    server = server or server_url()
    redis_url = redis_url or os.environ.get("REDIS_URL", LOCAL_REDIS_URL)
    name = f"{DB_PREFIX}{os.getpid()}_{label}_{secrets.token_hex(4)}"
    prefix = f"bench-{label}-{secrets.token_hex(3)}:"
    work = Path(tempfile.mkdtemp(prefix=f"bench-{label}-"))
    database_url = asyncio.run(create_database(server, name))
    env = platform_env(database_url, redis_url, prefix, work / "data", root)
    run = PlatformRun(database_url, name, redis_url, prefix, work, env)
    try:
        yield run
        if not run.keep:
            shutil.rmtree(work, ignore_errors=True)
    except BaseException:
        print(f"{label}: the run's logs are in {work}", file=sys.stderr)
        raise
    finally:
        asyncio.run(drop_database(server, name))
        client = redis.Redis.from_url(redis_url)
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)
        client.close()
