"""The bots' request and response bodies (msgspec Structs): separate create, read and update
types; a bot's name follows an account's rules (:data:`services.api.schemas.accounts.Name`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from services.api.schemas.accounts import Name
from services.domain import BotStatus, ChallengePolicy

BotUrlField = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=2048,
        pattern=r"^https?://",
        description="the bot's base URL (http or https)",
        examples=["https://bot.example.org/truco"],
    ),
]
ChallengePolicyField = Annotated[
    ChallengePolicy,
    msgspec.Meta(description="who may challenge the bot: anyone ('open') or only its owner's bots"),
]
MinTimeoutMs = Annotated[
    int,
    msgspec.Meta(
        ge=10,
        le=60_000,
        description=(
            "the least per-call timeout (ms) the bot accepts in events of other organisers: "
            "another owner may not enter it into an event whose timeout_ms is lower"
        ),
    ),
]
OpenToEntries = Annotated[
    bool, msgspec.Meta(description="whether anyone may enter the bot into their tournaments")
]
SigningSecret = Annotated[
    str,
    msgspec.Meta(
        max_length=200,
        description=(
            "a signing secret you chose: 'whsec_' + the standard base64 of at least 24 random "
            "bytes (`truco bot secret` prints one)"
        ),
        examples=["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    ),
]


# --- bots -----------------------------------------------------------------------------------


class BotCreate(msgspec.Struct, forbid_unknown_fields=True):
    """A new bot; without ``signing_secret`` the platform makes one up and returns it."""

    name: Name
    url: BotUrlField
    open: OpenToEntries = False
    challenges: ChallengePolicyField = "open"
    signing_secret: SigningSecret | None = None
    min_timeout_ms: MinTimeoutMs | None = None


class SecretRotate(msgspec.Struct, forbid_unknown_fields=True):
    """A rotation; without ``signing_secret`` the platform makes the new secret up."""

    signing_secret: SigningSecret | None = None


class SecretRotated(msgspec.Struct):
    """The bot's new signing secret, shown this once. Until ``previous_secret_valid_until``
    every request to the bot carries a signature with the previous secret too."""

    id: int
    signing_secret: str
    previous_secret_valid_until: datetime


class BotUpdate(msgspec.Struct, forbid_unknown_fields=True):
    """Fields to change; a new ``url`` re-runs the handshake."""

    name: Name | None = None
    url: BotUrlField | None = None
    open: OpenToEntries | None = None
    challenges: ChallengePolicyField | None = None
    min_timeout_ms: MinTimeoutMs | None = None


class BotCreated(msgspec.Struct):
    """The new bot and its signing secret: shown this once."""

    id: int
    name: str
    url: str
    status: BotStatus
    signing_secret: str
    open: bool
    challenges: ChallengePolicyField
    min_timeout_ms: int | None = None


class BotRead(msgspec.Struct):
    """The owner's view of a bot (after a change)."""

    id: int
    owner_id: int
    name: str
    url: str
    status: BotStatus
    created_at: datetime
    updated_at: datetime
    open: bool
    challenges: ChallengePolicyField
    min_timeout_ms: int | None = None


class BotInterval(msgspec.Struct, kw_only=True):
    """A bot's 95% interval in one pool and its likelihood of superiority over the bot that
    was right below it on that leaderboard, from the pool's last rating fit (docs/ratings.md)."""

    interval: tuple[float, float]
    los_next: float | None
    next_bot_id: int | None
    next_bot_name: str | None
    fitted_at: datetime


class BotProfile(msgspec.Struct):
    """A bot's public profile; ``rating`` per pool: 1v1, 2v2 (team), 2v2-individual (1500
    until it has played); ``intervals`` per pool it has been fitted in."""

    id: int
    owner_id: int
    name: str
    status: BotStatus
    created_at: datetime
    rating: dict[str, float]
    open: bool
    challenges: ChallengePolicyField
    deleted_at: datetime | None = None
    min_timeout_ms: int | None = None
    intervals: dict[str, BotInterval] = {}


class BotPage(msgspec.Struct):
    """A page of bots, newest first; pass ``next_cursor`` as ``cursor`` for the next one."""

    items: list[BotProfile]
    next_cursor: int | None
