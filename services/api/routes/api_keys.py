"""An account's API keys as objects: list, add, rotate, revoke (``/v1/accounts/me/keys``).

A leaked key need not live forever: ``POST /v1/accounts/me/keys/rotate`` answers a new key
and revokes the one the request was sent with, at once; ``DELETE /v1/accounts/me/keys/{id}``
revokes any other live key of the account. An account holds at most ``TRUCO_API_KEYS_PER_ACCOUNT``
live keys and never fewer than one (revoking the last is refused: rotate it instead).
"""

from __future__ import annotations

import asyncpg
from litestar import Controller, Request, delete, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide

from services.api.auth import (
    SECURITY,
    current_account,
    current_key_id,
    hash_api_key,
    new_api_key,
)
from services.api.deps import services_of
from services.api.params import KeyIdParam
from services.api.problems import ProblemError, problem_responses
from services.api.schemas.accounts import ApiKeyCreated, ApiKeyRead
from services.db import api_keys as db_keys
from services.db.accounts import Account

_auth = {"account": Provide(current_account), "current_key": Provide(current_key_id)}


def _created(key: db_keys.ApiKey, secret: str) -> ApiKeyCreated:
    return ApiKeyCreated(id=key.id, hint=key.hint, created_at=key.created_at, api_key=secret)


def _unauthorized() -> ProblemError:
    return ProblemError(
        401,
        "the API key was revoked meanwhile (by another rotation?)",
        headers={"WWW-Authenticate": 'Bearer realm="truco-arena"'},
    )


class ApiKeyController(Controller):
    path = "/v1/accounts/me/keys"
    tags = ("accounts",)

    @get(
        "/",
        operation_id="listMyKeys",
        summary="The account's live API keys",
        description="Never the keys themselves: each key's id, last 4 characters and age.",
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401),
    )
    async def list_keys(
        self,
        pool: NamedDependency[asyncpg.Pool],
        account: NamedDependency[Account],
        current_key: NamedDependency[int],
    ) -> list[ApiKeyRead]:
        return [
            ApiKeyRead(id=k.id, hint=k.hint, created_at=k.created_at, current=k.id == current_key)
            for k in await db_keys.live_keys(pool, account.id)
        ]

    @post(
        "/",
        operation_id="createMyKey",
        summary="Add an API key to the account",
        description=(
            "The new key is in this response only; it is stored as a hash. The account's other "
            "keys keep working. An account holds at most 5 live keys "
            "(TRUCO_API_KEYS_PER_ACCOUNT): 409 past that."
        ),
        status_code=201,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 409),
    )
    async def create_key(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        account: NamedDependency[Account],
    ) -> ApiKeyCreated:
        most = services_of(request.app.state).settings.keys.per_account
        secret = new_api_key()
        async with pool.acquire() as conn:
            try:
                key = await db_keys.add_key(
                    conn, account.id, hash_api_key(secret), db_keys.hint_of(secret), most=most
                )
            except db_keys.TooManyKeys:
                raise ProblemError(
                    409,
                    f"the account holds {most} live API keys, the most it may: revoke one first "
                    "(DELETE /v1/accounts/me/keys/{id})",
                    slug="too-many-keys",
                ) from None
        return _created(key, secret)

    @post(
        "/rotate",
        operation_id="rotateMyKey",
        summary="Replace the key sent with a new one",
        description=(
            "Answers a new key (in this response only) and revokes the key the request was "
            "sent with: from now on that key gets 401. The account's other keys keep working."
        ),
        status_code=201,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401),
    )
    async def rotate_key(
        self,
        pool: NamedDependency[asyncpg.Pool],
        account: NamedDependency[Account],
        current_key: NamedDependency[int],
    ) -> ApiKeyCreated:
        secret = new_api_key()
        async with pool.acquire() as conn:
            try:
                key = await db_keys.rotate_key(
                    conn, account.id, current_key, hash_api_key(secret), db_keys.hint_of(secret)
                )
            except db_keys.NoSuchKey:
                raise _unauthorized() from None
        return _created(key, secret)

    @delete(
        "/{key_id:int}",
        operation_id="revokeMyKey",
        summary="Revoke one of the account's keys",
        description=(
            "The key stops working at once (401). It may be the key sent. The account's last "
            "live key cannot be revoked (409): rotate it instead."
        ),
        status_code=204,
        dependencies=_auth,
        security=SECURITY,
        responses=problem_responses(401, 404, 409),
    )
    async def revoke_key(
        self,
        pool: NamedDependency[asyncpg.Pool],
        account: NamedDependency[Account],
        key_id: KeyIdParam,
    ) -> None:
        async with pool.acquire() as conn:
            try:
                await db_keys.revoke_key(conn, account.id, key_id)
            except db_keys.NoSuchKey:
                raise ProblemError(404, f"the account has no live API key {key_id}") from None
            except db_keys.LastKey:
                raise ProblemError(
                    409,
                    "this is the account's last API key: rotate it instead "
                    "(POST /v1/accounts/me/keys/rotate)",
                    slug="last-key",
                ) from None
