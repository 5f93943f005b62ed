"""bench/luck.py: its smoke size runs in seconds and ends with the JSON line the issue asks
for; equal bots' pairs are mirrored to sit exactly at elo 0; the error a pairing can make."""

from __future__ import annotations

import json
import random
import statistics

import pytest

from bench import luck as bench


def test_the_smoke_run_ends_with_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--smoke"])
    out = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(out[-1])["luck"]
    assert summary["model"] == "truco-luck/1" and summary["runs"] == 4
    pairings = summary["pairings"]
    assert {(p["b"], p["mode"]) for p in pairings} == {
        (b.b, mode) for b in bench.PAIRINGS for mode, _ in bench.MODES
    }
    for p in pairings:
        assert p["held_out"] == (p["b"] in ("cautious", "reckless"))
        assert 0.0 < p["variance_ratio"] < 2.0 and p["games_ratio"] > 0.0
        assert set(p["sprt"]) == {"raw", "raw_normal", "adjusted"}
    assert set(summary["us_per_hand"]) == {"1v1", "2v2"}
    assert all(0.0 < us < 10_000.0 for us in summary["us_per_hand"].values())
    assert set(summary["bias"]) == {"1v1", "2v2"}
    assert any("cost of the correction" in line for line in out)


def test_mirrored_pairs_sit_exactly_at_even() -> None:
    games = (bench.Game(1.0, 0.2, 5, 2.0), bench.Game(1.0, -0.1, 3, -1.0))
    pool = bench.Pool([games, (bench.Game(0.0, 0.1, -4, 0.5), bench.Game(1.0, 0.3, 2, 1.0))])
    plain, mirrored = bench.draws(pool, mirrored=False), bench.draws(pool, mirrored=True)
    assert [d.raw for d in plain] == [2, 1]
    assert plain[0].adjusted == pytest.approx((0.8 + 1.1) / 2)
    assert statistics.fmean(d.adjusted for d in mirrored) == pytest.approx(0.5)
    assert statistics.fmean(d.raw for d in mirrored) == 1.0
    assert bench.wrong_verdict(mirrored) == "H1"  # at elo 0, accepting H1 is the error
    assert bench.wrong_verdict(plain) == "H0"  # 75%: beyond elo1, accepting H0 is


def test_a_run_draws_the_same_pairs_for_every_test() -> None:
    """Pairs A wins both games of: all three tests accept H1; the raw one needs exactly the
    all-won count of pairs (docs/sprt.md), the others no more."""
    data = [bench.Draw(2, 0.95), bench.Draw(2, 1.05)]
    run = bench.sprt_run(data, random.Random(1))
    assert run.raw == ("H1", 2 * 104)
    assert run.adjusted[0] == "H1" and run.adjusted[1] < run.raw[1]
    assert run.raw_normal[0] == "H1"
