"""API keys and the ``Authorization: Bearer`` check every route (and the rate limiter) uses.

A key is ``ta_`` + 32 random bytes (URL-safe base64), shown once; the database keeps only
its SHA-256 (a row of ``api_keys``), which is also how a request's key is looked up. A revoked
key is not found: it stops working at once. The keys' own routes are
:mod:`services.api.routes.api_keys`, the accounts' :mod:`services.api.routes.accounts`.
"""

from __future__ import annotations

import hashlib
import secrets

from litestar import Request
from litestar.datastructures import State
from litestar.openapi.spec import Components, SecurityScheme

from services.api.deps import get_pool
from services.api.problems import ProblemError
from services.db import api_keys as db_keys
from services.db.accounts import Account

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


_RESOLVED = "resolved_account"
"""Where :func:`request_account` keeps its answer in ``request.state`` (one lookup a request)."""
_RESOLVED_KEY = "resolved_key_id"
"""And the id of the key that validated (for rotating it)."""


def require_owner(account: Account, owner_id: int, detail: str) -> None:
    """Refuse with a 403 saying ``detail`` unless ``account`` owns the thing (a bot's owner, a
    tournament's organiser): the one ownership check of the write endpoints."""
    if owner_id != account.id:
        raise ProblemError(403, detail)


def bearer_key(request: Request[object, object, State]) -> str | None:
    """The token of ``Authorization: Bearer <token>``, stripped; None without one."""
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    key = key.strip()
    return key if scheme.lower() == "bearer" and key else None


def well_formed(key: str) -> bool:
    return key.startswith(KEY_PREFIX) and len(key) <= 200


async def request_account(request: Request[object, object, State]) -> Account | None:
    """The account whose valid key the request carries, else None (no key, a malformed or an
    unknown one). Looked up once per request: the rate limiter asks first, the handler's
    :func:`current_account` reuses the answer."""
    if _RESOLVED in request.state:
        found: Account | None = request.state[_RESOLVED]
        return found
    key = bearer_key(request)
    owner = None
    if key is not None and well_formed(key):
        pool = get_pool(request.app.state)
        owner = await db_keys.key_owner(pool, hash_api_key(key))
    account = None if owner is None else owner.account
    request.state[_RESOLVED] = account
    request.state[_RESOLVED_KEY] = None if owner is None else owner.key_id
    return account


async def current_key_id(request: Request[object, object, State]) -> int:
    """The id of the key that authenticated the request (after :func:`current_account`)."""
    await current_account(request)
    key_id: int = request.state[_RESOLVED_KEY]
    return key_id


async def current_account(request: Request[object, object, State]) -> Account:
    """Dependency: the account whose key is in ``Authorization: Bearer``, else 401."""
    if not request.headers.get("authorization"):
        raise _unauthorized("missing Authorization header: send 'Authorization: Bearer <api_key>'")
    key = bearer_key(request)
    if key is None:
        raise _unauthorized("the Authorization header must be 'Bearer <api_key>'")
    account = await request_account(request)
    if account is None:
        raise _unauthorized("invalid API key")
    return account
