"""Seeded deals (R-2): each hand's cards come from a PRNG keyed by (seed, hand number).

Keying by hand number, not by a PRNG carried through the game, keeps the state a plain value:
the same seed deals the same cards hand by hand. The match runner gives every game its own seed
(or, with mirrored deals, one seed to both games of a pair: ``arena.game.deals``). The shuffle is a Fisher-Yates over ``getrandbits`` so it does
not depend on how a Python version implements ``random.shuffle``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.cards import DECK, Card, parse_card
from engine.errors import CardError


def _rng(seed: int, *parts: object) -> random.Random:
    key = "/".join(str(p) for p in (seed, *parts))
    return random.Random(key)


def _below(rng: random.Random, n: int) -> int:
    bits = n.bit_length()
    while True:
        value = rng.getrandbits(bits)
        if value < n:
            return value


def deal_for(seed: int, hand: int, players: int) -> tuple[tuple[Card, ...], ...]:
    """The cards of hand number ``hand`` (0-based): three per seat."""
    rng = _rng(seed, "deal", hand)
    deck = list(DECK)
    needed = 3 * players
    top = len(deck)
    for i in range(needed):
        j = i + _below(rng, top - i)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(tuple(deck[3 * s : 3 * s + 3]) for s in range(players))


def sena_rng(seed: int, hand: int, index: int) -> random.Random:
    """The PRNG that decides which opponents see the seña of action ``index`` of a hand."""
    return _rng(seed, "sena", hand, index)


def parse_deal(deal: Sequence[Sequence[object]], players: int) -> tuple[tuple[Card, ...], ...]:
    """Validate a given deal: one list of three distinct cards per seat."""
    if len(deal) != players:
        raise CardError(f"a deal needs {players} hands of 3 cards, got {len(deal)} hands")
    seen: set[Card] = set()
    result = []
    for seat, hand in enumerate(deal):
        cards = tuple(parse_card(c) for c in hand)
        if len(cards) != 3:
            raise CardError(f"seat {seat} must get 3 cards, got {len(cards)}")
        for card in cards:
            if card in seen:
                raise CardError(f"card {card} is dealt twice")
            seen.add(card)
        result.append(cards)
    return tuple(result)
