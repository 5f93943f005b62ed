"""The ladder's words: a bot as the matchmaker sees it, a chosen match and why, the rules the
matchmaker keeps. Pure data shared by the matchmaker, the workflow that stores its picks, the
API and pages that show them, and the simulation benchmark."""

from __future__ import annotations

import math
from typing import Literal

import msgspec

Z95 = 1.959963984540054
"""The 95% interval's half width in standard errors."""
PLACEMENT_HALFWIDTH = 100.0
"""A bot is placed when its 95% interval is narrower than +-this many Elo."""
NEW_BOT_HALFWIDTH = 400.0
"""The half width the matchmaker assumes for a bot that has no rated ladder match yet."""

LadderPool = Literal["1v1", "2v2-individual"]
"""The rating pools that have a ladder: 1v1 and individual 2v2 (a bot a seat)."""
LADDER_POOLS: tuple[LadderPool, ...] = ("1v1", "2v2-individual")

PickReason = Literal["placing", "top", "uncertain"]
"""Why a match was chosen: a bot in it is still placing, it orders the top of the table, or it
is the most informative match left for bots whose intervals are wide."""


class LadderBot(msgspec.Struct, frozen=True):
    """One bot on a ladder, as the matchmaker reads it: the pool's fitted rating and its 95%
    interval half width (Elo; :data:`NEW_BOT_HALFWIDTH` and the pool's mean before its first
    rated match), whether it may be given a match now (not playing, not paused, under its
    hourly cap), and its owner (bots of one owner never meet; bots of linked accounts count as
    one owner's)."""

    bot_id: int
    owner_id: int
    rating: float
    halfwidth: float
    available: bool = True
    pair_limit: int = 0
    """The most meetings today of a pair with this bot (0: the rules' ``pair_per_day``); a
    bot still placing in a small pool has more (:mod:`services.ladder.placement`)."""

    @property
    def sigma(self) -> float:
        """The standard error of the rating, in Elo."""
        return self.halfwidth / Z95

    @property
    def placed(self) -> bool:
        return self.halfwidth < PLACEMENT_HALFWIDTH


class Pick(msgspec.Struct, frozen=True):
    """A chosen ladder match: the bots of side a and of side b (one each in 1v1; partners in
    individual 2v2, seated a1, b1, a2, b2), the matchmaker's value for it (expected variance
    removed, weighted) and its reason, logged with the bots' figures."""

    side_a: tuple[int, ...]
    side_b: tuple[int, ...]
    value: float
    reason: PickReason
    detail: str

    @property
    def seats(self) -> tuple[int, ...]:
        """The bots in slot order (side of slot k: k % 2)."""
        if len(self.side_a) == 1:
            return (self.side_a[0], self.side_b[0])
        return (self.side_a[0], self.side_b[0], self.side_a[1], self.side_b[1])


class MatchmakerRules(msgspec.Struct, frozen=True):
    """What the matchmaker keeps to (settings of the platform; the defaults are the
    platform's). ``slots``: ladder matches it may start now (the global cap less those in
    flight); ``pair_per_day``: how often two bots may meet in a ladder day; ``top``: how many
    places at the top of the table it works to order; ``window``: in 1v1, how many places
    apart in rating order two bots may be to meet (a match between bots far apart teaches
    little, and scoring only near pairs keeps a tick ``O(n window)``). 48, not fewer: with 16
    places the placement simulation (20 pools) placed a new bot no sooner (a median of 52
    matches against 53) but needed 12,280 matches for a sure top instead of 6,580: the top's
    bots ran out of informative opponents within reach."""

    slots: int
    pair_per_day: int = 3
    top: int = 10
    placing_weight: float = 1.0
    top_weight: float = 20.0
    window: int = 48
    linked: frozenset[tuple[int, int]] = frozenset()
    """Pairs of owners (lower id first) whose bots never meet: linked accounts
    (:mod:`services.ladder.links`); one owner's bots never meet either."""


def placement_progress(matches: int, halfwidth: float) -> tuple[int, int]:
    """``(matches played, about how many a placement takes)`` for a bot still placing: the
    matches it has plus those its interval still needs at even odds (the interval narrows as
    one over the square root of the information; each match at even odds adds a quarter of a
    logit squared of it)."""
    if halfwidth < PLACEMENT_HALFWIDTH or matches == 0:
        return matches, max(matches, even_matches_to_place())
    needed = matches * ((halfwidth / PLACEMENT_HALFWIDTH) ** 2 - 1)
    return matches, matches + max(1, math.ceil(needed))


def even_matches_to_place(prior_games: float = 1.0, players_a_side: int = 1) -> int:
    """The information bound: how many matches at even odds (p = 0.5) against opponents of
    known rating a new bot needs to be placed, with the fit's one virtual draw as its prior.
    A match gives ``q^2 p (1 - p) / k^2`` of information on one bot of a ``k``-bot side
    (``q = ln 10 / 400``); placement needs ``(Z95 / PLACEMENT_HALFWIDTH)^2``."""
    q = math.log(10) / 400
    per_match = q * q * 0.25 / (players_a_side * players_a_side)
    needed = (Z95 / PLACEMENT_HALFWIDTH) ** 2
    return max(0, math.ceil(needed / per_match - prior_games))
