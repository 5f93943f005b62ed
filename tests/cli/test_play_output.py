"""`truco play` never silently overwrites a replay file (issue 12, point 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from truco_cli import replay_file
from truco_cli.main import main

QUICK = ["play", "builtin:random", "builtin:first", "--games", "1", "--points", "15", "--quiet"]


def test_a_second_run_picks_a_new_name_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    first = tmp_path / "match-1.replay.json"
    first.write_text("an earlier replay")
    assert main(QUICK) == 0
    out = capsys.readouterr().out
    assert first.read_text() == "an earlier replay"
    second = tmp_path / "match-1-2.replay.json"
    assert second.stat().st_size > 100
    assert "match-1-2.replay.json" in out and "match-1.replay.json already exists" in out
    assert main(QUICK) == 0
    assert (tmp_path / "match-1-3.replay.json").exists()
    assert "match-1-3.replay.json" in capsys.readouterr().out


def test_an_existing_out_is_refused_before_playing_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "mine.json"
    mine.write_text("keep me")
    assert main([*QUICK, "--out", str(mine)]) == 2
    captured = capsys.readouterr()
    assert "mine.json exists" in captured.err and "--force" in captured.err
    assert captured.out == ""  # refused before the match was played
    assert mine.read_text() == "keep me"
    assert main([*QUICK, "--out", str(mine), "--force"]) == 0
    assert mine.read_text().startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.json"]


def test_a_file_that_appears_during_the_match_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "match-4.replay.json"
    chosen = replay_file.choose(None, 4, force=False)
    assert chosen == Path("match-4.replay.json")
    target.write_text("written meanwhile")
    written = replay_file.write(target, b"{}", replace=False)
    assert written == tmp_path / "match-4-2.replay.json" and written.read_bytes() == b"{}"
    assert target.read_text() == "written meanwhile"
    assert replay_file.write(target, b"[]", replace=True) == target
    assert target.read_bytes() == b"[]"
