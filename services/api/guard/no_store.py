"""``Cache-Control: no-store`` on every answer that carries a credential.

An answer whose body has an ``api_key`` or a ``signing_secret`` (account creation, bot
registration, and any later endpoint that returns one) must not be kept by a browser, a proxy
or a CDN. The check is on the answer's type, not on a list of routes, so a new endpoint
returning such a body gets the header without anyone remembering to add it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Response

CREDENTIAL_FIELDS = frozenset({"api_key", "signing_secret"})
NO_STORE = "no-store"


def carries_credential(content: object) -> bool:
    """Whether ``content`` is a Struct (or a mapping) with a credential field."""
    if isinstance(content, msgspec.Struct):
        return not CREDENTIAL_FIELDS.isdisjoint(content.__struct_fields__)
    if isinstance(content, dict):
        return not CREDENTIAL_FIELDS.isdisjoint(content)
    return False


async def no_store_credentials(response: Response[Any]) -> Response[Any]:
    """A Litestar ``after_request`` hook: mark answers carrying a credential ``no-store``."""
    if carries_credential(response.content):
        response.headers["Cache-Control"] = NO_STORE
    return response
