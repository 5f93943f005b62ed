"""The SPRT on luck-adjusted pair scores (arena/sprt/adjusted.py): the LLR against a hand
computation, the prior that keeps a few pairs from deciding, and the realised error rates of
simulated tests at the two hypotheses, on normal and on skewed score distributions."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from arena.sprt.adjusted import (
    PRIOR_PAIRS,
    PRIOR_VARIANCE,
    AdjustedSprt,
    adjusted_estimate,
    adjusted_llr,
)
from arena.sprt.run import PairTest
from arena.sprt.stats import logistic


def test_llr_by_hand() -> None:
    scores = [0.7, 0.4, 0.55, 0.61, 0.3]
    n, total, squares = len(scores), sum(scores), sum(x * x for x in scores)
    mean = total / n
    variance = (sum((x - mean) ** 2 for x in scores) + PRIOR_PAIRS * PRIOR_VARIANCE) / (
        n + PRIOR_PAIRS
    )
    s0, s1 = logistic(0), logistic(50)
    expected = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert adjusted_llr(n, total, squares, 0, 50) == pytest.approx(expected, rel=1e-12)
    test = AdjustedSprt(elo0=0, elo1=50)
    for x in scores:
        test.add(x)
    assert test.llr == pytest.approx(expected, rel=1e-12)
    elo, (lo, hi) = test.estimate
    assert lo < elo < hi and elo == pytest.approx(-400 * math.log10(1 / mean - 1))
    assert adjusted_estimate(0, 0.0, 0.0)[0] == 0.0


def test_a_few_equal_pairs_cannot_decide_on_their_own_zero_variance() -> None:
    """Three pairs at the same score have no spread of their own: the prior's keeps the LLR
    small (without it the LLR would be infinite)."""
    test = AdjustedSprt(elo0=0, elo1=10)
    for _ in range(3):
        assert test.add(0.9) == "continue"
    with pytest.raises(ValueError):
        test.add(math.nan)
    with pytest.raises(ValueError):
        AdjustedSprt(elo0=10, elo1=10)


Draw = Callable[[random.Random, float], float]


def normal(rng: random.Random, mean: float) -> float:
    return rng.gauss(mean, 0.19)  # equal heuristic bots' adjusted pairs spread about this much


def skewed(rng: random.Random, mean: float) -> float:
    """Mostly near the mean, sometimes far below (a lucky game lost): mean ``mean``."""
    return mean + (0.1 if rng.random() < 0.8 else -0.4) + rng.gauss(0.0, 0.1)


@pytest.mark.parametrize("draw", [normal, skewed], ids=["normal", "skewed"])
def test_realised_error_rates_hold_at_both_hypotheses(draw: Draw) -> None:
    """500 tests at elo0 accept H1 at most alpha of the time, and 500 at elo1 accept H0 at
    most beta (each within 3 standard errors)."""
    rng = random.Random(f"adjusted/{draw.__name__}")
    elo0, elo1, alpha, beta, runs = 0.0, 50.0, 0.05, 0.05, 500
    wrong = {"H1": 0, "H0": 0}
    for truth, error in ((logistic(elo0), "H1"), (logistic(elo1), "H0")):
        for _ in range(runs):
            test = AdjustedSprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
            verdict = "continue"
            while verdict == "continue" and test.pairs < 100_000:
                verdict = test.add(draw(rng, truth))
            wrong[error] += verdict == error
    bound = alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    assert wrong["H1"] / runs <= bound and wrong["H0"] / runs <= bound
    assert wrong["H1"] + wrong["H0"] > 0  # the tests do err sometimes: the check could fail


def test_the_chosen_statistic_decides() -> None:
    """Pairs won 1-1 with the better cards each time: the raw test sees even games, the
    adjusted one a bot worse than its results."""
    raw, adjusted = PairTest(elo1=50, statistic="raw"), PairTest(elo1=50, statistic="adjusted")
    for test in (raw, adjusted):
        for _ in range(400):
            verdict = test.add(1, 0.3)
            if verdict != "continue":
                break
        assert test.wins == test.losses == test.pairs
    assert adjusted.decision == "H0" and adjusted.pairs < raw.pairs
    assert adjusted.estimate[0] < raw.estimate[0] == 0.0
