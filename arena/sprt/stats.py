"""The sequential probability ratio test on game pairs (pure statistics, docs/sprt.md).

Two bots play *pairs* of games with the seats swapped (each is mano in the first hand of one
game). A pair scores 0, 1 or 2 games for bot A (Truco games have no draws), so the results are
a trinomial: ``counts = (n0, n1, n2)`` pairs with A's per-game score 0, 1/2 and 1.

The test is the generalised SPRT that fishtest runs on pairs: H0 says A's expected score per
game is ``s0 = L(elo0)``, H1 says it is ``s1 = L(elo1)``, with the logistic Elo curve
``L(e) = 1 / (1 + 10^(-e/400))``. Under each hypothesis the pair-score distribution is the
maximum-likelihood one whose mean is fixed (the observed frequencies re-weighted by
``1 / (1 + lam * (a - s))``, with ``lam`` solving the secular equation); the log-likelihood
ratio of the two is compared against Wald's bounds ``log(beta / (1 - alpha))`` and
``log((1 - beta) / alpha)``. A pair count of zero is replaced by ``EPSILON`` first, as fishtest
does, so the two fits exist from the first pair on.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

PAIR_SCORES: Final = (0.0, 0.5, 1.0)
"""Bot A's score per game in a pair it won 0, 1 or 2 games of."""
EPSILON: Final = 1e-3
"""What a pair count of zero becomes before the fits (fishtest's regularisation)."""
ELO_LIMIT: Final = 1200.0
"""Elo estimates are clamped to +-this (one bot won every game so far)."""
Z95: Final = 1.959963984540054

Verdict = Literal["H0", "H1", "continue"]
Counts = tuple[int, int, int]


def logistic(elo: float) -> float:
    """The expected score per game of a bot ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of(score: float) -> float:
    """The Elo difference with expected score ``score``, clamped to +-:data:`ELO_LIMIT`."""
    low = logistic(-ELO_LIMIT)
    score = min(max(score, low), 1.0 - low)
    return -400.0 * math.log10(1.0 / score - 1.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds: accept H0 at or below the first, H1 at or above the second."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError("alpha and beta must be in (0, 1) with alpha + beta < 1")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def constrained_mle(probs: Sequence[float], target: float) -> tuple[float, ...]:
    """The distribution on :data:`PAIR_SCORES` of mean ``target`` nearest (in likelihood) to
    ``probs``: ``p_i / (1 + lam * (a_i - target))`` with ``lam`` the root of
    ``sum p_i (a_i - target) / (1 + lam (a_i - target)) = 0``, found by Newton's method kept
    inside the bracket where every weight is positive (the sum decreases in ``lam`` there)."""
    if not 0.0 < target < 1.0:
        raise ValueError("the target score must be in (0, 1)")
    if any(p <= 0.0 for p in probs):
        raise ValueError("every probability must be positive (regularise the counts first)")
    xs = [a - target for a in PAIR_SCORES]

    def secular(lam: float) -> float:
        return sum(p * x / (1.0 + lam * x) for p, x in zip(probs, xs, strict=True))

    lo, hi = -1.0 / max(xs), -1.0 / min(xs)
    lam = 0.0
    for _ in range(200):  # Newton's method, kept inside the bracket by bisection
        value = secular(lam)
        if value == 0.0:
            break
        if value > 0.0:
            lo = lam
        else:
            hi = lam
        slope = -sum(p * x * x / (1.0 + lam * x) ** 2 for p, x in zip(probs, xs, strict=True))
        step = lam - value / slope
        if not lo < step < hi:
            step = (lo + hi) / 2.0
        if abs(step - lam) <= 1e-15 * max(1.0, abs(lam)):
            lam = step
            break
        lam = step
    weights = [p / (1.0 + lam * x) for p, x in zip(probs, xs, strict=True)]
    total = sum(weights)
    return tuple(w / total for w in weights)


def regularized(counts: Counts) -> tuple[float, float, float]:
    n0, n1, n2 = (float(c) if c > 0 else EPSILON for c in counts)
    return n0, n1, n2


def llr(counts: Counts, elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``)."""
    if any(c < 0 for c in counts):
        raise ValueError("pair counts cannot be negative")
    if sum(counts) == 0:
        return 0.0
    reg = regularized(counts)
    n = sum(reg)
    probs = [c / n for c in reg]
    p0 = constrained_mle(probs, logistic(elo0))
    p1 = constrained_mle(probs, logistic(elo1))
    return n * sum(p * math.log(b / a) for p, a, b in zip(probs, p0, p1, strict=True))


def elo_estimate(counts: Counts) -> tuple[float, tuple[float, float]]:
    """Bot A's Elo advantage from the pairs and its 95% interval: a normal approximation on
    the mean pair score, whose variance the pairs estimate. When every pair so far scored the
    same ``a`` (no variance to estimate), the interval is the exact one for "all n pairs came
    out ``a``": that outcome has probability ``q`` with ``q^n >= 0.025``, and the mean score
    lies in ``[a q, a q + 1 - q]``."""
    pairs = sum(counts)
    if pairs == 0:
        return 0.0, (-ELO_LIMIT, ELO_LIMIT)
    mean = sum(a * c for a, c in zip(PAIR_SCORES, counts, strict=True)) / pairs
    if max(counts) == pairs:
        q = 0.025 ** (1.0 / pairs)
        return elo_of(mean), (elo_of(mean * q), elo_of(mean * q + 1.0 - q))
    var = sum(c * (a - mean) ** 2 for a, c in zip(PAIR_SCORES, counts, strict=True)) / pairs
    half = Z95 * math.sqrt(var / pairs)
    return elo_of(mean), (elo_of(mean - half), elo_of(mean + half))


def drift(probs: Sequence[float], elo0: float, elo1: float) -> float:
    """The expected LLR gained per pair when pairs follow ``probs`` (every entry positive):
    the GSPRT's fits converge to the constrained fits of ``probs`` itself."""
    p0 = constrained_mle(probs, logistic(elo0))
    p1 = constrained_mle(probs, logistic(elo1))
    return sum(p * math.log(b / a) for p, a, b in zip(probs, p0, p1, strict=True))


def chance_of_h1(
    probs: Sequence[float], elo0: float, elo1: float, alpha: float, beta: float
) -> float:
    """Wald's approximation of the chance that the test accepts H1 when pairs follow ``probs``:
    ``(1 - e^(h lo)) / (e^(h hi) - e^(h lo))`` with ``h != 0`` the root of
    ``E[(p1/p0)^h] = 1`` (``h = 1`` when ``probs`` is H0's own fit, giving ``alpha``)."""
    lo, hi = bounds(alpha, beta)
    p0 = constrained_mle(probs, logistic(elo0))
    p1 = constrained_mle(probs, logistic(elo1))
    steps = [math.log(b / a) for a, b in zip(p0, p1, strict=True)]
    step = sum(p * z for p, z in zip(probs, steps, strict=True))
    if abs(step) < 1e-12:
        return lo / (lo - hi)  # the zero-drift limit

    def excess(h: float) -> float:
        return sum(p * math.exp(h * z) for p, z in zip(probs, steps, strict=True)) - 1.0

    sign = 1.0 if step < 0 else -1.0  # the nonzero root lies opposite to the drift
    near, far = 0.0, sign
    while excess(far) <= 0.0:
        near, far = far, far * 2.0
    for _ in range(200):
        mid = (near + far) / 2.0
        if excess(mid) <= 0.0:
            near = mid
        else:
            far = mid
    h = (near + far) / 2.0
    return (1.0 - math.exp(h * lo)) / (math.exp(h * hi) - math.exp(h * lo))


def expected_pairs(
    probs: Sequence[float], elo0: float, elo1: float, alpha: float, beta: float
) -> float:
    """Wald's approximation of the expected number of pairs to a decision when pairs follow
    ``probs`` (every entry positive): the expected final LLR over the drift per pair. It
    ignores the overshoot of the bounds, and it is meaningless for a drift near zero."""
    lo, hi = bounds(alpha, beta)
    accept = chance_of_h1(probs, elo0, elo1, alpha, beta)
    return (accept * hi + (1.0 - accept) * lo) / drift(probs, elo0, elo1)


def pairs_if_all_won(elo0: float, elo1: float, alpha: float, beta: float) -> int:
    """How many pairs the test needs to accept H1 when bot A wins every game (exact)."""
    _, hi = bounds(alpha, beta)
    pairs = 1
    while llr((0, 0, pairs), elo0, elo1) < hi:
        pairs += 1
        if pairs > 1_000_000:
            raise ValueError("H1 is out of reach: elo1 is too high")
    return pairs


def simulate(
    probs: Sequence[float],
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    rng: random.Random,
    max_pairs: int = 1_000_000,
) -> tuple[str, int]:
    """One test on simulated pairs drawn from ``probs``: (decision or "inconclusive", pairs)."""
    test = Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    while test.pairs < max_pairs:
        decision = test.add(rng.choices((0, 1, 2), probs)[0])
        if decision != "continue":
            return decision, test.pairs
    return "inconclusive", test.pairs


@dataclass
class Sprt:
    """A running test: feed it pair scores (0, 1 or 2 games won by A) in order."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    counts: list[int] = field(default_factory=lambda: [0, 0, 0])

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be below elo1")
        self.bounds = bounds(self.alpha, self.beta)
        self.llr = 0.0

    @classmethod
    def resume(cls, counts: Counts, *, elo0: float, elo1: float, alpha: float, beta: float) -> Sprt:
        """The test after ``counts`` pairs (its LLR depends on the counts only)."""
        test = cls(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, counts=list(counts))
        test.llr = llr(test.count_tuple, elo0, elo1)
        return test

    def add(self, pair_score: int) -> Verdict:
        if pair_score not in (0, 1, 2):
            raise ValueError("a pair scores 0, 1 or 2")
        self.counts[pair_score] += 1
        self.llr = llr(self.count_tuple, self.elo0, self.elo1)
        return self.decision

    @property
    def count_tuple(self) -> Counts:
        return self.counts[0], self.counts[1], self.counts[2]

    @property
    def decision(self) -> Verdict:
        lo, hi = self.bounds
        if self.llr >= hi:
            return "H1"
        if self.llr <= lo:
            return "H0"
        return "continue"

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def wins(self) -> int:
        """Games won by bot A."""
        return self.counts[1] + 2 * self.counts[2]

    @property
    def losses(self) -> int:
        return 2 * self.pairs - self.wins
