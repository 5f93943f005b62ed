"""Every golden scenario passes: shared/scenarios (fixed) and tests/scenarios (ours)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from engine.scenario import ScenarioError, check_scenario, run_scenario
from tests.conftest import ROOT, SHARED

SHARED_FILES = sorted((SHARED / "scenarios").glob("*.json"))
OWN_FILES = sorted((ROOT / "tests" / "scenarios").glob("*.json"))


def test_shared_scenarios_are_present() -> None:
    assert len(SHARED_FILES) >= 8, f"no shared scenarios found under {SHARED}"


@pytest.mark.parametrize("path", SHARED_FILES + OWN_FILES, ids=lambda p: p.name)
def test_scenario_passes(path: Path) -> None:
    data = msgspec.json.decode(path.read_bytes())
    _, difference = check_scenario(data)
    assert difference is None, difference


def _seed001() -> dict[str, object]:
    data: dict[str, object] = msgspec.json.decode(
        (SHARED / "scenarios" / "seed001_example_hand.json").read_bytes()
    )
    return data


def test_a_wrong_expectation_is_reported() -> None:
    data = _seed001()
    data["expect"] = {"score": [5, 0]}
    _, difference = check_scenario(data)
    assert difference == "score: expected [5, 0], got [4, 0]"


def test_outcome_reports_hand_winners_and_envido_points() -> None:
    outcome = run_scenario(_seed001())
    assert outcome.hand_winners == [0]
    assert outcome.envido_points == [33, 25]
    assert not outcome.game_over


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(hands=[]), "hands"),
        (lambda d: d.update(rules={"players": 5}), "players"),
        (lambda d: d.update(bogus=1), "unknown scenario keys"),
        (lambda d: d["hands"][0]["deal"][0].__setitem__(0, "8E"), "bad card"),
        (lambda d: d["hands"][0]["deal"][0].__setitem__(0, "2O"), "dealt twice"),
        (lambda d: d["hands"][0]["actions"][0].update(action="grito"), "unknown action word"),
    ],
)
def test_invalid_scenarios_are_clear_errors(mutate: object, message: str) -> None:
    data = _seed001()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(ScenarioError, match=message):
        run_scenario(data)


def test_actions_left_over_after_a_hand_that_is_not_over_fail() -> None:
    data = _seed001()
    first = data["hands"][0]  # type: ignore[index]
    data["hands"] = [
        {"deal": first["deal"], "actions": first["actions"][:2]},
        {"deal": first["deal"], "actions": []},
    ]
    with pytest.raises(ScenarioError, match="was not over"):
        run_scenario(data)
