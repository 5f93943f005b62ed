"""`truco pair` and `truco standings` through the real dispatcher."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from truco_cli.main import main

EVENT = {
    "players": [
        {"id": 1, "rating": 1900},
        {"id": "b", "rating": 1800},
        {"id": 3, "rating": 1700},
        {"id": 4},
    ],
    "rounds": [[{"a": 1, "b": 3, "result": "a"}, {"a": "b", "b": 4, "result": "draw"}]],
    "total_rounds": 3,
}


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "event.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_pair_prints_the_next_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pair", write(tmp_path, EVENT)]) == 0
    out = json.loads(capsys.readouterr().out)
    # groups: 1 (1 pt), b and 4 (0.5), 3 (0): 1 floats down to b, 4 up... no rematches allowed
    ids = [x for p in out["pairs"] for x in (p["a"], p["b"])]
    assert sorted(map(str, ids)) == ["1", "3", "4", "b"]
    assert out["bye"] is None
    assert all(p["mano"] in (p["a"], p["b"]) for p in out["pairs"])
    assert {frozenset((p["a"], p["b"])) for p in out["pairs"]}.isdisjoint(
        {frozenset((1, 3)), frozenset(("b", 4))}
    )


def test_standings_prints_every_tiebreak(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["standings", write(tmp_path, EVENT)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["standings"][0]["id"] == 1
    assert set(out["tiebreaks"]) <= set(out["standings"][0])
    assert out["standings"][0]["match_points"] == 1.0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ({"rounds": []}, "missing key 'players'"),
        ({"players": [{"id": 1}, {"id": "1"}]}, "duplicate player id"),
        (
            {"players": [{"id": 1}, {"id": 2}], "rounds": [[{"a": 1, "b": 7, "result": "a"}]]},
            "unknown player id 7",
        ),
        (
            {"players": [{"id": 1}, {"id": 2}], "rounds": [[{"a": 1, "b": 2}]]},
            "missing key 'result'",
        ),
        (
            {"players": [{"id": 1}, {"id": 2}], "rounds": [[{"a": 1, "b": 2, "result": "x"}]]},
            "result must be",
        ),
        ({"players": [{"id": True}]}, "must be a string or an integer"),
        (
            {
                "players": [{"id": 1}, {"id": 2}],
                "rounds": [[{"a": 1, "b": 2, "result": "a"}]],
                "total_rounds": 1,
            },
            "already played",
        ),
        (
            {"players": [{"id": 1}, {"id": 2}], "rounds": [[{"a": 1, "b": 2, "result": "a"}]]},
            "rematches",
        ),
    ],
)
def test_pair_reports_file_errors_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object, message: str
) -> None:
    assert main(["pair", write(tmp_path, content)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_missing_file_and_bad_tiebreak(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["standings", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["standings", write(tmp_path, EVENT), "--tiebreaks", "luck"]) == 2
    assert "choose from" in capsys.readouterr().err


def test_cli_as_a_subprocess(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "truco_cli.main", "pair", write(tmp_path, "[]")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "must hold a JSON object" in done.stderr and "Traceback" not in done.stderr
