"""The event vocabulary of replays: what ``apply`` reports, in order.

Events are tagged msgspec Structs (``{"type": "hand_started", ...}``). ``HandStarted`` carries the
whole deal, so the event stream is private to the table: ``observe.py`` decides what a seat sees.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.cards import Card

TrucoLevel = Literal["truco", "retruco", "vale_cuatro"]
"""A step of the truco ladder (R-5)."""
FlorBet = Literal["flor", "contraflor", "contraflor_al_resto"]
"""What a flor was played for (R-7)."""
FlorOutcome = Literal["alone", "quiero", "achico"]
"""How a flor was settled: one side sang alone, the other side accepted, or it gave in."""
HandEndReason = Literal["rounds", "no_quiero", "mazo", "game_over"]
"""Why a hand ended: its rounds were decided, a truco was refused, a side went to the mazo, or
a bet settled mid-hand reached ``points_to_win``."""
EnvidoCancelReason = Literal["flor"]
"""Why an envido was dropped unsettled: a flor was sung over it (R-7)."""


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
    # seats that saw the seña besides the actor: its partner always, opponents by chance
    sena_seen_by: tuple[int, ...] = ()


class RoundEnded(msgspec.Struct, frozen=True, tag="round_ended"):
    round: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None  # team, or None for parda
    next_leader: int


class EnvidoSettled(msgspec.Struct, frozen=True, tag="envido_settled"):
    chain: tuple[str, ...]
    querido: bool
    winner: int  # team
    points: int
    declarations: tuple[Declaration, ...]
    score: tuple[int, int]


class EnvidoCancelled(msgspec.Struct, frozen=True, tag="envido_cancelled"):
    chain: tuple[str, ...]
    reason: EnvidoCancelReason


class FlorSettled(msgspec.Struct, frozen=True, tag="flor_settled"):
    sung: tuple[int, ...]  # seats that sang flor, in order
    bet: FlorBet
    outcome: FlorOutcome
    winner: int  # team
    points: int
    declarations: tuple[Declaration, ...]
    score: tuple[int, int]


class TrucoSettled(msgspec.Struct, frozen=True, tag="truco_settled"):
    level: TrucoLevel
    querido: bool
    seat: int  # who answered


class HandEnded(msgspec.Struct, frozen=True, tag="hand_ended"):
    hand: int
    winner: int | None  # team; None when the game ended in the middle of the hand
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
