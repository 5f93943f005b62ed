"""The bodies of ``/v1/play`` (docs/play.md): what a person sends and what they are shown."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from engine.rules import Rules
from services.play.items import (
    Opponent,
    PlayLogItem,
    PlayOutcome,
    PlaySeat,
    PlaySeating,
    PlayStatus,
    Role,
)


class PlayCreate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A new match against a bot: ``bot_id`` (default: the house heuristic; any open bot
    when signed in), and the rules."""

    bot_id: Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1)] | None = None
    players: Literal[2, 4] = 2
    """4: a 2v2, the person and a house bot partner against two seats of ``bot_id``."""
    points_to_win: Literal[15, 30] = 15
    flor: bool = False
    games: Annotated[int, msgspec.Meta(ge=1, le=3)] = 1


class PlayAct(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The person's answer to decision ``number``: one of its legal actions."""

    number: Annotated[int, msgspec.Meta(ge=1, le=2**31)]
    action: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    card: Annotated[str, msgspec.Meta(min_length=1, max_length=4)] | None = None
    sena: Annotated[str, msgspec.Meta(min_length=1, max_length=40)] | None = None


class PlayOption(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One legal action: its word, and the card for ``play``."""

    action: str
    card: str | None = None


class PlayTurn(msgspec.Struct, frozen=True, kw_only=True):
    """A decision the person owes: answer it by ``number`` with one of ``legal_actions``
    within ``clock_left_ms``."""

    number: int
    legal_actions: list[PlayOption]
    clock_ms: int
    clock_left_ms: int
    bank_left_ms: int | None = None
    """The person's thinking time left for this game, this decision's included (None: no
    bank); a decision's clock is at most what was left when it opened."""


class PlayView(msgspec.Struct, frozen=True, kw_only=True):
    """What the person may see: their own seat's observation only (never the bot's cards
    before they are played), the decision they owe, and the outcome once over."""

    id: int
    status: PlayStatus
    version: int
    opponent: Opponent
    partner: Opponent | None = None
    person_side: int
    rules: Rules
    games: int
    game_number: int
    turn: PlayTurn | None = None
    observation: dict[str, Any] | None = None
    """The bot protocol's ``Observation`` of the person's seat (docs/protocol.md): the wire's
    own document, as a bot receives it (its schema is the protocol's, under ``webhooks``)."""
    outcome: PlayOutcome | None = None
    replay_url: str | None = None
    to_act: int | None = None
    """The seat whose decision the match waits for now (the person's or a bot's)."""
    seating: list[PlaySeating] = []
    """Who sits where in each game so far (the person's seat changes from game to game)."""
    log: list[PlayLogItem] = []
    """What the person's seat has seen, in order: the items numbered from ``?since=`` (on the
    stream, those since its previous view), or those of the current game without it."""
    cause: str | None = None
    """Why an ``abandoned`` session ended (its worker stopped, the match failed...)."""


class PlayCreated(msgspec.Struct, frozen=True, kw_only=True):
    """A new session: keep ``token`` (shown once) and send it as ``X-Play-Token``."""

    id: int
    token: str
    view: PlayView


__all__ = [
    "Opponent",
    "PlayAct",
    "PlayCreate",
    "PlayCreated",
    "PlayLogItem",
    "PlayOption",
    "PlayOutcome",
    "PlaySeat",
    "PlaySeating",
    "PlayStatus",
    "PlayTurn",
    "PlayView",
    "Role",
]
