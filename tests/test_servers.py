"""The test servers themselves: a fresh migrated database per test folder, a private Redis
prefix."""

from __future__ import annotations

import asyncpg
import pytest
import redis

from services.db.migrate import load_migrations
from tests.servers import TEST_DB_PREFIX, RedisTarget, require_loopback

pytestmark = pytest.mark.anyio


async def test_the_run_database_is_fresh_and_migrated(database_url: str) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        name = await conn.fetchval("SELECT current_database()")
        versions = await conn.fetch("SELECT version FROM schema_migrations")
        accounts = await conn.fetchval("SELECT count(*) FROM accounts")
    finally:
        await conn.close()
    assert name.startswith(TEST_DB_PREFIX)
    assert [row["version"] for row in versions] == [m.version for m in load_migrations()]
    assert accounts == 0


async def test_rolled_back_connection_sees_its_own_writes(db: asyncpg.Connection) -> None:
    await db.execute("INSERT INTO accounts (name, api_key_hash) VALUES ('temp', $1)", b"\x07" * 32)
    assert await db.fetchval("SELECT count(*) FROM accounts WHERE name = 'temp'") == 1


def test_redis_prefix_is_private_to_the_run(redis_target: RedisTarget) -> None:
    client = redis.Redis.from_url(redis_target.url)
    try:
        key = redis_target.key("probe")
        assert key.startswith("test:")
        client.set(key, "envido", ex=600)
        assert client.get(key) == b"envido"
    finally:
        client.close()


def test_only_loopback_servers_are_accepted() -> None:
    require_loopback("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/x")
    require_loopback("DATABASE_URL", "postgresql://postgres@[::1]:5432/x")
    require_loopback("REDIS_URL", "redis://localhost:6379/0")
    with pytest.raises(pytest.UsageError, match=r"db\.example\.com"):
        require_loopback("DATABASE_URL", "postgresql://u@db.example.com/x")
