"""Signing secrets: chosen by the author at registration, rotated with a grace period."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest

from arena.client import signing
from arena.sdk import BotServer
from services import flow
from services.base.config import Secret
from services.base.secretbox import SecretBox
from tests.services.helpers.api_helpers import Api, module_api, unique

pytestmark = pytest.mark.anyio

# one app for the module's tests (each makes its own accounts and bots from one address: budgets
# lifted); the network guard starts each test empty
anyio_backend, shared_api, api = module_api()
BOX = SecretBox(Secret("s" * 48))  # the key of api_helpers.settings
WEAK = [
    ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYqr", "does not start with 'whsec_'"),
    ("whsec_%%%not-base64%%%", "is not base64"),
    ("whsec_" + base64.b64encode(b"k" * 16).decode(), "holds 16 bytes, too few"),
]


async def stored_secrets(api: Api, bot_id: int) -> tuple[str, str | None]:
    row = await api.pool.fetchrow(
        "SELECT signing_secret_enc, previous_secret_enc FROM bots WHERE id = $1", bot_id
    )
    assert row is not None
    previous = row["previous_secret_enc"]
    return (
        BOX.decrypt(bytes(row["signing_secret_enc"]), bot_id),
        None if previous is None else BOX.decrypt(bytes(previous), bot_id),
    )


async def test_a_bot_registers_with_the_secret_its_author_chose(
    api: Api, bot_server: BotServer
) -> None:
    _, headers = await api.account()
    chosen = signing.new_secret()
    response = await api.client.post(
        "/v1/bots",
        json={"name": unique("mine"), "url": bot_server.url, "signing_secret": chosen},
        headers=headers,
    )
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["signing_secret"] == chosen
    assert await stored_secrets(api, body["id"]) == (chosen, None)


async def test_without_a_chosen_secret_the_platform_makes_one(
    api: Api, bot_server: BotServer
) -> None:
    _, headers = await api.account()
    body = await api.bot(headers, bot_server.url)
    secret = str(body["signing_secret"])
    assert signing.check_secret(secret) == secret
    assert (await stored_secrets(api, int(str(body["id"]))))[0] == secret


@pytest.mark.parametrize(("secret", "says"), WEAK)
async def test_a_weak_chosen_secret_is_a_422_saying_what_is_needed(
    api: Api, bot_server: BotServer, secret: str, says: str
) -> None:
    _, headers = await api.account()
    name = unique("weak")
    response = await api.client.post(
        "/v1/bots",
        json={"name": name, "url": bot_server.url, "signing_secret": secret},
        headers=headers,
    )
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["type"].endswith("weak-signing-secret")
    assert says in problem["detail"] and "at least 24 random bytes" in problem["detail"]
    assert problem["errors"] == [{"field": "body.signing_secret", "message": problem["detail"]}]
    assert secret.removeprefix("whsec_") not in response.text  # never echoed
    assert await api.pool.fetchval("SELECT count(*) FROM bots WHERE name = $1", name) == 0
    assert api.guard.connected == []  # refused before any call to the bot


async def test_rotation_answers_the_new_secret_once_and_keeps_the_old_one_for_a_day(
    api: Api, bot_server: BotServer
) -> None:
    _, headers = await api.account()
    bot = await api.bot(headers, bot_server.url)
    bot_id, old = int(str(bot["id"])), str(bot["signing_secret"])

    response = await api.client.post(f"/v1/bots/{bot_id}/secret", json={}, headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    new = body["signing_secret"]
    assert set(body) == {"id", "signing_secret", "previous_secret_valid_until"}
    assert body["id"] == bot_id and new != old and signing.check_secret(new) == new
    assert await stored_secrets(api, bot_id) == (new, old)
    row = await api.pool.fetchrow(
        "SELECT previous_secret_until - secret_rotated_at AS grace FROM bots WHERE id = $1",
        bot_id,
    )
    assert row is not None and row["grace"] == timedelta(hours=24)

    # a chosen secret; the previous one becomes the secret just replaced
    chosen = signing.new_secret()
    again = await api.client.post(
        f"/v1/bots/{bot_id}/secret", json={"signing_secret": chosen}, headers=headers
    )
    assert again.status_code == 200, again.text
    assert again.json()["signing_secret"] == chosen
    assert await stored_secrets(api, bot_id) == (chosen, new)
    # reads never show a secret
    assert "secret" not in (await api.client.get(f"/v1/bots/{bot_id}")).text


async def test_matches_are_signed_with_both_secrets_only_during_the_grace_period(
    api: Api, bot_server: BotServer
) -> None:
    _, mine = await api.account()
    _, theirs = await api.account()
    bot = await api.bot(mine, bot_server.url)
    bot_id, old = int(str(bot["id"])), str(bot["signing_secret"])
    rival = int(str((await api.bot(theirs, bot_server.url))["id"]))
    new = (await api.client.post(f"/v1/bots/{bot_id}/secret", json={}, headers=mine)).json()
    challenge = await api.client.post(
        "/v1/challenges", json={"bot_a": bot_id, "bot_b": rival}, headers=mine
    )
    assert challenge.status_code == 202, challenge.text
    match_id = challenge.json()["match_id"]

    (spec,) = await flow.match_specs(api.pool, [match_id], secret_box=BOX)
    mine_spec, rival_spec = spec.entrants
    assert (mine_spec.secret, mine_spec.previous_secret) == (new["signing_secret"], old)
    assert rival_spec.previous_secret is None
    assert old not in repr(mine_spec) and new["signing_secret"] not in repr(mine_spec)

    # once the grace period is over, only the new secret signs
    await api.pool.execute(
        "UPDATE bots SET previous_secret_until = now() - interval '1 second' WHERE id = $1",
        bot_id,
    )
    (spec,) = await flow.match_specs(api.pool, [match_id], secret_box=BOX)
    assert spec.entrants[0].previous_secret is None


@pytest.mark.parametrize(("secret", "says"), WEAK[:2])
async def test_rotation_to_a_weak_secret_is_a_422_and_changes_nothing(
    api: Api, bot_server: BotServer, secret: str, says: str
) -> None:
    _, headers = await api.account()
    bot = await api.bot(headers, bot_server.url)
    bot_id = int(str(bot["id"]))
    response = await api.client.post(
        f"/v1/bots/{bot_id}/secret", json={"signing_secret": secret}, headers=headers
    )
    assert response.status_code == 422 and says in response.json()["detail"]
    assert await stored_secrets(api, bot_id) == (bot["signing_secret"], None)


async def test_only_the_owner_rotates(api: Api, bot_server: BotServer) -> None:
    _, owner = await api.account()
    _, stranger = await api.account()
    bot = await api.bot(owner, bot_server.url)
    bot_id = int(str(bot["id"]))
    path = f"/v1/bots/{bot_id}/secret"
    assert (await api.client.post(path, json={})).status_code == 401
    forbidden = await api.client.post(path, json={}, headers=stranger)
    assert forbidden.status_code == 403
    missing = await api.client.post("/v1/bots/999999999/secret", json={}, headers=owner)
    assert missing.status_code == 404
    unknown_field = await api.client.post(path, json={"secret": "x"}, headers=owner)
    assert unknown_field.status_code in (400, 422)
    assert await stored_secrets(api, bot_id) == (bot["signing_secret"], None)
    assert (await api.client.delete(f"/v1/bots/{bot_id}", headers=owner)).status_code == 204
    assert (await api.client.post(path, json={}, headers=owner)).status_code == 404
