"""The bot callback protocol, version 1 (docs/protocol.md), as msgspec types.

These types are the single source of truth: the arena encodes requests with them, the SDK
decodes them, and the OpenAPI document's ``webhooks`` section is generated from them. Every
type a request carries (rules, observation, actions, events) is the protocol's own
(:mod:`arena.wire.structs`), filled from the engine's by the builders below
(:func:`start_request`, :func:`act_request`, :func:`end_request`), so the bot API changes
only when these modules do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Protocol

import msgspec

from arena.wire.structs import Action, Observation, Rules, observation_to_wire, rules_to_wire
from arena.wire.visible_text import clean_say
from engine import actions as engine_actions
from engine import observe as engine_observe
from engine import rules as engine_rules
from engine.actions import MAX_SAY

API_VERSION = "1"


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

    def to_action(self) -> engine_actions.Action:
        """The engine's action this answer names (with its ``say`` and ``sena``); the ``say``
        without controls, bidi overrides or invisible characters (:func:`clean_say`)."""
        return engine_actions.Action(self.action, self.card, clean_say(self.say), self.sena)


class EndRequest(_Envelope, kw_only=True):
    """``POST {base}/end`` after each game. Any 2xx answer; the body is ignored."""

    score: tuple[int, int]
    winner: int | None  # winning team; None if the game was abandoned (a forfeit)
    forfeit: bool = False
    entrants: list[str] | None = None  # entrant names by team (a ladder's /start names none)
    observation: Observation  # the final position as this seat saw it


class _Option(Protocol):
    @property
    def action(self) -> str: ...

    @property
    def card(self) -> str | None: ...


def legal_answer(response: ActResponse, legal: Iterable[_Option]) -> engine_actions.Action | None:
    """The legal action a response names (with its ``say``/``sena``), or None."""
    for option in legal:
        if option.action == response.action and option.card == response.card:
            return response.to_action()
    return None


# --- requests from the engine's values ------------------------------------------------------


def start_request(
    match_id: str,
    game_id: str,
    seat: int,
    rules: engine_rules.Rules,
    *,
    game_number: int,
    games_in_match: int,
    team: int,
    entrants: list[str],
    timeout_ms: int,
    time_bank_ms: int,
) -> StartRequest:
    return StartRequest(
        match_id=match_id,
        game_id=game_id,
        seat=seat,
        rules=rules_to_wire(rules),
        game_number=game_number,
        games_in_match=games_in_match,
        team=team,
        entrants=entrants,
        timeout_ms=timeout_ms,
        time_bank_ms=time_bank_ms,
    )


def act_request(
    match_id: str,
    game_id: str,
    seat: int,
    observation: engine_observe.Observation,
    legal: Sequence[engine_actions.Action],
    *,
    timeout_ms: int,
    time_bank_ms: int,
    last_latency_ms: int | None,
) -> ActRequest:
    return ActRequest(
        match_id=match_id,
        game_id=game_id,
        seat=seat,
        observation=observation_to_wire(observation),
        legal_actions=[Action(a.action, a.card, a.say, a.sena) for a in legal],
        timeout_ms=timeout_ms,
        time_bank_ms=time_bank_ms,
        last_latency_ms=last_latency_ms,
    )


def end_request(
    match_id: str,
    game_id: str,
    seat: int,
    observation: engine_observe.Observation,
    *,
    score: tuple[int, int],
    winner: int | None,
    forfeit: bool = False,
    entrants: list[str] | None = None,
) -> EndRequest:
    return EndRequest(
        match_id=match_id,
        game_id=game_id,
        seat=seat,
        score=score,
        winner=winner,
        forfeit=forfeit,
        entrants=entrants,
        observation=observation_to_wire(observation),
    )
