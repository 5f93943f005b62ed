"""The `truco` command's engine subcommands, run as a user would."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import OWN_SCENARIOS
from truco_cli.main import main


def truco(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "truco_cli.main", *args], capture_output=True, text=True, timeout=60
    )


def test_scenario_command_reports_ok_and_fail(tmp_path: Path) -> None:
    good = OWN_SCENARIOS / "vale_cuatro_no_querido_gives_three.json"
    data = json.loads(good.read_text())
    data["expect"]["score"] = [2, 0]
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(data))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = truco("scenario", str(good), str(wrong), str(broken), str(tmp_path / "missing.json"))
    lines = result.stdout.splitlines()
    assert lines[0] == f"{good}: ok"
    assert lines[1] == f"{wrong}: FAIL score: expected [2, 0], got [3, 0]"
    assert lines[2].startswith(f"{broken}: FAIL invalid scenario: not valid JSON")
    assert lines[3].startswith(f"{tmp_path / 'missing.json'}: FAIL invalid scenario: cannot read")
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 1


def test_scenario_json_prints_the_actual_outcome() -> None:
    path = OWN_SCENARIOS / "falta_to_target_level_score_wins_game.json"
    result = truco("scenario", "--json", str(path))
    assert result.returncode == 0
    outcome = json.loads(result.stdout)
    assert outcome["score"] == [12, 30]
    assert outcome["game_over"] is True and outcome["winner"] == 1
    assert outcome["envido_points"] == [6, 33]


def test_bench_json_counts_what_it_played() -> None:
    result = truco("bench", "--games", "20", "--seed", "3", "--players", "4", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.splitlines()[-1])
    assert figures["games"] == 20 and figures["players"] == 4
    assert figures["hands"] >= 20 and figures["decisions"] >= figures["hands"]
    assert figures["hands_per_s"] > 0


def test_demo_prints_a_whole_game(capsys: object) -> None:
    assert main(["demo", "--seed", "5"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "── Hand 1" in out
    final = re.search(r"Team ([01]) wins (\d+)-(\d+)\.$", out.rstrip())
    assert final is not None
    winner, scores = int(final[1]), (int(final[2]), int(final[3]))
    assert scores[winner] == 30 > scores[1 - winner]
    assert out.count("── Hand") >= 2


def test_unknown_command_is_a_usage_error() -> None:
    result = truco("fly")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
