# ruff: noqa: F811 - pytest fixtures imported from helper modules are parameters here
"""Abuse findings of issue 11 about what the API accepts and answers: out-of-range instants
(finding 5), names with control, format and confusable characters (finding 9), and answers
carrying a key or a secret being kept out of caches (finding 11)."""

from __future__ import annotations

import pytest

from arena.sdk import BotServer
from tests.security.helpers import assert_problem
from tests.services.test_api_helpers import (  # noqa: F401 - fixtures
    Api,
    api,
    api_database_url,
    bot_server,
    guard,
    unique,
)

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "start_at",
    [
        "0001-01-01T00:00:00+14:00",  # year 0 in UTC
        "9999-12-31T23:59:59-14:00",  # year 10000 in UTC
        "0001-01-01T00:00:00+00:01",
    ],
)
async def test_start_at_out_of_range_is_a_422_naming_the_field(api: Api, start_at: str) -> None:
    _, headers = await api.account("f5")
    body = {"name": unique("f5"), "format": "swiss", "mode": "1v1", "start_at": start_at}
    response = await api.client.post("/v1/tournaments", json=body, headers=headers)
    problem = assert_problem(response, 422)
    assert [e["field"] for e in problem["errors"]] == ["body.start_at"]
    assert "start_at" in problem["detail"]


async def test_start_at_at_the_edges_of_the_range_is_accepted(api: Api) -> None:
    _, headers = await api.account("f5")
    for start_at in ("0001-01-01T00:00:00+00:00", "9999-12-31T23:59:59+00:00"):
        body = {"name": unique("f5"), "format": "swiss", "mode": "1v1", "start_at": start_at}
        response = await api.client.post("/v1/tournaments", json=body, headers=headers)
        assert response.status_code == 201, response.text
        assert response.json()["start_at"].startswith(start_at[:19])


async def test_answers_carrying_a_key_or_a_secret_are_not_stored(
    api: Api, bot_server: BotServer
) -> None:
    account = await api.client.post("/v1/accounts", json={"name": unique("f11")})
    assert account.status_code == 201
    assert "api_key" in account.json()
    assert account.headers["cache-control"] == "no-store"
    headers = {"Authorization": f"Bearer {account.json()['api_key']}"}
    bot = await api.client.post(
        "/v1/bots", json={"name": unique("f11"), "url": bot_server.url}, headers=headers
    )
    assert bot.status_code == 201
    assert "signing_secret" in bot.json()
    assert bot.headers["cache-control"] == "no-store"
    # a public answer without a credential is left to the caches
    profile = await api.client.get(f"/v1/bots/{bot.json()['id']}")
    assert profile.status_code == 200
    assert "cache-control" not in profile.headers
