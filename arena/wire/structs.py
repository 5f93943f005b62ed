"""The game types of the bot protocol as the wire carries them: the arena's own structs.

The bot protocol (:mod:`arena.wire.protocol`, docs/protocol.md) sends rules, an observation, legal
actions and events. These are NOT the engine's types but copies owned by the protocol, filled
by the converters below (``*_to_wire``), so a refactor of the engine cannot silently change
what bots receive: a renamed or retyped engine field breaks a converter (mypy, the tests), and
an added one stays off the wire until it is added here. ``tests/arena/wire/test_wire.py`` pins the
JSON Schema of the whole protocol to the committed ``api-spec/bot-protocol.schema.json``.

The class names, docstrings, field order and options match the engine's as they stood when
the protocol was frozen (version 1), so the bytes a bot receives and the published schema are
the same as before the split. :func:`observation_from_wire` goes back the other way, for the
platform's own strategies served by the SDK.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

import msgspec

from engine import actions as engine_actions
from engine import events as ev
from engine import observe as engine_observe
from engine import rules as engine_rules

Card = str
TrucoLevel = Literal["truco", "retruco", "vale_cuatro"]
FlorBet = Literal["flor", "contraflor", "contraflor_al_resto"]
FlorOutcome = Literal["alone", "quiero", "achico"]
HandEndReason = Literal["rounds", "no_quiero", "mazo", "game_over"]
EnvidoCancelReason = Literal["flor"]


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Rules of one match. Unknown keys and bad values are a :class:`RulesError`."""

    players: Literal[2, 4] = 2
    points_to_win: Literal[15, 30] = 30
    flor: bool = True
    falta_envido: Literal["to_target", "to_buenas"] = "to_target"
    mazo_first_round_costs_two: bool = True
    sena_seen_by_opponents: Annotated[float, msgspec.Meta(ge=0.0, le=1.0)] = 0.25

    @property
    def buenas(self) -> int:
        """The first score "in the buenas": half of ``points_to_win``, rounded up (15 or 8)."""
        return (self.points_to_win + 1) // 2


class Action(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One decision. ``card`` only with ``play``; ``say`` ≤ 280 characters; ``sena`` in 2v2."""

    action: str
    card: str | None = None
    say: str | None = None
    sena: str | None = None

    @property
    def key(self) -> tuple[str, str | None]:
        """What legality depends on: the word and the card."""
        return (self.action, self.card)

    def __str__(self) -> str:
        return f"{self.action} {self.card}" if self.card else self.action


class Declaration(msgspec.Struct, frozen=True):
    """A seat's envido or flor declaration; ``points`` is None for "son buenas" (R-6)."""

    seat: int
    points: int | None


class Shown(msgspec.Struct, frozen=True):
    """Cards shown at the hand's end to prove a declared winning envido or flor (R-11)."""

    seat: int
    cards: tuple[Card, ...]


class HandStarted(msgspec.Struct, frozen=True, tag="hand_started"):
    hand: int
    mano: int
    deal: tuple[tuple[Card, ...], ...]
    score: tuple[int, int]


class ActionTaken(msgspec.Struct, frozen=True, tag="action", omit_defaults=True):
    seat: int
    action: str
    card: Card | None = None
    say: str | None = None
    sena: str | None = None
    sena_seen_by: tuple[int, ...] = ()


class RoundEnded(msgspec.Struct, frozen=True, tag="round_ended"):
    round: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None
    next_leader: int


class EnvidoSettled(msgspec.Struct, frozen=True, tag="envido_settled"):
    chain: tuple[str, ...]
    querido: bool
    winner: int
    points: int
    declarations: tuple[Declaration, ...]
    score: tuple[int, int]


class EnvidoCancelled(msgspec.Struct, frozen=True, tag="envido_cancelled"):
    chain: tuple[str, ...]
    reason: EnvidoCancelReason


class FlorSettled(msgspec.Struct, frozen=True, tag="flor_settled"):
    sung: tuple[int, ...]
    bet: FlorBet
    outcome: FlorOutcome
    winner: int
    points: int
    declarations: tuple[Declaration, ...]
    score: tuple[int, int]


class TrucoSettled(msgspec.Struct, frozen=True, tag="truco_settled"):
    level: TrucoLevel
    querido: bool
    seat: int


class HandEnded(msgspec.Struct, frozen=True, tag="hand_ended"):
    hand: int
    winner: int | None
    points: int
    reason: HandEndReason
    shown: tuple[Shown, ...]
    score: tuple[int, int]


class GameEnded(msgspec.Struct, frozen=True, tag="game_ended"):
    winner: int
    score: tuple[int, int]


Event = (
    HandStarted
    | ActionTaken
    | RoundEnded
    | EnvidoSettled
    | EnvidoCancelled
    | FlorSettled
    | TrucoSettled
    | HandEnded
    | GameEnded
)
"""Every event of the protocol (a seat never receives ``hand_started``: it holds the deal)."""


class Observation(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    team: int
    players: int
    rules: Rules
    hand: int
    mano: int
    to_act: int
    score: tuple[int, int]
    cards: tuple[Card, ...]
    envido_points: int
    has_flor: bool
    round: int
    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    round_winners: tuple[int | None, ...]
    truco: str | None
    truco_pending: str | None
    envido: tuple[str, ...]
    events: tuple[Event, ...]
    previous_hand: tuple[Event, ...]
    game_over: bool
    winner: int | None


# --- from the engine -----------------------------------------------------------------------


# Engine rules and events are immutable values that recur in every observation of a hand (and
# of every match): each is converted once and the wire copy reused (bounded caches).


@functools.lru_cache(maxsize=64)
def rules_to_wire(rules: engine_rules.Rules) -> Rules:
    return Rules(
        players=rules.players,
        points_to_win=rules.points_to_win,
        flor=rules.flor,
        falta_envido=rules.falta_envido,
        mazo_first_round_costs_two=rules.mazo_first_round_costs_two,
        sena_seen_by_opponents=rules.sena_seen_by_opponents,
    )


def action_to_wire(action: engine_actions.Action) -> Action:
    return Action(action.action, action.card, action.say, action.sena)


def _declarations(found: tuple[ev.Declaration, ...]) -> tuple[Declaration, ...]:
    return tuple(Declaration(d.seat, d.points) for d in found)


@functools.lru_cache(maxsize=8192)
def event_to_wire(event: ev.Event) -> Event:
    """One engine event as the protocol carries it."""
    if isinstance(event, ev.ActionTaken):
        return ActionTaken(
            event.seat, event.action, event.card, event.say, event.sena, event.sena_seen_by
        )
    if isinstance(event, ev.RoundEnded):
        return RoundEnded(event.round, event.plays, event.winner, event.next_leader)
    if isinstance(event, ev.TrucoSettled):
        return TrucoSettled(event.level, event.querido, event.seat)
    if isinstance(event, ev.EnvidoSettled):
        return EnvidoSettled(
            event.chain,
            event.querido,
            event.winner,
            event.points,
            _declarations(event.declarations),
            event.score,
        )
    if isinstance(event, ev.EnvidoCancelled):
        return EnvidoCancelled(event.chain, event.reason)
    if isinstance(event, ev.FlorSettled):
        return FlorSettled(
            event.sung,
            event.bet,
            event.outcome,
            event.winner,
            event.points,
            _declarations(event.declarations),
            event.score,
        )
    if isinstance(event, ev.HandEnded):
        shown = tuple(Shown(s.seat, s.cards) for s in event.shown)
        return HandEnded(event.hand, event.winner, event.points, event.reason, shown, event.score)
    if isinstance(event, ev.GameEnded):
        return GameEnded(event.winner, event.score)
    return HandStarted(event.hand, event.mano, event.deal, event.score)


_EVENT_TUPLES: dict[int, tuple[tuple[ev.Event, ...], tuple[Event, ...]]] = {}
_EVENT_TUPLES_MAX = 1024


def events_to_wire(events: tuple[ev.Event, ...]) -> tuple[Event, ...]:
    """A tuple of engine events as the wire carries them. The previous hand of an observation
    is the same tuple object all through a hand (in 1v1), so the converted tuple is kept by
    the identity of the engine's (the entry holds that tuple: its id cannot be reused)."""
    entry = _EVENT_TUPLES.get(id(events))
    if entry is not None and entry[0] is events:
        return entry[1]
    wire = tuple(map(event_to_wire, events))
    if len(_EVENT_TUPLES) >= _EVENT_TUPLES_MAX:
        _EVENT_TUPLES.clear()
    _EVENT_TUPLES[id(events)] = (events, wire)
    return wire


def observation_to_wire(obs: engine_observe.Observation) -> Observation:
    """A seat's observation as its bot receives it."""
    return Observation(
        seat=obs.seat,
        team=obs.team,
        players=obs.players,
        rules=rules_to_wire(obs.rules),
        hand=obs.hand,
        mano=obs.mano,
        to_act=obs.to_act,
        score=obs.score,
        cards=obs.cards,
        envido_points=obs.envido_points,
        has_flor=obs.has_flor,
        round=obs.round,
        rounds=obs.rounds,
        round_winners=obs.round_winners,
        truco=obs.truco,
        truco_pending=obs.truco_pending,
        envido=obs.envido,
        events=events_to_wire(obs.events),
        previous_hand=events_to_wire(obs.previous_hand),
        game_over=obs.game_over,
        winner=obs.winner,
    )


# --- back to the engine (the platform's own strategies, served by the SDK) -------------------


def observation_from_wire(obs: Observation) -> engine_observe.Observation:
    """The engine's observation of a wire one (the platform's strategies read the engine's)."""
    builtins: Any = msgspec.to_builtins(obs)
    return msgspec.convert(builtins, engine_observe.Observation)


def action_from_wire(action: Action | engine_actions.Action) -> engine_actions.Action:
    if isinstance(action, engine_actions.Action):
        return action
    return engine_actions.Action(action.action, action.card, action.say, action.sena)
