"""A canonical play of the cards: who would win a hand's rounds if nobody sang anything.

The luck model needs, beyond each hand's own strength, how the hands meet: three good cards
against three good cards, a 1 of espada alone against a row of threes. It plays the hand out
once with a plain, sensible card policy (the built-in heuristic's, ``arena/bots/hand.py``, on
the cards alone: lead round 1 with the middle card and later with the strongest; follow with
the cheapest card that wins the round, else the weakest; a tie only when it decides), on
strengths only, by positions counted from the mano (team 0 here is the mano's team). Real bots
play otherwise; the model's coefficients weigh how much this outcome predicts what happens.
"""

from __future__ import annotations

from functools import lru_cache

from engine.scoring import hand_decided

Strengths = tuple[int, ...]
"""One seat's card strengths, weakest first."""


def _follow(cards: list[int], ours: int, theirs: int, won_first: bool, last: bool) -> int:
    """The card a seat adds to a round: low when its team wins it already, else the cheapest
    winner, else a tie when a tie decides (its team won round 1, or it is round 3), else the
    weakest."""
    if ours > theirs:
        return cards[0]
    for card in cards:
        if card > theirs:
            return card
    if theirs in cards and (won_first or last):
        return theirs
    return cards[0]


@lru_cache(maxsize=1 << 18)
def canonical_play(hands: tuple[Strengths, ...]) -> tuple[int, int]:
    """``hands[p]`` are the strengths of the seat at position ``p`` from the mano. Returns the
    team (0: the mano's, 1: the other) that wins the hand's rounds, and the rounds won by team
    0 minus those won by team 1."""
    seats = len(hands)
    held = [list(h) for h in hands]
    leader = 0
    results: list[int] = []
    for round_ in range(3):
        best = [0, 0]
        first_at = [-1, -1]
        for step in range(seats):
            pos = (leader + step) % seats
            team = pos % 2
            cards = held[pos]
            if step == 0:
                card = cards[1] if round_ == 0 and len(cards) == 3 else cards[-1]
            else:
                won_first = results[:1] == [team]
                card = _follow(cards, best[team], best[1 - team], won_first, round_ == 2)
            cards.remove(card)
            if card > best[team]:
                best[team], first_at[team] = card, pos
        if best[0] == best[1]:
            results.append(-1)  # parda: the same seat leads again
        else:
            winner = 0 if best[0] > best[1] else 1
            results.append(winner)
            leader = first_at[winner]
        decided = hand_decided(results, 0)
        if decided is not None:
            return decided, results.count(0) - results.count(1)
    raise AssertionError("three rounds always decide a hand")  # pragma: no cover
