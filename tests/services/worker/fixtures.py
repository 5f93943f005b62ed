"""Fixtures for the worker, crash, load and end-to-end tests (registered in tests/conftest.py):
SDK bots on 127.0.0.1, a pool on the run's database, the environment a worker process gets;
and helpers that put accounts, bots and a rated challenge straight into the database."""

from __future__ import annotations

import contextlib
import secrets
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import asyncpg
import msgspec
import pytest

from arena.client.signing import generate_secret
from arena.sdk import BotServer, strategy_decider
from services.base.config import Secret
from services.base.environment import WORKER_NEEDS, load_settings
from services.base.secretbox import SecretBox
from services.db import accounts as db_accounts
from services.db.pool import create_pool
from services.worker import senders
from services.worker.app import WorkerApp
from tests.servers import (
    RedisTarget,
)
from tests.services.helpers import flow_helpers

SECRET_KEY = "k" * 48
BOX = SecretBox(Secret(SECRET_KEY))


@contextlib.contextmanager
def worker_settings(environ: dict[str, str]) -> Iterator[WorkerApp]:
    """This process's worker app with the settings a worker booted in ``environ`` reads."""
    app = senders.current_app()
    app.use_settings(load_settings(environ, needs=WORKER_NEEDS))
    try:
        yield app
    finally:
        app.use_settings(None)


def change_worker_settings(**changes: Any) -> None:
    """Change this process's worker settings for one test (``worker_env`` restores them)."""
    app = senders.current_app()
    app.use_settings(msgspec.structs.replace(app.settings, **changes))


@pytest.fixture
def worker_env(redis_target: RedisTarget) -> Iterator[RedisTarget]:
    """This process as a bot-calling worker: Redis with the run's prefix, no DATABASE_URL."""
    environ = {
        "TRUCO_ENV": "local",
        "REDIS_URL": redis_target.url,
        "TRUCO_REDIS_PREFIX": redis_target.prefix,
    }
    with worker_settings(environ):
        yield redis_target


@pytest.fixture
def bot_server_factory() -> Iterator[object]:
    servers: list[BotServer] = []

    def start(strategy: str = "random", secret: str | None = None, seed: int = 1) -> BotServer:
        server = BotServer(
            strategy_decider(strategy, seed),
            name=f"{strategy}-{secrets.token_hex(2)}",
            secret=secret,
            host="127.0.0.1",
            port=0,
        )
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    created = await create_pool(database_url, min_size=1, max_size=4)
    try:
        yield created
    finally:
        await created.close()


async def make_account(pool: asyncpg.Pool) -> int:
    account = await db_accounts.create_account(
        pool, f"w-{secrets.token_hex(4)}", secrets.token_bytes(32)
    )
    return account.id


async def make_bot(pool: asyncpg.Pool, owner: int, url: str, secret: str | None = None) -> int:
    """A bot sealed with the workers' key (``BOX``)."""
    return await flow_helpers.make_bot(
        pool, owner, url, "wbot", secret=secret or generate_secret(), box=BOX
    )


class Sent:
    """Task messages this process would have sent (``send_task`` replaced)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[Any], dict[str, Any]]] = []

    def __call__(self, name: str, args: list[Any], **options: Any) -> object:
        self.calls.append((name, args, options))
        return type("R", (), {"id": f"sent-{len(self.calls)}"})()


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Sent:
    capture = Sent()
    monkeypatch.setattr(senders.current_app(), "send_task", capture)
    return capture


class Challenge(NamedTuple):
    match_id: int
    bots: list[int]  # bot ids: heuristic, random
    keys: list[str]  # their signing secrets


async def rated_challenge(pool: asyncpg.Pool, bot_server_factory: Any) -> Challenge:
    """Two signed SDK bots (heuristic, random) on 127.0.0.1, registered under one account, and
    a rated 1v1 challenge to 15 between them."""
    from services import flow

    owner = await make_account(pool)
    keys = [generate_secret(), generate_secret()]
    servers = [bot_server_factory("heuristic", keys[0]), bot_server_factory("random", keys[1])]
    bots = [await make_bot(pool, owner, s.url, k) for s, k in zip(servers, keys, strict=True)]
    match_id = await flow.create_challenge(
        pool,
        bots[0],
        bots[1],
        mode="1v1",
        rules={"points_to_win": 15},
        games_per_match=2,
        rated=True,
    )
    return Challenge(match_id, bots, keys)


@pytest.fixture
def stack_env(
    database_url: str, redis_target: RedisTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """The environment of a test's worker processes; this process sends tasks with the same
    broker settings and reads Redis with the same key prefix."""
    env = {
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "TRUCO_ENV": "local",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_target.url,
        "TRUCO_REDIS_PREFIX": f"{redis_target.prefix}{secrets.token_hex(3)}:",
        "TRUCO_SECRET_KEY": SECRET_KEY,
        "TRUCO_DATA_DIR": str(tmp_path / "data"),
        # the tests' clients are all 127.0.0.1: the per-address budgets are tested elsewhere
        "TRUCO_ACCOUNT_RATE_LIMIT_PER_HOUR": "1000000",
        "TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE": "1000000",
        "PYTHONUNBUFFERED": "1",
    }
    sender = WorkerApp("truco-test-sender", settings=load_settings(env, needs=WORKER_NEEDS))
    monkeypatch.setattr(senders, "current_app", lambda: sender)
    yield env
    sender.close()
