"""The SPRT on luck-adjusted pair scores (docs/sprt.md, docs/luck.md).

A pair's adjusted score is bot A's mean, over the pair's two games, of (1 for a game won, 0
for a game lost) minus its luck in that game's chance (:mod:`arena.luck`). The luck has mean
zero whatever the bots do, so the adjusted score has the same mean as the raw one (A's
expected score per game) and the same hypotheses apply: H0 ``s0 = L(elo0)``, H1 ``s1 =
L(elo1)``. Its variance is much smaller, and the test needs fewer pairs for the same error
rates.

The scores are no longer 0, 1/2 or 1, so the trinomial model of :mod:`arena.sprt.stats` does
not apply. The log-likelihood ratio is the normal approximation of the generalised SPRT that
fishtest used on pentanomial counts (``LLR_alt2``): with ``N`` pairs of mean ``m`` and
variance ``v``,

    LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v),

against Wald's bounds. The variance is the pairs' own, shrunk towards :data:`PRIOR_VARIANCE`
(the variance of a pair of two coin-flip games, larger than any adjusted pair's) with the
weight of :data:`PRIOR_PAIRS` pairs, so the first few pairs cannot decide on a variance that
happens to look small. The realised error rates are measured by the luck bench
(``bench/luck.py``) and by ``tests/arena/sprt/test_adjusted.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from arena.sprt.stats import Z95, Verdict, bounds, elo_of, logistic

PRIOR_VARIANCE: Final = 0.125
"""The variance of a pair's score when both games are coin flips: the shrinkage target."""
PRIOR_PAIRS: Final = 4.0
"""How many pairs the prior variance weighs as."""


def pooled_variance(pairs: int, total: float, squares: float) -> float:
    """The pairs' variance shrunk towards :data:`PRIOR_VARIANCE`."""
    mean = total / pairs if pairs else 0.0
    spread = max(squares - pairs * mean * mean, 0.0)
    return (spread + PRIOR_PAIRS * PRIOR_VARIANCE) / (pairs + PRIOR_PAIRS)


def adjusted_llr(pairs: int, total: float, squares: float, elo0: float, elo1: float) -> float:
    """The LLR after ``pairs`` adjusted pair scores of sum ``total`` and sum of squares
    ``squares``."""
    if pairs == 0:
        return 0.0
    s0, s1 = logistic(elo0), logistic(elo1)
    mean = total / pairs
    return (
        pairs * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * pooled_variance(pairs, total, squares))
    )


def adjusted_estimate(
    pairs: int, total: float, squares: float
) -> tuple[float, tuple[float, float]]:
    """Bot A's Elo advantage from the adjusted pair scores and its 95% interval (normal, with
    the shrunk variance)."""
    if pairs == 0:
        return 0.0, (elo_of(0.0), elo_of(1.0))
    mean = total / pairs
    half = Z95 * math.sqrt(pooled_variance(pairs, total, squares) / pairs)
    return elo_of(mean), (elo_of(mean - half), elo_of(mean + half))


@dataclass
class AdjustedSprt:
    """A running test on adjusted pair scores: feed them in order with :meth:`add`."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    pairs: int = 0
    total: float = 0.0
    squares: float = 0.0

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be below elo1")
        self.bounds = bounds(self.alpha, self.beta)

    def add(self, score: float) -> Verdict:
        if not math.isfinite(score):
            raise ValueError("an adjusted pair score must be a finite number")
        self.pairs += 1
        self.total += score
        self.squares += score * score
        return self.decision

    @property
    def llr(self) -> float:
        return adjusted_llr(self.pairs, self.total, self.squares, self.elo0, self.elo1)

    @property
    def decision(self) -> Verdict:
        lo, hi = self.bounds
        value = self.llr
        if value >= hi:
            return "H1"
        if value <= lo:
            return "H0"
        return "continue"

    @property
    def estimate(self) -> tuple[float, tuple[float, float]]:
        return adjusted_estimate(self.pairs, self.total, self.squares)
