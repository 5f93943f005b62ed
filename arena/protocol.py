"""The bot callback protocol, version 1 (docs/protocol.md), as msgspec types.

These types are the single source of truth: the arena encodes requests with them, the SDK
decodes them, and the OpenAPI document's ``webhooks`` section is generated from them.
The observation inside ``ActRequest`` is the engine's own :class:`engine.Observation`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from engine.actions import MAX_SAY, Action
from engine.observe import Observation
from engine.rules import Rules

API_VERSION = "1"

FaultKind = Literal["timeout", "connect", "http_status", "bad_body", "too_large", "illegal_action"]
FAULT_KINDS: tuple[str, ...] = (
    "timeout",
    "connect",
    "http_status",
    "bad_body",
    "too_large",
    "illegal_action",
)


class BotInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """``GET {base}/``: who the bot is. ``apiversion`` must be "1"."""

    apiversion: str
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    author: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    version: Annotated[str, msgspec.Meta(max_length=50)] | None = None


class _Envelope(msgspec.Struct, kw_only=True):
    apiversion: str = API_VERSION
    match_id: str
    game_id: str
    seat: int


class StartRequest(_Envelope, kw_only=True):
    """``POST {base}/start`` before each game. Any 2xx answer; the body is ignored."""

    rules: Rules
    game_number: int  # 1-based, within the match
    games_in_match: int
    team: int  # seat % 2
    entrants: list[str]  # entrant names by team: [team 0, team 1]
    timeout_ms: int  # each /act call's limit
    time_bank_ms: int  # the bank for the whole game


class ActRequest(_Envelope, kw_only=True):
    """``POST {base}/act`` each time the seat must decide: answer with an ``ActResponse``."""

    observation: Observation
    legal_actions: list[Action]
    timeout_ms: int
    time_bank_ms: int
    last_latency_ms: int | None


class ActResponse(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The bot's decision: one of ``legal_actions``, plus optional ``say`` and ``sena``."""

    action: str
    card: str | None = None
    say: Annotated[str, msgspec.Meta(max_length=MAX_SAY)] | None = None
    sena: str | None = None

    def to_action(self) -> Action:
        return Action(self.action, self.card, self.say, self.sena)


class EndRequest(_Envelope, kw_only=True):
    """``POST {base}/end`` after each game. Any 2xx answer; the body is ignored."""

    score: tuple[int, int]
    winner: int | None  # winning team; None if the game was abandoned (a forfeit)
    forfeit: bool = False
    observation: Observation  # the final position as this seat saw it


def legal_answer(response: ActResponse, legal: list[Action]) -> Action | None:
    """The legal action a response names (with its ``say``/``sena``), or None."""
    for option in legal:
        if option.action == response.action and option.card == response.card:
            return response.to_action()
    return None
