"""What the luck model reads of one seat's three cards: their strengths, envido and flor.

Every three-card hand of the deck is described once, at import, in a table keyed by its set of
cards, so a deal's features cost one dictionary lookup a seat.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Final, NamedTuple

from engine.cards import DECK, STRENGTH, Card, envido_points, flor_points, has_flor


class HandInfo(NamedTuple):
    """One seat's cards as the model sees them: strengths from the weakest (R-1), envido
    points as if flor were off (R-6), whether it is a flor and its points (R-7)."""

    low: int
    mid: int
    high: int
    envido: int
    flor: bool
    flor_points: int
    strengths: tuple[int, int, int]  # weakest first


def _describe(cards: Sequence[Card]) -> HandInfo:
    low, mid, high = sorted(STRENGTH[c] for c in cards)
    flor = has_flor(cards)
    points = flor_points(cards) if flor else 0
    return HandInfo(low, mid, high, envido_points(cards), flor, points, (low, mid, high))


HANDS: Final[dict[frozenset[Card], HandInfo]] = {
    frozenset(cards): _describe(cards) for cards in itertools.combinations(DECK, 3)
}
"""Every hand of three cards, keyed by its set of cards."""


def hand_info(cards: Sequence[Card]) -> HandInfo:
    """The description of a seat's three cards (in any order)."""
    return HANDS[frozenset(cards)]
