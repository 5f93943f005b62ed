"""The SPRT's statistics (arena/sprt/stats.py) against hand computations and simulated tests of
known truth: its error rates are alpha and beta, its sample sizes what the model predicts."""

from __future__ import annotations

import math
import random

import pytest

from arena.sprt.stats import (
    PAIR_SCORES,
    Sprt,
    bounds,
    chance_of_h1,
    constrained_mle,
    elo_estimate,
    elo_of,
    expected_pairs,
    llr,
    logistic,
    pairs_if_all_won,
    simulate,
)


def independent_pairs(elo: float) -> tuple[float, float, float]:
    """Pair-score distribution when both games are independent with A's expected score L(elo)."""
    s = logistic(elo)
    return (1 - s) ** 2, 2 * s * (1 - s), s * s


def quadratic_mle(probs: tuple[float, float, float], target: float) -> list[float]:
    """The constrained fit by hand: on three points the secular equation times the product of
    the denominators is a quadratic in lam; take its root where every weight is positive."""
    x = [a - target for a in PAIR_SCORES]
    p = probs
    a = x[0] * x[1] * x[2] * sum(p)
    b = p[0] * x[0] * (x[1] + x[2]) + p[1] * x[1] * (x[0] + x[2]) + p[2] * x[2] * (x[0] + x[1])
    c = sum(pi * xi for pi, xi in zip(p, x, strict=True))
    if a == 0:  # target 0.5: the middle point has x = 0 and the equation is linear
        roots = [-c / b]
    else:
        roots = [(-b + sign * math.sqrt(b * b - 4 * a * c)) / (2 * a) for sign in (1, -1)]
    (lam,) = [r for r in roots if all(1 + r * xi > 0 for xi in x)]
    return [pi / (1 + lam * xi) for pi, xi in zip(p, x, strict=True)]


def test_bounds_are_walds() -> None:
    assert bounds(0.05, 0.05) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert bounds(0.05, 0.05)[1] == pytest.approx(2.944438979)
    with pytest.raises(ValueError):
        bounds(0.6, 0.5)


def test_logistic_elo_round_trips() -> None:
    assert logistic(0) == 0.5
    assert logistic(400) == pytest.approx(10 / 11)
    assert elo_of(logistic(123.0)) == pytest.approx(123.0)


@pytest.mark.parametrize("counts", [(10, 20, 30), (7, 50, 3), (40, 1, 2)])
@pytest.mark.parametrize("elos", [(0.0, 10.0), (-20.0, 50.0)])
def test_llr_matches_the_hand_computed_fits(
    counts: tuple[int, int, int], elos: tuple[float, float]
) -> None:
    n = sum(counts)
    probs = (counts[0] / n, counts[1] / n, counts[2] / n)
    fits = [quadratic_mle(probs, logistic(e)) for e in elos]
    assert sum(a * f for a, f in zip(PAIR_SCORES, fits[0], strict=True)) == pytest.approx(
        logistic(elos[0])
    )
    assert constrained_mle(probs, logistic(elos[1])) == pytest.approx(fits[1], rel=1e-9)
    by_hand = sum(c * math.log(f1 / f0) for c, f0, f1 in zip(counts, *fits, strict=True))
    assert llr(counts, *elos) == pytest.approx(by_hand, rel=1e-9)


def test_llr_is_zero_before_any_pair_and_signed_by_the_data() -> None:
    assert llr((0, 0, 0), 0, 10) == 0.0
    assert llr((10, 80, 30), 0, 10) > 0 > llr((30, 80, 10), 0, 10)
    # at a mean score of exactly s0 the H0 fit is the data itself: LLR = -N KL(data || H1 fit)
    fit1 = quadratic_mle((0.25, 0.5, 0.25), logistic(50))
    kl = sum(p * math.log(p / f) for p, f in zip((0.25, 0.5, 0.25), fit1, strict=True))
    assert llr((25, 50, 25), 0, 50) == pytest.approx(-100 * kl)


def test_a_bot_that_wins_every_game_needs_a_known_number_of_pairs() -> None:
    needed = pairs_if_all_won(0, 50, 0.05, 0.05)
    test = Sprt(elo0=0, elo1=50)
    decisions = [test.add(2) for _ in range(needed)]
    assert decisions[-1] == "H1" and set(decisions[:-1]) == {"continue"}
    assert (test.wins, test.losses) == (2 * needed, 0)


def test_elo_estimate_and_interval() -> None:
    elo, (lo, hi) = elo_estimate((25, 50, 25))
    assert elo == pytest.approx(0.0, abs=1e-9) and lo == pytest.approx(-hi)
    # mean pair score 0.5, per-pair variance 0.125: half width 1.96 * sqrt(0.125 / 100)
    assert hi == pytest.approx(elo_of(0.5 + 1.959964 * math.sqrt(0.125 / 100)), rel=1e-5)
    elo, (lo, hi) = elo_estimate((0, 0, 23))
    assert hi == elo == pytest.approx(1200) and lo == pytest.approx(elo_of(0.025 ** (1 / 23)))


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        Sprt(elo0=10, elo1=0)
    with pytest.raises(ValueError):
        Sprt().add(3)


def test_wald_chance_of_h1_is_alpha_at_elo0_and_one_minus_beta_at_elo1() -> None:
    assert chance_of_h1(independent_pairs(0), 0, 50, 0.05, 0.1) == pytest.approx(0.05)
    assert chance_of_h1(independent_pairs(50), 0, 50, 0.05, 0.1) == pytest.approx(0.9)


RUNS = 500


@pytest.mark.parametrize(
    ("true_elo", "wrong", "rate"), [(0.0, "H1", 0.05), (100.0, "H0", 0.05)], ids=["elo0", "elo1"]
)
def test_simulated_error_rates_are_alpha_and_beta(true_elo: float, wrong: str, rate: float) -> None:
    rng = random.Random(20261201)
    probs = independent_pairs(true_elo)
    results = [simulate(probs, 0, 100, 0.05, 0.05, rng) for _ in range(RUNS)]
    errors = sum(decision == wrong for decision, _ in results) / RUNS
    sigma = math.sqrt(rate * (1 - rate) / RUNS)  # ~0.0097
    assert abs(errors - rate) < 3 * sigma, errors
    mean_pairs = sum(pairs for _, pairs in results) / RUNS
    predicted = expected_pairs(probs, 0, 100, 0.05, 0.05)
    assert abs(mean_pairs - predicted) < 0.15 * predicted, (mean_pairs, predicted)


def test_correlated_pairs_keep_the_error_rate() -> None:
    """Mirrored deals make the two games of a pair correlated (more 1-1 pairs); the pair model
    absorbs that: still ~alpha false H1 at elo0, and fewer pairs than independent games."""
    rng = random.Random(7)
    s = logistic(0)
    probs = (0.15, 0.7, 0.15)  # mean 0.5, variance 0.075 < 0.125
    assert sum(a * p for a, p in zip(PAIR_SCORES, probs, strict=True)) == s
    results = [simulate(probs, 0, 100, 0.05, 0.05, rng) for _ in range(RUNS)]
    errors = sum(decision == "H1" for decision, _ in results) / RUNS
    assert errors < 0.05 + 3 * 0.0097, errors
    assert expected_pairs(probs, 0, 100, 0.05, 0.05) < expected_pairs(
        independent_pairs(0), 0, 100, 0.05, 0.05
    )


def test_the_docs_prediction_for_two_copies_of_one_bot_at_15_points() -> None:
    """docs/sprt.md's 15-point row (the platform test's prediction) is Wald's for its
    symmetric distribution: about 131 pairs, and H1 only with chance alpha."""
    probs = (0.253, 0.494, 0.253)
    assert round(expected_pairs(probs, 0, 50, 0.05, 0.05)) == 131
    assert chance_of_h1(probs, 0, 50, 0.05, 0.05) == pytest.approx(0.05, abs=1e-6)
