"""The rating fit on luck-adjusted outcomes (services/domain/adjusted_fit.py): only one-game
matches with luck figures are adjusted; on a pool whose outcomes are a bot's strength plus luck,
the adjusted estimates land nearer the truth with narrower intervals that still cover it, and
without adjusted games the adjusted fit is the public one."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from services.domain.adjusted_fit import adjusted_scores, dispersion
from services.domain.rating_fit import Game, GameTable, fit_ratings


def test_only_one_game_matches_with_luck_are_adjusted() -> None:
    scores, mask = adjusted_scores([1.0, 0.0, 1.0, 0.5], [0.25, -0.5, 0.1, None], [1, 1, 3, 1])
    assert scores.tolist() == [0.75, 0.5, 1.0, 0.5]
    assert mask.tolist() == [True, True, False, False]


def test_dispersion_is_pearsons_and_bounded() -> None:
    chance = np.array([0.5, 0.5, 0.8])
    mask = np.array([True, True, False])
    exact = dispersion(np.array([0.8, 0.3, 1.0]), chance, mask)
    assert exact == pytest.approx((0.09 + 0.04) / 0.5)
    assert dispersion(np.array([0.5, 0.5, 1.0]), chance, mask) == 0.05  # never below the floor
    assert dispersion(np.array([1.0, 0.0, 0.0]), chance, mask) == 1.0  # nor above one
    assert dispersion(np.array([1.0, 0.0, 0.0]), chance, np.zeros(3, dtype=bool)) == 1.0


def _pool(seed: int) -> tuple[list[Game], list[float], dict[int, float], dict[int, float]]:
    """One-game matches among 30 bots of known strength: the result is a coin of the true
    chance, its luck the result minus the chance plus a little noise (mean zero given the
    chance), so the result minus its luck is the chance and that noise."""
    rng = random.Random(seed)
    truth = {b: rng.gauss(1500, 120) for b in range(1, 31)}
    games, luck = [], []
    for _ in range(1500):
        a, b = rng.sample(sorted(truth), 2)
        p = 1 / (1 + 10 ** ((truth[b] - truth[a]) / 400))
        won = 1.0 if rng.random() < p else 0.0
        games.append(Game((a,), (b,), won))
        luck.append(won - p - rng.gauss(0.0, 0.1))
    return games, luck, truth, dict.fromkeys(truth, 1500.0)


def test_adjusted_estimates_are_nearer_the_truth_with_narrower_intervals() -> None:
    games, luck, truth, elo = _pool(7)
    table = GameTable.from_games(games)
    adjusted = adjusted_scores([g.score for g in games], luck, [1] * len(games))
    fits = fit_ratings(table, elo, adjusted=adjusted)
    centre = np.mean(list(truth.values()))

    def error(values: dict[int, float]) -> float:
        shift = np.mean(list(values.values())) - centre  # both are anchored, not the truth
        return math.sqrt(np.mean([(values[b] - shift - truth[b]) ** 2 for b in truth]))

    raw = {b: f.rating for b, f in fits.items()}
    adj = {b: f.adjusted.rating for b, f in fits.items() if f.adjusted is not None}
    assert len(adj) == len(truth)
    assert error(adj) < 0.6 * error(raw)
    for fit in fits.values():
        assert fit.adjusted is not None
        assert fit.adjusted.high - fit.adjusted.low < 0.7 * (fit.high - fit.low)
    shift = np.mean(list(adj.values())) - centre
    covered = [
        fits[b].adjusted.low - shift <= truth[b] <= fits[b].adjusted.high - shift  # type: ignore[union-attr]
        for b in truth
    ]
    assert sum(covered) >= 0.8 * len(truth)


def test_without_adjusted_games_the_adjusted_fit_is_the_public_one() -> None:
    games, _, _, elo = _pool(8)
    table = GameTable.from_games(games)
    none = adjusted_scores([g.score for g in games], [None] * len(games), [1] * len(games))
    for fit in fit_ratings(table, elo, adjusted=none).values():
        assert fit.adjusted is not None
        assert fit.adjusted.rating == pytest.approx(fit.rating, abs=1e-6)
        assert fit.adjusted.low == pytest.approx(fit.low, abs=1e-6)
