"""Accounts and API keys: ``POST /v1/accounts`` and the ``Authorization: Bearer`` check.

A key is ``ta_`` + 32 random bytes (URL-safe base64), shown once; the database keeps only
its SHA-256, which is also how a request's key is looked up.
"""

from __future__ import annotations

import hashlib
import secrets

import asyncpg
from litestar import Controller, Request, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import JSONBody

from services.api.deps import get_pool
from services.api.problems import ProblemError, problem_responses
from services.api.schemas import AccountCreate, AccountCreated
from services.db import accounts as db_accounts
from services.db.accounts import Account, DuplicateName

KEY_PREFIX = "ta_"
SECURITY_SCHEME = "BearerAuth"
SECURITY: list[dict[str, list[str]]] = [{SECURITY_SCHEME: []}]
security_components = Components(
    security_schemes={
        SECURITY_SCHEME: SecurityScheme(
            type="http",
            scheme="bearer",
            description="The API key from POST /v1/accounts",
        )
    }
)


def new_api_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_api_key(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def _unauthorized(detail: str) -> ProblemError:
    return ProblemError(401, detail, headers={"WWW-Authenticate": 'Bearer realm="truco-arena"'})


async def current_account(request: Request[object, object, State]) -> Account:
    """Dependency: the account whose key is in ``Authorization: Bearer``, else 401."""
    header = request.headers.get("authorization")
    if not header:
        raise _unauthorized("missing Authorization header: send 'Authorization: Bearer <api_key>'")
    scheme, _, key = header.partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key:
        raise _unauthorized("the Authorization header must be 'Bearer <api_key>'")
    if not key.startswith(KEY_PREFIX) or len(key) > 200:
        raise _unauthorized("invalid API key")
    account = await db_accounts.account_by_key_hash(get_pool(request.app.state), hash_api_key(key))
    if account is None:
        raise _unauthorized("invalid API key")
    return account


class AccountController(Controller):
    path = "/v1/accounts"
    tags = ("accounts",)

    @post(
        "/",
        operation_id="createAccount",
        summary="Create an account and its API key",
        description="The API key is in this response only; it is stored as a hash.",
        status_code=201,
        responses=problem_responses(409, 413, 415, 422),
    )
    async def create_account(
        self, data: JSONBody[AccountCreate], pool: NamedDependency[asyncpg.Pool]
    ) -> AccountCreated:
        key = new_api_key()
        try:
            account = await db_accounts.create_account(pool, data.name, hash_api_key(key))
        except DuplicateName:
            raise ProblemError(
                409, f"the account name {data.name!r} is taken", slug="name-taken"
            ) from None
        return AccountCreated(id=account.id, name=account.name, api_key=key)
