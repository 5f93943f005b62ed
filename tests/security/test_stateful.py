# ruff: noqa: F811 - pytest fixtures imported from helper modules are parameters here
"""schemathesis's stateful testing over the whole REST API, following the document's OpenAPI
links: createAccount's ``api_key`` authorises createBot/createTournament/createChallenge, a new
bot's ``id`` feeds getBot/updateBot/deleteBot/listBotMatches/enterTournament/createChallenge, a
new tournament's ``id`` feeds getTournament/listTournamentEntries/enterTournament/start, and so
on (``services/api/spec.py`` ``LINKS``).

In process against the ASGI app on a real, migrated database. Every bot URL schemathesis
generates is rewritten to a real SDK bot server on 127.0.0.1, and the handshake client can
reach nothing but loopback. Checks: no 5xx; status, content type, headers and body as
documented. Bounded (a few dozen scenarios of a few steps) to stay well under 90 s.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from litestar import Litestar
from requests.structures import CaseInsensitiveDict
from schemathesis import Case
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.transport import Response
from schemathesis.generation.stateful.state_machine import APIStateMachine
from schemathesis.python import asgi

from arena.sdk import BotServer, strategy_decider
from services.api.app import create_app
from services.api.auth import hash_api_key, new_api_key
from services.api.ratelimit import RateLimits
from services.api.spec import LINKS, full_openapi
from services.db.pool import connect
from tests.services.test_api_helpers import (
    NetworkGuard,
    api_database_url,  # noqa: F401
)
from tests.services.test_api_helpers import settings as app_settings

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
BOT_URL_OPERATIONS = {"createBot", "updateBot"}
BUDGET_S = 90.0


def without_nul(value: Any) -> Any:
    """``value`` with NUL characters removed from every string. A NUL in a name is a clean 422
    (``test_hostile_input.py`` checks it); stripping it keeps the generated scenarios on the
    paths that create resources, so the links are exercised."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [without_nul(v) for v in value]
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    return value


async def _seed(database_url: str) -> str:
    """An account (its key is returned) with a tournament, so some ids exist from the start."""
    key = new_api_key()
    conn = await connect(database_url)
    try:
        account = await conn.fetchval(
            "INSERT INTO accounts (name, api_key_hash) VALUES ($1, $2) RETURNING id",
            f"stateful-{secrets.token_hex(4)}",
            hash_api_key(key),
        )
        await conn.execute(
            "INSERT INTO tournaments (organiser_id, name, format, mode) "
            "VALUES ($1, 'stateful cup', 'swiss', '1v1')",
            account,
        )
    finally:
        await conn.close()
    return key


async def _nothing(pool: object, match_ids: list[int]) -> None:
    return None


@pytest.fixture(scope="module")
def stateful_bot() -> Iterator[BotServer]:
    server = BotServer(strategy_decider("random", seed=7), name="fuzzbot", secret=None, port=0)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def stateful_guard() -> NetworkGuard:
    return NetworkGuard()


@pytest.fixture(scope="module")
def stateful_app(api_database_url: str, stateful_guard: NetworkGuard) -> Iterator[Litestar]:
    app = create_app(
        app_settings(api_database_url),
        bot_client_factory=stateful_guard.factory,
        dispatcher=_nothing,
        rate_limits=RateLimits(enabled=False),
    )
    try:
        yield app
    finally:
        asgi.shutdown_lifespans()  # close the app's pool before the database is dropped


def test_the_document_links_what_the_brief_asks() -> None:
    document = full_openapi()
    links = {
        (op["operationId"], link["operationId"])
        for item in document["paths"].values()
        for op in item.values()
        for response in op.get("responses", {}).values()
        for link in response.get("links", {}).values()
    }
    wanted = {
        ("createAccount", "createBot"),
        ("createAccount", "createTournament"),
        ("createBot", "getBot"),
        ("createBot", "updateBot"),
        ("createBot", "deleteBot"),
        ("createTournament", "getTournament"),
        ("createTournament", "enterTournament"),
        ("createTournament", "startTournament"),
        ("createChallenge", "getMatch"),
    }
    assert wanted <= links
    assert len(links) >= sum(len(v) for v in LINKS.values()) - 2  # (same pair, two links)


@pytest.mark.soak  # flaky under a loaded machine (see docs/security.md); runs in `make soak`
def test_stateful_links_no_server_error_no_schema_violation(
    api_database_url: str,
    stateful_app: Litestar,
    stateful_bot: BotServer,
    stateful_guard: NetworkGuard,
) -> None:
    seeded_key = asyncio.run(_seed(api_database_url))
    # /health answers 503 while no worker runs (as documented): it is not the API under test
    schema = schemathesis.openapi.from_dict(full_openapi()).exclude(operation_id="getHealth")
    schema.app = stateful_app
    base: type[APIStateMachine] = schema.as_state_machine()
    seen: dict[tuple[str, int], int] = {}
    linked: set[str] = set()
    unique_names = [0]

    class Machine(base):  # type: ignore[misc, valid-type]
        def setup(self) -> None:
            # per scenario, so a replayed scenario calls with the same keys as the first time
            self.keys = [seeded_key]

        def before_call(self, case: Case[Any]) -> None:
            headers: CaseInsensitiveDict[Any] = CaseInsensitiveDict(dict(case.headers or {}))
            auth = headers.get("Authorization")
            op = case.operation.definition.raw["operationId"]
            if isinstance(auth, str) and auth.startswith("Bearer ta_"):
                linked.add(op)
            else:
                # not from a link: the newest account's key (so another owner's bots give 403s)
                headers["Authorization"] = f"Bearer {self.keys[-1]}"
            case.headers = headers
            body = without_nul(case.body)
            if isinstance(body, dict):
                name = body.get("name")
                if isinstance(name, str):
                    # names are unique across the run's database: without a fresh suffix a
                    # replayed scenario would meet its own earlier names (409) and Hypothesis
                    # would call the run flaky
                    unique_names[0] += 1
                    body["name"] = f"{name[:52]}~{unique_names[0]:x}"
                if op in BOT_URL_OPERATIONS and isinstance(body.get("url"), str):
                    body["url"] = stateful_bot.url  # never anything but the loopback bot
            case.body = body

        def after_call(self, response: Response, case: Case[Any]) -> None:
            op = case.operation.definition.raw["operationId"]
            seen[(op, response.status_code)] = seen.get((op, response.status_code), 0) + 1
            if op == "createAccount" and response.status_code == 201:
                body: Any = response.json()
                self.keys.append(body["api_key"])

        def get_call_kwargs(self, case: Case[Any]) -> dict[str, Any]:
            return {"app": stateful_app}

        def validate_response(
            self,
            response: Response,
            case: Case[Any],
            additional_checks: Any = None,
            **kwargs: Any,
        ) -> None:
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)

    started = time.monotonic()
    Machine.run(
        settings=settings(
            max_examples=200,
            stateful_step_count=8,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
            derandomize=True,
            # no shrinking or explaining: the API's state (the database) is not rolled back
            # between examples, so a replayed scenario could meet different answers and
            # Hypothesis would report the replay as flaky instead of the failure itself
            phases=[Phase.explicit, Phase.generate],
        )
    )
    elapsed = time.monotonic() - started
    assert elapsed < BUDGET_S, f"the stateful run took {elapsed:.0f} s"
    assert stateful_guard.refused == [], stateful_guard.refused
    assert not any(status >= 500 for _, status in seen), seen
    # the links were followed: resources were made and then used
    reached = {op for op, status in seen if status < 300}
    assert {"createAccount", "createBot", "createTournament"} <= reached, seen
    assert reached & {"getBot", "updateBot", "deleteBot"}, seen
    assert reached & {"getTournament", "enterTournament", "startTournament"}, seen
    assert "createBot" in linked or "createTournament" in linked, linked
