"""`truco sprt` end to end with in-process built-in bots: a much stronger bot is accepted as
stronger in exactly the pairs the model predicts; two copies of one bot accept H0 within the
range docs/sprt.md gives; the JSON line; bad input is refused before any game."""

from __future__ import annotations

import json

import pytest

from arena.client.signing import generate_secret
from arena.sdk import BotServer, strategy_decider
from arena.sprt.stats import pairs_if_all_won
from truco_cli.main import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["sprt", *argv, "--json"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    result: dict[str, object] = json.loads(last)
    return result


def test_heuristic_beats_random_in_the_predicted_number_of_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = run_json(
        capsys, "builtin:heuristic", "builtin:random", "--elo0", "0", "--elo1", "50",
        "--statistic", "raw",
    )  # fmt: skip
    # the heuristic wins every game of this run against random, so the raw test's LLR
    # path is deterministic: docs/sprt.md's 23 pairs
    pairs = pairs_if_all_won(0, 50, 0.05, 0.05)
    assert pairs == 23
    assert result["result"] == "H1"
    assert result["games"] == 2 * pairs and result["wins"] == 2 * pairs and result["losses"] == 0
    low, high = result["bounds"]  # type: ignore[misc]
    assert result["llr"] >= high > 0 > low  # type: ignore[operator]
    assert set(result) >= {"elo", "elo_interval"} and result["statistic"] == "raw"


def test_the_luck_adjusted_default_accepts_h1_in_fewer_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same run on luck-adjusted scores (the default): every game won, but a game won with
    the better cards counts for less than 1, so the mean stays below 1 and its spread is the
    games' luck; H1 still comes, in fewer games than the raw test's 46."""
    result = run_json(capsys, "builtin:heuristic", "builtin:random", "--elo0", "0", "--elo1", "50")
    assert result["statistic"] == "adjusted" and result["result"] == "H1"
    assert result["wins"] == result["games"] < 46  # type: ignore[operator]
    assert 0.8 < result["adjusted_score"] < 1.2  # type: ignore[operator]
    assert result["llr"] >= result["bounds"][1]  # type: ignore[index,operator]


def test_two_copies_of_one_bot_accept_h0(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_json(
        capsys, "builtin:heuristic", "builtin:heuristic", "--elo0", "0", "--elo1", "50",
        "--statistic", "raw",
    )  # fmt: skip
    assert result["result"] == "H0"
    # docs/sprt.md: about 150 pairs expected, 90% of tests end between 35 and 420 pairs
    assert 70 <= result["games"] <= 840  # type: ignore[operator]
    assert result["wins"] + result["losses"] == result["games"]  # type: ignore[operator]
    assert result["llr"] <= result["bounds"][0]  # type: ignore[index,operator]
    lo, hi = result["elo_interval"]  # type: ignore[misc]
    assert lo < 50 and lo < result["elo"] < hi  # type: ignore[operator]


def test_two_copies_of_one_bot_accept_h0_on_adjusted_scores_in_fewer_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The default statistic: equal bots' adjusted scores spread about a third as much as
    their games won (docs/luck.md), so H0 comes after about 80 games where the raw test needs
    about 300 (docs/sprt.md); the seeded run is one draw of that spread."""
    result = run_json(
        capsys, "builtin:heuristic", "builtin:heuristic", "--elo0", "0", "--elo1", "50"
    )
    assert result["statistic"] == "adjusted" and result["result"] == "H0"
    assert 20 <= result["games"] <= 250  # type: ignore[operator]
    assert abs(result["adjusted_score"] - 0.5) < 0.1  # type: ignore[operator]
    lo, hi = result["elo_interval"]  # type: ignore[misc]
    assert lo < 0 < hi < 50


def test_mirrored_pairs_of_one_bot_mostly_split_and_decide_sooner(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the same cards in both games and seats swapped, a bot against itself mostly wins
    one game each: the pairs carry less luck, and H0 comes in fewer games (docs/sprt.md)."""
    argv = ("builtin:heuristic", "builtin:heuristic", "--elo0", "0", "--elo1", "50")
    argv = (*argv, "--statistic", "raw")
    mirrored = run_json(capsys, *argv, "--mirrored")
    independent = run_json(capsys, *argv)
    pairs = mirrored["pairs"]
    assert isinstance(pairs, dict)
    assert pairs["1-1"] >= 0.8 * sum(pairs.values())
    assert independent["pairs"]["1-1"] <= 0.6 * independent["games"] / 2  # type: ignore[index]
    assert mirrored["result"] == "H0" and mirrored["elo"] == 0.0
    assert mirrored["games"] < independent["games"]  # type: ignore[operator]


def test_max_games_ends_inconclusive_and_concurrency_does_not_change_the_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("builtin:heuristic", "builtin:heuristic", "--max-games", "12", "--seed", "3")
    serial = run_json(capsys, *argv)
    parallel = run_json(capsys, *argv, "--concurrency", "4")
    assert serial["result"] == "inconclusive" and serial["games"] == 12
    assert parallel == serial


def test_plain_output_names_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "builtin:heuristic", "builtin:random", "--elo1", "50"]) == 0
    out = capsys.readouterr().out
    assert "H1 accepted: builtin:heuristic is at least 50 Elo stronger" in out
    assert "LLR" in out and "Elo" in out


def test_url_bots_over_http_in_2v2(capsys: pytest.CaptureFixture[str]) -> None:
    """A BOT may be a URL: two SDK bot servers on 127.0.0.1, signed calls, 2v2, two pairs at
    once; the stronger one wins (every game of these four)."""
    secret = generate_secret()
    servers = [
        BotServer(strategy_decider(name, seed=k), name=name, secret=secret, port=0)
        for k, name in enumerate(("heuristic", "random"))
    ]
    for server in servers:
        server.start()
    try:
        result = run_json(
            capsys,
            *(server.url for server in servers),
            "--players", "4", "--points", "15", "--max-games", "4", "--concurrency", "2",
            "--secret", secret,
        )  # fmt: skip
    finally:
        for server in servers:
            server.stop()
    assert result["games"] == 4 and result["result"] == "inconclusive"
    assert result["wins"] == 4 and result["losses"] == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["builtin:nope", "builtin:random"], "nope"),
        (["ftp://x", "builtin:random"], "bad bot"),
        (["builtin:random", "builtin:random", "--elo0", "10", "--elo1", "0"], "elo0"),
        (["builtin:random", "builtin:random", "--alpha", "0"], "alpha"),
        (["builtin:random", "builtin:random", "--concurrency", "0"], "--concurrency"),
        (["builtin:random", "builtin:random", "--max-games", "1"], "--max-games"),
        (["http://127.0.0.1:9", "builtin:random", "--secret", "whsec_!"], "signing secret"),
    ],
)
def test_bad_input_is_refused_before_any_game(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["sprt", *extra]) == 2
    assert message in capsys.readouterr().err


def test_an_unreachable_bot_stops_the_test_without_a_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # nothing listens on 127.0.0.1:9 (discard): the first pair is a walkover
    assert main(["sprt", "http://127.0.0.1:9", "builtin:random", "--json"]) == 1
    captured = capsys.readouterr()
    assert "A 127.0.0.1:9: connection refused on GET /" in captured.err
    assert "no result" in captured.err
    assert captured.out == ""
