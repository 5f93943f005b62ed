"""Accounts and API keys: created once, stored as SHA-256 only, required as Bearer tokens."""

from __future__ import annotations

import hashlib

import pytest

from tests.services.helpers.api_helpers import Api, module_api, unique

pytestmark = pytest.mark.anyio

# one app for the module's tests (many accounts and refused keys from one address: budgets lifted)
anyio_backend, shared_api, api = module_api()


async def test_account_key_is_shown_once_and_stored_as_its_sha256(api: Api) -> None:
    name = unique("alice")
    response = await api.client.post("/v1/accounts", json={"name": name})
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "name", "api_key"}
    assert body["name"] == name
    key = body["api_key"]
    assert key.startswith("ta_") and len(key) >= 40

    row = await api.pool.fetchrow("SELECT * FROM api_keys WHERE account_id = $1", body["id"])
    assert row is not None
    assert bytes(row["key_hash"]) == hashlib.sha256(key.encode()).digest()
    assert row["hint"] == key[-4:] and row["revoked_at"] is None
    # the key itself is nowhere in the rows
    account = await api.pool.fetchrow("SELECT * FROM accounts WHERE id = $1", body["id"])
    assert account is not None and account["api_key_hash"] is None
    assert all(key not in str(value) for value in (*row.values(), *account.values()))
    assert key.encode() not in bytes(row["key_hash"])

    # two accounts never share a key
    other = await api.client.post("/v1/accounts", json={"name": unique("bob")})
    assert other.json()["api_key"] != key


async def test_duplicate_name_ignoring_case_is_409(api: Api) -> None:
    name = unique("Carol")
    assert (await api.client.post("/v1/accounts", json={"name": name})).status_code == 201
    response = await api.client.post("/v1/accounts", json={"name": name.lower()})
    assert response.status_code == 409
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == 409 and problem["type"] == "/problems/name-taken"
    assert "taken" in problem["detail"]


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Basic dXNlcjpwYXNz", "Bearer ta_not-a-real-key", "Bearer nope"],
)
async def test_missing_or_bad_key_is_401(api: Api, authorization: str | None) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    response = await api.client.post(
        "/v1/bots", json={"name": "x", "url": "http://127.0.0.1:1/"}, headers=headers
    )
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["www-authenticate"].startswith("Bearer")
    problem = response.json()
    assert problem["status"] == 401 and problem["title"] == "Unauthorized"
    assert api.guard.connected == []  # nothing was called for an unauthenticated request


async def test_a_valid_key_authenticates(api: Api) -> None:
    _, headers = await api.account()
    # authenticated, so the request gets as far as validating the body
    response = await api.client.post("/v1/bots", json={}, headers=headers)
    assert response.status_code == 422
    # the scheme name is case-insensitive
    lowered = {"Authorization": headers["Authorization"].replace("Bearer", "bearer")}
    response = await api.client.post("/v1/bots", json={}, headers=lowered)
    assert response.status_code == 422


async def test_me_answers_the_keys_account_and_401_without_one(api: Api) -> None:
    account_id, headers = await api.account("me")
    response = await api.client.get("/v1/accounts/me", headers=headers)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"id", "name", "created_at"} and body["id"] == account_id
    assert (await api.client.get("/v1/accounts/me")).status_code == 401
    wrong = await api.client.get("/v1/accounts/me", headers={"Authorization": "Bearer ta_x"})
    assert wrong.status_code == 401 and wrong.json()["detail"] == "invalid API key"
