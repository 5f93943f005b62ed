"""The game state: one flat msgspec Struct of immutable values.

Every field holds an int, a str, a bool or a tuple, so a shallow copy is a complete, independent
copy: ``apply`` copies the state (one C-level call) and sets fields on the copy, never on its
input. Treat a ``State`` as a value; it serializes to JSON with msgspec and decodes back equal.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.cards import Card
from engine.events import Event, FlorBet, Shown
from engine.rules import Rules

NO_SEAT = -1
TRUCO_LEVELS = ("", "truco", "retruco", "vale_cuatro")
# value of the hand when the truco ladder stands at an accepted level 0..3
TRUCO_VALUE = (1, 2, 3, 4)


class State(msgspec.Struct, kw_only=True):
    rules: Rules
    seed: int
    score: tuple[int, int]
    game_over: bool = False
    winner: int | None = None

    # the hand
    hand: int
    mano: int
    deal: tuple[tuple[Card, ...], ...]
    cards: tuple[tuple[Card, ...], ...]  # unplayed cards per seat
    round: int = 0  # 0, 1, 2
    leader: int  # seat that leads the current round
    turn: int  # seat whose card is due (cantos never use up a turn)
    trick: tuple[tuple[int, Card], ...] = ()  # plays of the current round
    results: tuple[int, ...] = ()  # per finished round: winning team, or -1 for parda

    # truco ladder: accepted level, the team that may raise, the open question
    truco: int = 0
    truco_team: int = NO_SEAT
    truco_pending: int = 0
    truco_singer: int = NO_SEAT
    truco_answerer: int = NO_SEAT

    # envido
    envido_chain: tuple[str, ...] = ()
    envido_singer: int = NO_SEAT
    envido_answerer: int = NO_SEAT

    # flor
    flor_holders: tuple[int, ...] = ()
    flor_sung: tuple[int, ...] = ()
    flor_queue: tuple[int, ...] = ()  # seats with flor still to speak
    flor_first_opp: int = NO_SEAT  # the opponent who answers the first flor
    flor_bet: FlorBet | Literal[""] = ""
    flor_bet_seat: int = NO_SEAT
    flor_answered: bool = False
    flor_decision: Literal["", "quiero", "achico"] = ""
    flor_decider: int = NO_SEAT
    flor_answerer: int = NO_SEAT  # who answers an open contraflor bet
    flor_interrupt: int = NO_SEAT  # seat that must sing its flor because an envido was sung

    proofs: tuple[Shown, ...] = ()  # shown at the hand's end
    log: tuple[Event, ...] = ()  # this hand's events after its deal
    previous: tuple[Event, ...] = ()  # the last finished hand's events, its end included

    def clone(self) -> State:
        """A shallow copy; complete, since every field holds an immutable value."""
        return self.__copy__()  # type: ignore[attr-defined, no-any-return]

    @property
    def players(self) -> int:
        return len(self.deal)

    @property
    def to_act(self) -> int:
        """The seat that must act now: an open question's answerer, else the card's owner."""
        if self.game_over:
            return NO_SEAT
        if self.flor_queue:
            return self.flor_queue[0]
        if self.flor_answerer >= 0:
            return self.flor_answerer
        if self.flor_interrupt >= 0:
            return self.flor_interrupt
        if self.envido_answerer >= 0:
            return self.envido_answerer
        if self.truco_answerer >= 0:
            return self.truco_answerer
        return self.turn


def seats_after(seat: int, players: int) -> list[int]:
    """Every other seat, in playing order after ``seat``."""
    return [(seat + i) % players for i in range(1, players)]


def order_from(first: int, players: int) -> list[int]:
    return [(first + i) % players for i in range(players)]
