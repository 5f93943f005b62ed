"""Accounts: ``POST /v1/accounts`` (an account and its first API key) and ``GET
/v1/accounts/me`` (whose key this is)."""

from __future__ import annotations

import asyncpg
from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import JSONBody

from services.api.auth import SECURITY, current_account, hash_api_key, new_api_key
from services.api.deps import services_of
from services.api.guard.account_origin import request_origin
from services.api.names import check_name
from services.api.problems import ProblemError, problem_responses
from services.api.schemas.accounts import AccountCreate, AccountCreated, AccountRead
from services.db import accounts as db_accounts
from services.db import api_keys as db_keys
from services.db import ladder_links as db_links
from services.db.accounts import Account, DuplicateName


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
        self,
        request: Request[object, object, State],
        data: JSONBody[AccountCreate],
        pool: NamedDependency[asyncpg.Pool],
    ) -> AccountCreated:
        check_name(data.name)
        key = new_api_key()
        try:
            account = await db_accounts.create_account(
                pool, data.name, hash_api_key(key), db_keys.hint_of(key)
            )
        except DuplicateName:
            raise ProblemError(
                409,
                f"the account name {data.name!r} is taken (or too like a taken one: names "
                "are unique ignoring case and look-alike characters)",
                slug="name-taken",
            ) from None
        origin = request_origin(request, services_of(request.app.state).settings)
        if origin is not None:  # one person's accounts never meet on a ladder
            await db_links.note_created_from(pool, account.id, origin)
        return AccountCreated(id=account.id, name=account.name, api_key=key)

    @get(
        "/me",
        operation_id="getMyAccount",
        summary="The account of the API key sent",
        description="Answers who the key belongs to: a cheap way for a client to check a key.",
        dependencies={"account": Provide(current_account)},
        security=SECURITY,
        responses=problem_responses(401),
    )
    async def me(self, account: NamedDependency[Account]) -> AccountRead:
        return AccountRead(id=account.id, name=account.name, created_at=account.created_at)
