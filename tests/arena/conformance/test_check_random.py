"""`truco check` plays random games: it reaches every family of decision, judges each answer
with the arena's own code, and catches bots that are wrong only where the fixed positions
never look (for example when they sing truco themselves, late in a game)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable

import pytest

from arena.client.connection import InProcessBot
from arena.conformance import check as conformance
from arena.conformance.check import Report, check_bot, probes
from arena.conformance.exploration import FAMILIES, explore, families_of
from arena.match.replay import Decision, EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.sdk import BotServer, strategy_decider
from arena.wire.protocol import ActRequest, ActResponse
from engine import Action, Rules
from truco_cli import check as check_cli

Decide = Callable[[ActRequest], Action | ActResponse]


def good(req: ActRequest) -> Action:
    return strategy_decider("heuristic", seed=3)(req)


def late_truco(req: ActRequest) -> Action | ActResponse:
    """The issue's bot: when it sings truco itself in the buenas, it puts the whole Action
    where the word goes (a nested object on the wire)."""
    choice = good(req)
    late = max(req.observation.score) >= req.observation.rules.buenas
    if choice.action == "truco" and req.observation.truco_pending is None and late:
        return ActResponse(action=choice, say="¡Truco!")  # type: ignore[arg-type]
    return choice


def choke_on_say(req: ActRequest) -> Action:
    """Crashes (a 500) when another seat's say holds something outside ASCII."""
    for event in req.observation.events:
        say = getattr(event, "say", None)
        if say:
            say.encode("ascii")
    return good(req)


def echo_sena(req: ActRequest) -> Action:
    """Answers a seen seña with a made-up one."""
    seen = any(getattr(event, "sena", None) for event in req.observation.events)
    choice = good(req)
    return Action(choice.action, choice.card, sena="tengo_flor") if seen else choice


def spaced_vale_cuatro(req: ActRequest) -> Action | ActResponse:
    """Sings "vale cuatro" with a space when it may raise to it on its own turn."""
    words = {option.action for option in req.legal_actions}
    if "vale_cuatro" in words and "quiero" not in words:
        return ActResponse(action="vale cuatro")
    return good(req)


def _check(decide: Decide, decisions: int) -> Report:
    with BotServer(decide, name="under-test") as server:
        return check_bot(server.url, None, 2000, decisions=decisions)


def _failures(report: Report) -> list[str]:
    return [check.line() for check in report.checks if check.status == "fail"]


@pytest.mark.parametrize(
    ("decide", "kind", "family"),
    [
        (late_truco, "bad_body: Expected `str`, got `object` - at `$.action`", "sing truco"),
        (choke_on_say, "http_status: HTTP 500", "say"),
        (echo_sena, "illegal_action: unknown seña 'tengo_flor'", "2v2 seña"),
        (spaced_vale_cuatro, "illegal_action: 'vale cuatro' is not legal now", "sing vale cuatro"),
    ],
    ids=["late-truco", "say", "sena", "vale-cuatro"],
)
def test_bugs_the_fixed_positions_miss_are_caught(decide: Decide, kind: str, family: str) -> None:
    fixed_only = _check(decide, decisions=0)
    assert fixed_only.ok, _failures(fixed_only)  # the fixed positions alone pass this bot
    report = _check(decide, decisions=200)
    failures = _failures(report)
    assert len(failures) == 1, failures
    line = failures[0]
    assert line.startswith("FAIL  random games: decision ")
    assert kind in line.splitlines()[0]
    assert "\n      position: " in line and "\n      legal: " in line
    assert "\n      answer: " in line and "families: " in line
    assert family in line.split("families: ")[1]


def test_the_late_truco_bot_fails_the_command_with_its_answer_shown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    with BotServer(late_truco, name="late") as server:
        code = check_cli.run(
            parser.parse_args([server.url, "--secret", "", "--timeout-ms", "30000"])
        )
    out = capsys.readouterr().out
    assert code == 1
    assert sum(line.startswith("PASS  act: ") for line in out.splitlines()) == len(probes())
    answer = next(line for line in out.splitlines() if "answer: " in line)
    assert '{"action":{"action":"truco"},"say":"¡Truco!"}' in answer
    assert out.splitlines()[-1].startswith("FAIL: ")


def test_a_good_bot_passes_with_every_family_reached() -> None:
    report = _check(good, decisions=200)
    assert report.ok, _failures(report)
    lines = report.lines()
    assert any(line.startswith("PASS  random games: ") for line in lines)
    coverage = next(line for line in lines if "random games: coverage" in line)
    assert coverage.startswith(f"PASS  random games: coverage: all {len(FAMILIES)} families")


@pytest.mark.parametrize("seed", [1, 2, 3, 17, 99, 1234])
def test_random_games_reach_every_family_and_enough_decisions(seed: int) -> None:
    exploration = explore(seed, 200)
    assert exploration.missing == []
    assert len(exploration.positions) >= 200
    assert all(count > 0 for count in exploration.reached.values())
    assert {p.state.players for p in exploration.positions} == {2, 4}
    again = explore(seed, 200)  # deterministic from the seed
    assert [p.state for p in again.positions] == [p.state for p in exploration.positions]


def test_families_are_what_the_position_offers() -> None:
    exploration = explore(5, 200)
    for position in exploration.positions[:300]:
        found = families_of(position.state)
        assert found <= set(FAMILIES)
        assert found == position.families - {"every card"}


def test_the_check_and_the_match_runner_judge_alike() -> None:
    """One bad answer (a seña in 1v1): the same fault kind and detail in a match's replay and
    in `truco check`, because both go through arena.match.judge."""

    def sena_in_1v1(req: ActRequest) -> Action:
        choice = req.legal_actions[0]
        return Action(choice.action, choice.card, sena="siete")

    report = _check(sena_in_1v1, decisions=0)
    check_line = next(line for line in _failures(report) if "lead round 1" in line)
    entrants = [
        (EntrantRecord("bad", "bad"), InProcessBot("bad", sena_in_1v1)),
        (EntrantRecord("good", "good"), InProcessBot("good", good)),
    ]
    replay = asyncio.run(
        run_match("judge", 1, MatchSettings(rules=Rules(), fault_limit=1), entrants)
    )
    faults = [e for g in replay.games for e in g.events if isinstance(e, Decision) and e.fault]
    assert faults and faults[0].fault == "illegal_action"
    assert f"illegal_action: {faults[0].detail}" in check_line


def test_a_family_never_reached_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the random games ever missed a family, the check says so and fails."""
    monkeypatch.setattr(conformance, "explore", lambda seed, n: explore(seed, 10, max_games=1))
    report = _check(good, decisions=200)
    coverage = next(line for line in report.lines() if "random games: coverage" in line)
    assert coverage.startswith("FAIL  random games: coverage: never reached: ")
    assert "a bug in truco check" in coverage and not report.ok
