"""Every golden scenario passes: tests/scenarios (ours) and, when present, the optional folder
beside the checkout (see tests/conftest.py: skipped with a reason when it is not there)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from engine.scenario import (
    EXPECT_KEYS,
    KNOWN_KEYS,
    ScenarioError,
    check_scenario,
    run_scenario,
)
from tests.conftest import (
    OWN_SCENARIOS,
    ROOT,
    SHARED_MISSING,
    SHARED_SCENARIOS,
    shared_scenario_files,
)

SHARED_FILES = shared_scenario_files()
OWN_FILES = sorted(OWN_SCENARIOS.glob("*.json"))
EXAMPLE = OWN_SCENARIOS / "example_envido_then_truco_in_round_two.json"


def test_the_format_page_shows_the_example_file_and_it_passes() -> None:
    page = (ROOT / "docs" / "scenarios.md").read_text()
    shown = page.split("<!-- scenario example -->\n```json\n", 1)[1].split("```", 1)[0]
    assert shown == EXAMPLE.read_text()
    _, difference = check_scenario(msgspec.json.decode(shown))
    assert difference is None


def test_the_format_page_names_every_key_the_runner_knows() -> None:
    page = (ROOT / "docs" / "scenarios.md").read_text()
    for key in KNOWN_KEYS | EXPECT_KEYS | {"deal", "mano", "actions"}:
        assert f"| `{key}` |" in page, key


def test_own_scenarios_are_present() -> None:
    assert len(OWN_FILES) >= 100, f"the repository's scenarios are missing from {OWN_SCENARIOS}"


@pytest.mark.skipif(not SHARED_SCENARIOS.is_dir(), reason=SHARED_MISSING)
def test_shared_scenarios_are_present() -> None:
    assert len(SHARED_FILES) >= 8, f"the folder {SHARED_SCENARIOS} holds no scenario files"


@pytest.mark.parametrize("path", SHARED_FILES + OWN_FILES, ids=lambda p: p.name)
def test_scenario_passes(path: Path) -> None:
    data = msgspec.json.decode(path.read_bytes())
    _, difference = check_scenario(data)
    assert difference is None, difference


def _example() -> dict[str, object]:
    data: dict[str, object] = msgspec.json.decode(EXAMPLE.read_bytes())
    return data


def test_a_wrong_expectation_is_reported() -> None:
    data = _example()
    data["expect"] = {"score": [6, 0]}
    _, difference = check_scenario(data)
    assert difference == "score: expected [6, 0], got [5, 2]"


def test_outcome_reports_hand_winners_and_envido_points() -> None:
    outcome = run_scenario(_example())
    assert outcome.score == (5, 2)
    assert outcome.hand_winners == [1]
    assert outcome.envido_points == [31, 7]
    assert not outcome.game_over


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(hands=[]), "hands"),
        (lambda d: d.update(rules={"players": 5}), "players"),
        (lambda d: d.update(bogus=1), "unknown scenario keys"),
        (lambda d: d["hands"][0]["deal"][0].__setitem__(0, "8E"), "bad card"),
        (lambda d: d["hands"][0]["deal"][0].__setitem__(0, "1B"), "dealt twice"),
        (lambda d: d["hands"][0]["actions"][0].update(action="grito"), "unknown action word"),
    ],
)
def test_invalid_scenarios_are_clear_errors(mutate: object, message: str) -> None:
    data = _example()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(ScenarioError, match=message):
        run_scenario(data)


def test_actions_left_over_after_a_hand_that_is_not_over_fail() -> None:
    data = _example()
    first = data["hands"][0]  # type: ignore[index]
    data["hands"] = [
        {"deal": first["deal"], "actions": first["actions"][:2]},
        {"deal": first["deal"], "actions": []},
    ]
    with pytest.raises(ScenarioError, match="was not over"):
        run_scenario(data)
