"""`truco export decisions`: rows from real replays, nothing hidden, tensors that re-encode."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import msgspec
import numpy as np
import pytest

from arena.match.entrants import connect
from arena.match.replay import Replay
from arena.match.runner import MatchSettings, run_match
from engine import Rules
from engine.events import ActionTaken, HandStarted
from truco_cli.main import main
from truco_env.decisions import replay_rows, row_observation
from truco_env.encoding import encode


def _play(seed: int, players: int = 2) -> Replay:
    settings = MatchSettings(rules=Rules(players=players, points_to_win=15), games_per_match=2)
    entrants = [
        connect(spec, seed=seed + i, secret="", timeout_ms=1000, allow_loopback=True)
        for i, spec in enumerate(("builtin:heuristic", "builtin:random"))
    ]
    return asyncio.run(run_match(f"m{seed}", seed, settings, entrants))


@pytest.fixture(scope="module")
def replays() -> list[Replay]:
    return [_play(3), _play(4, players=4)]


def test_one_row_per_decision_with_what_the_seat_knew(replays: list[Replay]) -> None:
    for replay in replays:
        rows = list(replay_rows(replay))
        actions = [e for g in replay.games for e in g.events if isinstance(e, ActionTaken)]
        assert len(rows) == len(actions) > 0
        for row in rows:
            legal = [(a["action"], a.get("card")) for a in row["legal_actions"]]
            assert (row["action"]["action"], row["action"].get("card")) in legal
            assert row["observation"]["seat"] == row["seat"] == row["observation"]["to_act"]
            assert row["outcome"] in (-1, 1)


def test_rows_never_hold_another_seats_unplayed_cards(replays: list[Replay]) -> None:
    for replay in replays:
        deals: dict[tuple[int, int], tuple[tuple[str, ...], ...]] = {}
        for game in replay.games:
            for event in game.events:
                if isinstance(event, HandStarted):
                    deals[(game.number, event.hand)] = event.deal
        for row in replay_rows(replay):
            obs = row["observation"]
            deal = deals[(row["game"], obs["hand"])]
            played = {card for rnd in obs["rounds"] for _, card in rnd}
            hidden = {c for s, cards in enumerate(deal) if s != row["seat"] for c in cards} - played
            current = json.dumps([obs["cards"], obs["rounds"], obs["events"]])
            assert not {c for c in hidden if f'"{c}"' in current}
            assert set(obs["cards"]) <= set(deal[row["seat"]])


def test_tensors_round_trip(replays: list[Replay]) -> None:
    for replay in replays:
        for row in replay_rows(replay, tensors=True):
            vector = encode(row_observation(row))
            assert np.array_equal(vector, np.asarray(row["observation_tensor"], np.float32))
            assert row["action_mask"][row["action_index"]] == 1
            assert sum(row["action_mask"]) == len(row["legal_actions"])


def test_cli_exports_replay_files(
    replays: list[Replay], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replay files; a tournament (by id, page or API address, or its export file) is tested
    against the real API in tests/cli/test_export_decisions.py."""
    files = []
    for k, replay in enumerate(replays):
        files.append(tmp_path / f"{k}.replay.json")
        files[-1].write_bytes(msgspec.json.encode(replay))
    out = tmp_path / "rows.jsonl"
    assert main(["export", "decisions", str(files[0]), "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == len(list(replay_rows(replays[0])))
    assert main(["export", "decisions", str(files[0]), "--out", str(out)]) == 2  # no overwrite
    assert "exists" in capsys.readouterr().err
    both = tmp_path / "both.jsonl"
    assert main(["export", "decisions", *map(str, files), "--out", str(both), "--tensors"]) == 0
    lines = [json.loads(line) for line in both.read_text().splitlines()]
    assert {row["match_id"] for row in lines} == {replays[0].match_id, replays[1].match_id}
    assert all("observation_tensor" in row for row in lines)
    missing = main(
        ["export", "decisions", str(tmp_path / "missing.json"), "--out", str(tmp_path / "y")]
    )
    assert missing == 2 and "no such file" in capsys.readouterr().err
    assert not (tmp_path / "y").exists() and not (tmp_path / "y.part").exists()
