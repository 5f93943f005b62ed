"""``weak-heuristic``: the heuristic with noise, weaker than it and stronger than random."""

from __future__ import annotations

import random

import pytest

from arena.bots import get_strategy
from arena.bots.evaluate import evaluate
from arena.bots.heuristic import HeuristicStrategy
from engine import Rules, legal_actions, new_game, observation


def test_noise_zero_is_the_heuristic_and_bad_noise_is_refused() -> None:
    state = new_game(Rules(), 3)
    obs, legal = observation(state, state.to_act), legal_actions(state)
    plain, zero = HeuristicStrategy(), HeuristicStrategy(noise=0.0)
    for seed in range(20):  # no extra draw at noise 0: the same choices from the same PRNG
        assert plain.decide(obs, legal, random.Random(seed)) == zero.decide(
            obs, legal, random.Random(seed)
        )
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="noise"):
            HeuristicStrategy(noise=bad)
    weak = get_strategy("weak-heuristic")
    assert isinstance(weak, HeuristicStrategy) and weak.noise == 0.25
    assert weak.name == "weak-heuristic" and HeuristicStrategy(0.1).name == "heuristic(noise=0.1)"


def test_weak_heuristic_sits_between_heuristic_and_random() -> None:
    rules = Rules(points_to_win=15)
    above = evaluate("heuristic", "weak-heuristic", games=120, seed=4, rules=rules)
    below = evaluate("weak-heuristic", "random", games=120, seed=4, rules=rules)
    assert 0.55 <= above.win_rate_a <= 0.95, above
    assert below.win_rate_a >= 0.65, below  # measured 92 of 120
