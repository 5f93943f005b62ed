"""Where the benchmarks find PostgreSQL: ``DATABASE_URL``'s server, else 127.0.0.1 as postgres.

(``bench/flow_round_10k.py`` keeps its own two lines of this: its baseline run executes it with
another checkout first on the path, whose ``bench`` package may not have this module.)
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg

LOCAL_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"


def server_url() -> str:
    """The server to create the benchmark's own databases on (its admin database's URL)."""
    return os.environ.get("DATABASE_URL", "").strip() or LOCAL_SERVER


def with_database(url: str, name: str) -> str:
    """``url`` pointing at the database ``name`` instead."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


class NoServer(Exception):
    """No PostgreSQL answered at :func:`server_url`: the benchmark skips itself."""


@contextlib.asynccontextmanager
async def scratch_database(label: str) -> AsyncIterator[str]:
    """The URL of a new, migrated database of its own, dropped afterwards (:class:`NoServer`
    if none)."""
    from services.db.migrate import migrate_url

    server = server_url()
    name = f"bench_{label}_{secrets.token_hex(4)}"
    try:
        admin = await asyncpg.connect(server, timeout=5)
    except (OSError, asyncpg.PostgresError) as exc:
        raise NoServer(f"no PostgreSQL at {urlsplit(server).hostname}: {exc}") from exc
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            url = with_database(server, name)
            await migrate_url(url)
            yield url
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@contextlib.asynccontextmanager
async def scratch_pool(label: str, *, max_size: int = 2) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a new, migrated database of its own, dropped afterwards (:class:`NoServer` if none)."""
    from services.db.pool import create_pool

    async with scratch_database(label) as url:
        pool = await create_pool(url, min_size=1, max_size=max_size)
        try:
            yield pool
        finally:
            await pool.close()
