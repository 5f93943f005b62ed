"""schemathesis over every operation of the committed OpenAPI document, against the ASGI app
in process with a valid API key: no server error, and every answer (status, content type,
headers, body) as the document says.

The app owns its pool (opened by its lifespan in schemathesis's own event loop thread). Bot
registration may only touch loopback: other addresses fail to resolve or connect at once, which
the API answers with its documented 422. Matches are never run (the sender does nothing).
Bounded: a few examples per operation, well under a minute.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from litestar import Litestar

from arena.client.bot_client import BotClient, ClientConfig
from arena.client.egress import EgressPolicy
from services.api.auth import new_api_key
from services.api.routes import health
from services.api.spec import full_openapi
from services.db.pool import connect
from tests.loopback import LoopbackBackend
from tests.schemathesis_app import CHECKS, STREAMS, fuzzed_app, seed_organiser


async def _no_dns(host: str, port: int) -> list[str]:
    raise OSError(f"tests resolve no names ({host})")


def _factory(url: str, secret: str, policy: EgressPolicy) -> BotClient:
    return BotClient(
        url,
        secret,
        config=ClientConfig(timeout_ms=500, policy=policy),
        resolver=_no_dns,
        network_backend=LoopbackBackend(),
    )


async def _seed(database_url: str) -> str:
    """An account (its key is returned) with a tournament, so some ids exist."""
    key = new_api_key()
    conn = await connect(database_url)
    try:
        await seed_organiser(conn, f"fuzz-{secrets.token_hex(4)}", "fuzz cup", key)
    finally:
        await conn.close()
    return key


@pytest.fixture(scope="module")
def api_key(api_database_url: str) -> str:
    return asyncio.run(_seed(api_database_url))


schema = schemathesis.openapi.from_dict(full_openapi()).exclude(operation_id=STREAMS)


async def _answers(svc: object) -> None:
    return None


@pytest.fixture(scope="module")
def live_app(api_database_url: str) -> Iterator[Litestar]:
    """The app on this run's database; it owns its pool (opened by its lifespan). No Celery
    worker runs here, so /health's worker check is a stand-in that answers (a 503 from the
    real one would count as a server error; tests/services/worker/matches/test_live.py checks the real one)."""
    patch = pytest.MonkeyPatch()
    patch.setitem(health.CHECKS, "workers", _answers)
    try:
        with fuzzed_app(api_database_url, bot_client_factory=_factory) as app:
            yield app
    finally:
        patch.undo()


@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_every_operation_answers_as_documented(
    case: schemathesis.Case, api_key: str, live_app: Litestar
) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Bearer {api_key}"}, checks=CHECKS, app=live_app
    )
