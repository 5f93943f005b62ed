"""API keys as objects: rotate (the old key is refused at once), add, list, revoke; an
account holds at most TRUCO_API_KEYS_PER_ACCOUNT live keys and never fewer than one."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from services.base.config import KeySettings
from tests.security.helpers import assert_problem
from tests.services.helpers.api_helpers import Api, NetworkGuard, app_client

pytestmark = pytest.mark.anyio


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_a_rotated_key_is_refused_401_at_once(api: Api) -> None:
    account_id, old = await api.account("rotator")
    rotated = await api.client.post("/v1/accounts/me/keys/rotate", headers=old)
    assert rotated.status_code == 201, rotated.text
    assert "no-store" in rotated.headers["cache-control"]  # it carries a key
    body = rotated.json()
    new = _bearer(body["api_key"])
    assert body["api_key"] != old["Authorization"].removeprefix("Bearer ")
    assert body["hint"] == body["api_key"][-4:]

    refused = await api.client.get("/v1/accounts/me", headers=old)
    problem = assert_problem(refused, 401)
    assert problem["type"] == "/problems/unauthorized"
    assert refused.headers["www-authenticate"].startswith("Bearer")
    # nor can the old key write, or rotate again
    assert (await api.client.post("/v1/accounts/me/keys/rotate", headers=old)).status_code == 401
    assert (await api.client.post("/v1/accounts/me/keys", headers=old)).status_code == 401

    me = await api.client.get("/v1/accounts/me", headers=new)
    assert me.status_code == 200 and me.json()["id"] == account_id
    listed = (await api.client.get("/v1/accounts/me/keys", headers=new)).json()
    assert [(k["id"], k["current"]) for k in listed] == [(body["id"], True)]
    # stored as a hash only, the old one marked revoked
    rows = await api.pool.fetch(
        "SELECT key_hash, revoked_at FROM api_keys WHERE account_id = $1 ORDER BY id", account_id
    )
    assert [r["revoked_at"] is not None for r in rows] == [True, False]
    assert bytes(rows[1]["key_hash"]) == hashlib.sha256(body["api_key"].encode()).digest()


async def test_two_rotations_of_one_key_at_once_give_one_new_key(api: Api) -> None:
    account_id, old = await api.account("racer")
    answers = await asyncio.gather(
        *(api.client.post("/v1/accounts/me/keys/rotate", headers=old) for _ in range(4))
    )
    statuses = sorted(answer.status_code for answer in answers)
    # the old key is revoked once: one rotation wins, the others find it revoked (401)
    assert statuses == [201, 401, 401, 401], [a.text for a in answers]
    live = await api.pool.fetchval(
        "SELECT count(*) FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL", account_id
    )
    assert live == 1
    assert (await api.client.get("/v1/accounts/me", headers=old)).status_code == 401


async def test_keys_are_added_listed_and_revoked(api: Api) -> None:
    _, first = await api.account("keyring")
    added = await api.client.post("/v1/accounts/me/keys", headers=first)
    assert added.status_code == 201, added.text
    assert "no-store" in added.headers["cache-control"]
    second = _bearer(added.json()["api_key"])
    listed = (await api.client.get("/v1/accounts/me/keys", headers=second)).json()
    assert [k["current"] for k in listed] == [False, True]
    assert all(set(k) == {"id", "hint", "created_at", "current"} for k in listed)
    first_id = listed[0]["id"]

    # both work; revoking the first with the second stops the first at once
    assert (await api.client.get("/v1/accounts/me", headers=first)).status_code == 200
    revoked = await api.client.delete(f"/v1/accounts/me/keys/{first_id}", headers=second)
    assert revoked.status_code == 204, revoked.text
    assert (await api.client.get("/v1/accounts/me", headers=first)).status_code == 401
    again = await api.client.delete(f"/v1/accounts/me/keys/{first_id}", headers=second)
    assert_problem(again, 404)

    # the last key cannot be revoked (the account would be lost): rotate it instead
    last = await api.client.delete(f"/v1/accounts/me/keys/{added.json()['id']}", headers=second)
    body = assert_problem(last, 409)
    assert "rotate" in body["detail"]
    assert (await api.client.get("/v1/accounts/me", headers=second)).status_code == 200


async def test_an_account_holds_at_most_its_keys(
    api_database_url: str, guard: NetworkGuard
) -> None:
    fields = {"keys": KeySettings(per_account=3)}
    async with app_client(api_database_url, guard, settings_fields=fields) as (pool, client):
        api = Api(client, pool, guard)
        _, headers = await api.account("hoarder")
        answers = [
            (await client.post("/v1/accounts/me/keys", headers=headers)).status_code
            for _ in range(3)
        ]
        assert answers == [201, 201, 409]
        refused = await client.post("/v1/accounts/me/keys", headers=headers)
        body = assert_problem(refused, 409)
        assert "3 live API keys" in body["detail"]
        # rotating does not add one: still allowed at the ceiling
        assert (
            await client.post("/v1/accounts/me/keys/rotate", headers=headers)
        ).status_code == 201
