"""The accounts' and API keys' request and response bodies (msgspec Structs), and the rules of
a name (an account's, a bot's)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

Name = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=64,
        pattern=r"^[^\s\x00]([^\x00]*[^\s\x00])?$",
        description=(
            "1-64 characters, no leading or trailing space, no control, format or invisible "
            "characters (docs/api.md, Names); unique ignoring case and confusable characters"
        ),
        examples=["alice"],
    ),
]


class AccountCreate(msgspec.Struct, forbid_unknown_fields=True):
    name: Name


class AccountCreated(msgspec.Struct):
    """The new account and its API key: shown this once, stored only as a hash."""

    id: int
    name: str
    api_key: str


class AccountRead(msgspec.Struct):
    id: int
    name: str
    created_at: datetime


class ApiKeyRead(msgspec.Struct):
    """A live API key of the account: never the key itself, only its last characters."""

    id: int
    hint: str
    """The key's last 4 characters (empty for a key made before keys had hints)."""
    created_at: datetime
    current: bool
    """Whether this is the key the request was sent with."""


class ApiKeyCreated(msgspec.Struct):
    """A new API key: shown this once, stored only as a hash."""

    id: int
    hint: str
    created_at: datetime
    api_key: str
