"""Abuse findings of issue 11 about budgets: a request counts against its client address until
its key is validated, and failed authentications are limited per address (finding 2);
``X-Forwarded-For`` is believed only from configured proxies (finding 7)."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.base.config import ConfigError, RateLimits, WebSettings
from services.base.environment import load_settings
from services.launch.child_env import without
from services.launch.embedded._process import choose_port
from services.launch.processes import api_argv
from tests.security.helpers import assert_problem
from tests.services.helpers.api_helpers import FrozenCounter, NetworkGuard, app_client, unique

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]
Limited = Callable[..., AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def limited(api_database_url: str, guard: NetworkGuard) -> Limited:
    """``limited(limits, trusted_proxies=())``: a client of an app with those limits (a frozen
    window, counters of its own)."""

    @asynccontextmanager
    async def make(
        limits: RateLimits, trusted_proxies: tuple[str, ...] = ()
    ) -> AsyncIterator[httpx.AsyncClient]:
        options: dict[str, Any] = {"rate_limits": limits, "rate_counter": FrozenCounter()}
        fields = {"web": WebSettings(trusted_proxies=trusted_proxies)}
        async with app_client(
            api_database_url, guard, pool_size=4, settings_fields=fields, **options
        ) as (_, client):
            yield client

    return make


def _random_bearer() -> dict[str, str]:
    return {"Authorization": f"Bearer x{secrets.token_hex(8)}"}


def _random_key() -> dict[str, str]:
    return {"Authorization": f"Bearer ta_{secrets.token_urlsafe(32)}"}


async def test_random_bearer_strings_share_the_address_budget(limited: Limited) -> None:
    limits = RateLimits(per_key_per_minute=5, auth_failures_per_minute=1000)
    async with limited(limits) as client:
        for _ in range(5):  # the anonymous budget
            assert (await client.get("/v1/tournaments")).status_code == 200
        answers = await asyncio.gather(
            *(client.get("/v1/tournaments", headers=_random_bearer()) for _ in range(30))
        )
    assert [r.status_code for r in answers] == [429] * 30
    assert_problem(answers[0], 429)
    assert answers[0].headers["retry-after"] == "30"


async def test_failed_authentications_are_limited_per_address(limited: Limited) -> None:
    limits = RateLimits(per_key_per_minute=1000, auth_failures_per_minute=5)
    async with limited(limits) as client:
        writes = [
            await client.post(
                "/v1/bots", json={"name": "x", "url": "http://localhost/"}, headers=_random_key()
            )
            for _ in range(12)
        ]
        assert [r.status_code for r in writes] == [401] * 5 + [429] * 7
        problem = assert_problem(writes[-1], 429)
        assert "failed authentications" in problem["detail"]
        assert writes[-1].headers["retry-after"] == "30"
        # so are random strings on public reads, but the address may still read without any
        assert (await client.get("/v1/bots", headers=_random_bearer())).status_code == 429
        assert (await client.get("/v1/bots")).status_code == 200


async def test_a_validated_key_has_its_own_budget(limited: Limited) -> None:
    limits = RateLimits(per_key_per_minute=3, accounts_per_minute=10)
    async with limited(limits) as client:
        created = await client.post("/v1/accounts", json={"name": unique("f2")})
        assert created.status_code == 201
        key = {"Authorization": f"Bearer {created.json()['api_key']}"}
        for _ in range(2):  # the address's budget is spent (3 with the account creation)
            assert (await client.get("/v1/bots")).status_code == 200
        assert (await client.get("/v1/bots")).status_code == 429
        answers = [(await client.get("/v1/bots", headers=key)).status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]


def _xff() -> dict[str, str]:
    fake = f"{secrets.randbelow(223) + 1}.{secrets.randbelow(256)}.0.{secrets.randbelow(256)}"
    return {"X-Forwarded-For": f"{fake}, <script>alert({secrets.randbelow(99)})</script>"}


async def test_forwarded_for_does_not_bypass_the_account_limit(
    limited: Limited, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    limits = RateLimits(accounts_per_minute=3)
    async with limited(limits) as client:
        answers = [
            await client.post("/v1/accounts", json={"name": unique("xff")}, headers=_xff())
            for _ in range(8)
        ]
    assert [r.status_code for r in answers] == [201] * 3 + [429] * 5
    assert "<script>" not in caplog.text


async def test_forwarded_for_is_believed_from_a_configured_proxy_only(limited: Limited) -> None:
    limits = RateLimits(accounts_per_minute=1)
    # the test client's peer is 127.0.0.1: configured as the proxy, each forwarded client
    # has its own budget; the rightmost address that is not a proxy is the client
    async with limited(limits, trusted_proxies=("127.0.0.1/32",)) as client:

        async def create(forwarded: str) -> int:
            headers = {"X-Forwarded-For": forwarded}
            answer = await client.post("/v1/accounts", json={"name": unique("p")}, headers=headers)
            return answer.status_code

        assert await create("203.0.113.9") == 201
        assert await create("203.0.113.9") == 429
        assert await create("198.51.100.1, 203.0.113.10") == 201
        assert await create("spoofed, 203.0.113.10") == 429  # the same client, whatever is left
        # garbage stops the walk: the last good hop (here the proxy itself) is the client
        assert await create("<script>") == 201
        assert await create("<script>, 127.0.0.1") == 429


def test_trusted_proxies_setting() -> None:
    base = {"TRUCO_SECRET_KEY": "k" * 40, "TRUCO_DATA_DIR": "/nonexistent"}
    assert load_settings(base).web.trusted_proxies == ()
    found = load_settings({**base, "TRUCO_TRUSTED_PROXIES": " 10.0.0.7, 10.1.0.0/16 ,::1"})
    assert found.web.trusted_proxies == ("10.0.0.7/32", "10.1.0.0/16", "::1/128")
    with pytest.raises(ConfigError, match="TRUCO_TRUSTED_PROXIES"):
        load_settings({**base, "TRUCO_TRUSTED_PROXIES": "10.0.0.7, proxy.internal"})


def test_the_api_server_believes_no_forwarded_for(api_database_url: str, tmp_path: Path) -> None:
    """The API as ``make run`` starts it (uvicorn, ``api_argv``), with its access log on as in
    the Dockerfile: forged headers from a loopback peer neither buy fresh account budgets
    nor reach the log."""
    port = choose_port(range(8200, 8250))
    argv = [arg for arg in api_argv(port) if arg != "--no-access-log"]
    env = {
        **without(os.environ, "REDIS_URL", "TRUCO_TRUSTED_PROXIES"),
        "DATABASE_URL": api_database_url,
        "TRUCO_SECRET_KEY": "k" * 40,
        "TRUCO_DATA_DIR": str(tmp_path),
        "TRUCO_ACCOUNT_RATE_LIMIT_PER_MINUTE": "3",
        "PYTHONPATH": str(ROOT),
    }
    log_path = tmp_path / "api.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=5.0, trust_env=False) as client:
            deadline = time.monotonic() + 30
            while True:
                try:
                    client.get("/v1/bots")
                    break
                except httpx.TransportError:
                    assert server.poll() is None, log_path.read_text()
                    assert time.monotonic() < deadline, "the API did not start"
                    time.sleep(0.2)
            answers = [
                client.post("/v1/accounts", json={"name": unique("xff")}, headers=_xff())
                for _ in range(8)
            ]
    finally:
        server.terminate()
        server.wait(10)
    text = log_path.read_text()
    assert [r.status_code for r in answers] == [201] * 3 + [429] * 5, text
    assert "POST /v1/accounts" in text  # the access log is on
    assert "<script>" not in text
