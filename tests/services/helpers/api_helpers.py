"""Fixtures and helpers for the API tests (fixtures registered for every folder in
``tests/conftest.py``; ``Api``, ``app_client``, ``settings`` and the like are imported).

The app runs against the run's real, migrated database. Bot handshakes reach REAL bot servers
on 127.0.0.1 only: the client factory injects a resolver and a network backend that record
every use and refuse (fail the test) anything but loopback, so no packet goes elsewhere.

``api`` builds an app per test; a module whose tests need no fresh app shares one with
:func:`module_api`.
"""

from __future__ import annotations

import atexit
import contextlib
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

import asyncpg
import httpcore
import httpx
import pytest
from litestar import Litestar

from arena.client.bot_client import BotClient, ClientConfig
from arena.client.egress import EgressPolicy
from arena.sdk import BotServer, strategy_decider
from services.api.guard.ratelimit import MemoryCounter
from services.base.config import (
    DatabaseSettings,
    ExportSettings,
    RateLimits,
    RedisSettings,
    Secret,
    SecretSettings,
    Settings,
)
from services.db.pool import create_pool
from services.launch.app import create_app
from tests.loopback import LoopbackBackend
from tests.servers import RunDatabases

# the only names the tests resolve (no real DNS); a name mixing in a private address must be
# refused as a whole
FAKE_DNS = {"localhost": ["127.0.0.1"], "rebind.example": ["127.0.0.1", "10.0.0.5"]}


@dataclass
class NetworkGuard:
    """Records every resolve and connect the handshake makes; only loopback is let through."""

    resolved: list[str] = field(default_factory=list)
    connected: list[tuple[str, int]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def forget(self) -> None:
        """Empty what it saw (for a shared app's next test), in place: the loopback backend
        appends to these very lists."""
        for seen in (self.resolved, self.connected, self.refused):
            seen.clear()

    def assert_loopback_only(self) -> None:
        """Fail the test if anything tried to reach a non-loopback address."""
        assert self.refused == [], f"non-loopback network use: {self.refused}"

    async def resolve(self, host: str, port: int) -> list[str]:
        self.resolved.append(host)
        if host in FAKE_DNS:
            return FAKE_DNS[host]
        self.refused.append(f"resolve {host}")
        raise AssertionError(f"the test tried to resolve {host!r}")

    def backend(self) -> httpcore.AsyncNetworkBackend:
        return _LoopbackOnly(self)

    def factory(self, url: str, secret: str, policy: EgressPolicy) -> BotClient:
        return BotClient(
            url,
            secret,
            config=ClientConfig(timeout_ms=HANDSHAKE_GUARD_MS, policy=policy),
            resolver=self.resolve,
            network_backend=self.backend(),
        )


class _LoopbackOnly(LoopbackBackend):
    def __init__(self, guard: NetworkGuard) -> None:
        super().__init__()
        self.calls = guard.connected
        self._guard = guard

    def refuse(self, what: str) -> NoReturn:
        self._guard.refused.append(what)
        raise AssertionError(f"the test tried {what}")


@dataclass
class Api:
    client: httpx.AsyncClient
    pool: asyncpg.Pool
    guard: NetworkGuard

    async def account(self, prefix: str = "acct") -> tuple[int, dict[str, str]]:
        """A new account: (id, auth headers)."""
        response = await self.client.post("/v1/accounts", json={"name": unique(prefix)})
        assert response.status_code == 201, response.text
        body = response.json()
        return body["id"], {"Authorization": f"Bearer {body['api_key']}"}

    async def bot(
        self, headers: dict[str, str], url: str, prefix: str = "bot"
    ) -> dict[str, object]:
        response = await self.client.post(
            "/v1/bots", json={"name": unique(prefix), "url": url}, headers=headers
        )
        assert response.status_code == 201, response.text
        body: dict[str, object] = response.json()
        return body


def client_for(app: Litestar) -> httpx.AsyncClient:
    """An HTTP client calling ``app`` in this event loop (the pool's loop)."""
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


HANDSHAKE_GUARD_MS = 60_000.0
"""The registering handshake's timeout in tests: a hang guard, not the product's bound
(``services.api.routes.bots.HANDSHAKE_TIMEOUT_MS``). No test waits for a handshake to time
out (a refused port fails at once), and at load 20 a bot on 127.0.0.1 missed 3 s: what the
tests check is what the handshake finds, never how soon."""


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


TEST_RATE_LIMITS = RateLimits(accounts_per_hour=1_000_000)
EXPORTS_DIR = tempfile.mkdtemp(prefix="truco-test-exports-")
"""Finished events' exports made by the tests' APIs (not the checkout's data folder)."""
atexit.register(shutil.rmtree, EXPORTS_DIR, True)


def settings(database_url: str, **fields: Any) -> Settings:
    """The API's settings in the tests (``fields`` replace whole groups of the defaults).

    Account creation per address in an hour is lifted (the tests make many accounts from one
    address); tests of that budget pass their own ``rate_limits``. Exports go to a temporary
    folder of the run."""
    fields.setdefault("rate_limits", TEST_RATE_LIMITS)
    # /play sessions live in Redis (the local one, no workers: the app plays them itself),
    # under a prefix of this app's own, as the ids of the tests' databases overlap
    fields.setdefault("redis", RedisSettings(prefix=f"test-api:{secrets.token_hex(6)}:"))
    fields.setdefault("exports", ExportSettings(cache_dir=EXPORTS_DIR))
    return Settings(
        env="local",
        database=DatabaseSettings(url=database_url),
        secrets=SecretSettings(key=Secret("s" * 48)),
        **fields,
    )


class FrozenCounter(MemoryCounter):
    """Always 30 s into the same window, so a test never straddles two minutes."""

    async def hit(self, key: str, limit: int, now: float, window_s: int = 60) -> float | None:
        return await super().hit(key, limit, 30.0, window_s)

    async def peek(self, key: str, limit: int, now: float, window_s: int = 60) -> float | None:
        return await super().peek(key, limit, 30.0, window_s)


@contextlib.asynccontextmanager
async def app_client(
    database_url: str,
    guard: NetworkGuard,
    *,
    pool_size: int = 4,
    settings_fields: dict[str, Any] | None = None,
    **options: Any,
) -> AsyncIterator[tuple[asyncpg.Pool, httpx.AsyncClient]]:
    """A pool on ``database_url`` and a client of the app over it (bot handshakes through
    ``guard``; ``settings_fields`` override the settings, ``options`` go to ``create_app``);
    the pool is closed on leaving."""
    pool = await create_pool(database_url, min_size=1, max_size=pool_size)
    try:
        app = create_app(
            settings(database_url, **(settings_fields or {})),
            pool=pool,
            bot_client_factory=guard.factory,
            **options,
        )
        async with client_for(app) as client:
            yield pool, client
    finally:
        await pool.close()


@pytest.fixture(scope="module")
def api_database_url(request: pytest.FixtureRequest, run_databases: RunDatabases) -> str:
    """A migrated database of the test module's own (the run's ``database_url`` stays empty),
    so what one module's tests create never shows in another's lists."""
    return run_databases.url(f"api:{request.path}")


@pytest.fixture
def guard() -> NetworkGuard:
    return NetworkGuard()


@pytest.fixture
async def api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[Api]:
    async with app_client(api_database_url, guard) as (pool, client):
        yield Api(client, pool, guard)
    guard.assert_loopback_only()


NO_RATE_LIMITS = RateLimits(
    per_key_per_minute=1_000_000,
    per_address_per_minute=1_000_000,
    accounts_per_minute=1_000_000,
    accounts_per_hour=1_000_000,
    auth_failures_per_minute=1_000_000,
    health_per_minute=1_000_000,
    pages_per_minute=1_000_000,
    polls_per_minute=1_000_000,
)
"""A shared app's budgets (``module_api``): all the module's tests make accounts and requests
from one address and one app's counters (a budget is tested on an app of its own)."""


def module_api(**options: Any) -> tuple[Any, Any, Any]:
    """Fixtures for a test module whose tests share ONE app (building the app, ~100 ms of CPU,
    is most of a short API test's cost). A module opts in with

        anyio_backend, shared_api, api = module_api()

    which gives it a module-wide ``anyio_backend`` (the shared app lives in one event loop), the
    module's app (``shared_api``, made by :func:`app_client` with ``options``; budgets lifted
    unless ``rate_limits`` is given) and an ``api`` for each test: the shared app, whose network
    guard starts each test empty and is checked after it, as the per-test ``api`` fixture's.

    Only for tests that need no fresh app: a test that asserts a budget, counts what the app
    keeps in memory (counters, caches, metrics) or changes the settings keeps its own app."""
    options.setdefault("rate_limits", NO_RATE_LIMITS)

    @pytest.fixture(scope="module", name="anyio_backend")
    def module_backend() -> str:
        return "asyncio"

    @pytest.fixture(scope="module", name="shared_api")
    async def shared(api_database_url: str) -> AsyncIterator[Api]:
        guard = NetworkGuard()
        async with app_client(api_database_url, guard, **options) as (pool, client):
            yield Api(client, pool, guard)

    @pytest.fixture(name="api")
    async def each(shared_api: Api) -> AsyncIterator[Api]:
        guard = shared_api.guard
        guard.forget()
        yield shared_api
        guard.assert_loopback_only()

    return module_backend, shared, each


@pytest.fixture
def bot_server() -> Iterator[BotServer]:
    """A real bot on 127.0.0.1 (an ephemeral port)."""
    server = BotServer(strategy_decider("random", seed=1), name="testbot", secret=None, port=0)
    server.start()
    try:
        yield server
    finally:
        server.stop()
