"""bench/match_length.py: games played through the match runner, and the match-length estimate."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from bench import match_length as ml


def test_play_gives_one_sample_per_game_with_alternating_seats() -> None:
    samples = asyncio.run(ml.play("heuristic", "random", 2, 12, seed=3))
    assert len(samples) == 12
    assert [s.team0 for s in samples[:4]] == [True, False, True, False]
    assert all((s.strong > s.weak) == s.won for s in samples if max(s.strong, s.weak) >= 30)
    assert sum(s.won for s in samples) >= 9  # heuristic beats random nearly every game
    # each game's adjusted result is its win minus the stronger bot's luck in it
    assert all(s.adjusted is not None and abs(s.adjusted - s.won) < 1.0 for s in samples)
    assert any(s.adjusted != float(s.won) for s in samples)


def test_win_chance_decides_by_games_then_tantos() -> None:
    rng = random.Random(1)
    always = [ml.GameSample(True, 30, 10, True), ml.GameSample(True, 30, 12, False)]
    never = [ml.GameSample(False, 10, 30, True), ml.GameSample(False, 12, 30, False)]
    assert ml.win_chance(always, 3, rng) == 1.0 and ml.win_chance(never, 3, rng) == 0.0
    # one won and one lost game per seat: a 2-game match is level on games; tantos decide
    split = [ml.GameSample(True, 30, 0, True), ml.GameSample(False, 29, 30, False)]
    assert ml.win_chance(split, 2, rng) == 1.0
    level = [ml.GameSample(True, 30, 20, True), ml.GameSample(False, 20, 30, False)]
    assert ml.win_chance(level, 2, rng) == 0.0  # a draw is not a win


def test_adjusted_chance_decides_on_adjusted_games() -> None:
    rng = random.Random(1)
    sure = [ml.GameSample(True, 30, 10, t, 0.8) for t in (True, False)]
    lucky = [ml.GameSample(True, 30, 10, t, 0.4) for t in (True, False)]  # won, on the cards
    assert ml.adjusted_chance(sure, 3, rng) == 1.0 and ml.adjusted_chance(lucky, 3, rng) == 0.0


def test_needed_is_the_length_from_which_every_longer_match_passes() -> None:
    curve = ml.Curve("a", "b", "1v1", 10, 0.7, {1: 0.9, 2: 0.96, 3: 0.94, 4: 0.97, 5: 0.99}, 0.1)
    assert curve.needed == 4
    assert ml.Curve("a", "b", "1v1", 10, 0.5, {1: 0.5, 2: 0.6}, 0.1).needed is None


def test_the_report_ends_with_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    curve = ml.Curve("a", "b", "2v2", 10, 0.7, dict.fromkeys(range(1, 61), 0.96), 0.1)
    ml.report([curve], 10, 1)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    (entry,) = json.loads(last)["match_length"]["curves"]
    assert entry["games_for_95"] == 1 and entry["mode"] == "2v2"
    assert entry["games_for_95_adjusted"] is None  # not measured
