"""The 95% intervals contain the true strength about 95% of the time, on simulated bots of
known strength (docs/ratings.md quotes the figures this test prints with ``-s``).

Each run draws 40 bots with true strengths from N(1500, 200 Elo), plays random games between
them by the model's own probabilities (random pairs in 1v1, random partnerships in individual
2v2) and fits; every bot's interval either contains its true strength or not. The true
strengths are the Elo ratings handed to the fit, so the anchor (mean of the fit = mean of the
true strengths) is the one the truth itself satisfies.

Tolerance: with N intervals the hit rate of correct 95% intervals has binomial standard
deviation sqrt(0.95 * 0.05 / N), 0.0028 for the 6,000 intervals of 1v1 and 0.0039 for the
3,200 of 2v2. We allow 3.5 of them (a correct fit fails by chance about once in 2,000 seeds;
intervals of one run share the anchor and are slightly correlated, which the margin absorbs).
Intervals 10% too narrow would cover 92.2% and fail; 10% too wide, 96.9%, fail too. Each bot
plays about 100 games (1v1) or 200 (2v2).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from services.domain.rating_fit import GameTable, fit_ratings

BOTS, SPREAD = 40, 200.0


def coverage(team: int, games: int, runs: int, seed: int) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    hits = total = 0
    for _ in range(runs):
        true = rng.normal(1500.0, SPREAD, BOTS)
        seats = np.argsort(rng.random((games, BOTS)), axis=1)[:, : 2 * team]
        side_a, side_b = seats[:, :team], seats[:, team:]
        diff = true[side_a].mean(axis=1) - true[side_b].mean(axis=1)
        wins = rng.random(games) < 1 / (1 + 10 ** (-diff / 400))
        table = GameTable(tuple(range(BOTS)), side_a, side_b, wins.astype(np.float64))
        fit = fit_ratings(table, {bot: float(true[bot]) for bot in range(BOTS)})
        for bot in range(BOTS):
            hits += fit[bot].low <= true[bot] <= fit[bot].high
            total += 1
    return hits / total, total


@pytest.mark.parametrize(
    ("team", "games", "runs"),
    [(1, 2000, 150), (2, 2000, 80)],
    ids=["1v1", "2v2-individual"],
)
def test_intervals_cover_the_true_strength_about_95_percent_of_the_time(
    team: int, games: int, runs: int
) -> None:
    rate, total = coverage(team, games, runs, seed=20261201)
    spread = math.sqrt(0.95 * 0.05 / total)
    print(f"team of {team}: {rate:.4f} of {total} intervals (binomial sd {spread:.4f})")
    assert abs(rate - 0.95) <= 3.5 * spread
