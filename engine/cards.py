"""The Spanish 40-card deck: notation, strength (R-1), envido and flor points (R-6, R-7).

A card is its notation string, rank then suit letter: ``"1E"``, ``"7O"``, ``"12C"``. Strings keep
cards readable everywhere (API, replays, scenarios) and make every table lookup one dict access.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.errors import CardError

Card = str

SUITS = ("E", "B", "O", "C")  # espada, basto, oro, copa
SUIT_NAMES = {"E": "espada", "B": "basto", "O": "oro", "C": "copa"}
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)

DECK: tuple[Card, ...] = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS)


def _strength(rank: int, suit: str) -> int:
    """Higher is stronger; equal numbers are equal strength (parda)."""
    special = {(1, "E"): 14, (1, "B"): 13, (7, "E"): 12, (7, "O"): 11}
    if (rank, suit) in special:
        return special[(rank, suit)]
    by_rank = {3: 10, 2: 9, 1: 8, 12: 7, 11: 6, 10: 5, 7: 4, 6: 3, 5: 2, 4: 1}
    return by_rank[rank]


STRENGTH: dict[Card, int] = {card: _strength(int(card[:-1]), card[-1]) for card in DECK}
SUIT: dict[Card, str] = {card: card[-1] for card in DECK}
RANK: dict[Card, int] = {card: int(card[:-1]) for card in DECK}
# envido value: the rank for 1-7, 0 for the figures 10, 11, 12
ENVIDO_VALUE: dict[Card, int] = {card: (r if r <= 7 else 0) for card, r in RANK.items()}


def parse_card(text: object) -> Card:
    """Validate card notation and return the canonical card, or raise :class:`CardError`."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string like '7O', not {type(text).__name__}")
    if text in STRENGTH:
        return text
    card = text.strip().upper()
    if card in STRENGTH:
        raise CardError(f"bad card {text!r}: write it exactly as {card!r} (rank, then E B O C)")
    suit = card[-1:] if card else ""
    if suit not in SUITS:
        raise CardError(f"bad card {text!r}: the suit must be one of E, B, O, C (e.g. '7O')")
    raise CardError(f"bad card {text!r}: the rank must be 1-7, 10, 11 or 12 (e.g. '12C')")


def strength(card: Card) -> int:
    return STRENGTH[card]


def _envido(cards: Sequence[Card]) -> int:
    by_suit: dict[str, list[int]] = {}
    for card in cards:
        by_suit.setdefault(SUIT[card], []).append(ENVIDO_VALUE[card])
    best = 0
    for values in by_suit.values():
        if len(values) >= 2:
            values.sort(reverse=True)
            best = max(best, 20 + values[0] + values[1])
        else:
            best = max(best, values[0])
    return best


def _flor(cards: Sequence[Card]) -> int:
    return 20 + sum(ENVIDO_VALUE[c] for c in cards)


def envido_points(cards: Sequence[Card]) -> int:
    """Envido points of a hand as if flor were off: three of a suit count best two + 20."""
    return _envido(cards)


def has_flor(cards: Sequence[Card]) -> bool:
    return len(cards) == 3 and SUIT[cards[0]] == SUIT[cards[1]] == SUIT[cards[2]]


def flor_points(cards: Sequence[Card]) -> int:
    """Flor points: the three values + 20 (R-7). Only meaningful when ``has_flor``."""
    return _flor(cards)


def envido_proof(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The cards that prove a hand's envido points: the best pair of a suit, or the best card."""
    best: tuple[int, tuple[Card, ...]] = (-1, ())
    for i, a in enumerate(cards):
        if ENVIDO_VALUE[a] > best[0]:
            best = (ENVIDO_VALUE[a], (a,))
        for b in cards[i + 1 :]:
            if SUIT[a] == SUIT[b]:
                points = 20 + ENVIDO_VALUE[a] + ENVIDO_VALUE[b]
                if points > best[0]:
                    best = (points, (a, b))
    return best[1]
