"""`truco tournament ...`, `truco challenge` and `truco leaderboard` against the real API;
matches are played at once, over HTTP, by real bots on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from arena.sdk import BotServer
from tests.cli.conftest import Truco, unique
from truco_cli.match import describe


def _two_bots(truco: Truco, platform_url: str, bots: list[BotServer]) -> list[str]:
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    names = [unique("h"), unique("r")]
    for name, server in zip(names, bots, strict=True):
        truco.ok("bot", "register", name, server.url)
    return names


def test_create_enter_start_watch_show(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    names = _two_bots(truco, platform_url, bots)
    tid = truco.ok(
        "tournament", "create", "Copa CLI", "--format", "swiss", "--mode", "1v1",
        "--rounds", "1", "--games", "2", "--points", "15", "--no-flor", "-q",
    ).out.strip()  # fmt: skip
    assert tid.isdigit()
    detail = httpx.get(f"{platform_url}/v1/tournaments/{tid}").json()
    assert detail["settings"]["rules"]["points_to_win"] == 15
    assert detail["settings"]["rules"]["flor"] is False
    assert detail["settings"]["games_per_match"] == 2 and detail["settings"]["rounds"] == 1
    entered = truco.ok("tournament", "enter", tid, *names).out
    assert entered.count("entered ") == 2
    registering = truco.ok("tournament", "show", tid).out
    assert "registering" in registering and all(name in registering for name in names)
    again = truco("tournament", "enter", tid, names[0])
    assert again.code == 1 and again.err.startswith(f"error: Conflict (409): entering {names[0]}: ")
    started = truco.ok("tournament", "start", tid, "--json").json()
    assert started["status"] == "running" and len(started["queued"]) == 1
    watched = truco.ok("tournament", "watch", tid, "--interval", "0.2", "--timeout", "60")
    lines = watched.out.splitlines()
    # the in-process workers played it during /start: its match, then the status
    assert re.match(r"round 1 \(1/1\) match \d+: .+ (wins .+ against .+|vs .+: draw)", lines[0])
    assert lines[1] == f"tournament {tid} 'Copa CLI': finished"
    assert lines[2].split() == ["rank", "bot", "pts", "bh-1", "bh", "sb", "de", "games", "+/-"]
    assert {lines[3].split()[1], lines[4].split()[1]} == set(names)
    shown = truco.ok("tournament", "show", tid).out
    match_url = re.search(rf"{platform_url}/matches/(\d+)", shown)
    assert match_url is not None and "round 1 (done)" in shown
    assert httpx.get(f"{platform_url}/v1/matches/{match_url[1]}/replay").status_code == 200
    as_json = truco.ok("tournament", "watch", tid, "--json").json()
    assert as_json["status"] == "finished" and len(as_json["standings"]) == 2
    twice = truco("tournament", "start", tid)
    assert twice.code == 1 and "(409)" in twice.err


def test_watch_gives_up_after_its_timeout_and_bad_options_are_the_platforms_422(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    _two_bots(truco, platform_url, bots)
    tid = truco.ok(
        "tournament", "create", "Slow", "--format", "round_robin", "--mode", "1v1",
        "--deals", "mirrored", "-q",
    ).out.strip()  # fmt: skip
    assert (
        httpx.get(f"{platform_url}/v1/tournaments/{tid}").json()["settings"]["deals"] == "mirrored"
    )
    waiting = truco("tournament", "watch", tid, "--interval", "0.2", "--timeout", "0.5")
    assert waiting.code == 1 and "error: Still running: tournament" in waiting.err
    assert ": registering" in waiting.out
    listed = truco.ok("tournament", "list", "--status", "registering", "--json").json()
    assert int(tid) in [t["id"] for t in listed["items"]]
    assert {t["status"] for t in listed["items"]} == {"registering"}
    assert f"{tid}  Slow" in truco.ok("tournament", "list").out
    assert "cancelled (0 unplayed matches)" in truco.ok("tournament", "cancel", tid).out
    cancelled = truco("tournament", "watch", tid)
    assert cancelled.code == 1 and "error: Cancelled: tournament" in cancelled.err
    assert truco("tournament", "cancel", tid).code == 1  # the platform's 409: cancelled already
    partnered = truco.ok(
        "tournament", "create", "Seats", "--format", "swiss", "--mode", "2v2",
        "--partnership", "individual", "--json",
    ).json()  # fmt: skip
    assert partnered["partnership"] == "individual"
    long = truco(
        "tournament", "create", "Long", "--format", "swiss", "--mode", "2v2", "--games", "100"
    )
    assert long.code == 1 and "(422)" in long.err and "body.games_per_match" in long.err
    unknown = truco("tournament", "show", "987654321")
    assert unknown.code == 1 and unknown.err.startswith("error: Not Found (404): ")
    usage = truco("tournament", "create", "X", "--format", "ladder", "--mode", "1v1")
    assert usage.code == 2 and "invalid choice: 'ladder'" in usage.err


def test_challenge_wait_match_replay_and_leaderboard(
    platform_url: str,
    truco: Truco,
    bots: list[BotServer],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = _two_bots(truco, platform_url, bots)
    queued = truco.ok(
        "challenge", names[0], names[1], "--games", "2", "--deals", "mirrored", "--json"
    ).json()
    assert (
        httpx.get(f"{platform_url}/v1/matches/{queued['match_id']}").json()["deals"] == "mirrored"
    )
    assert set(queued) == {"match_id", "status", "seed_commitment"}
    result = truco.ok("challenge", names[0], names[1], "--games", "2", "--wait")
    first = result.out.splitlines()[0]
    # every ending a played challenge can have (a 1-1 decided on tantos, a draw, a forfeit)
    assert re.match(
        rf"match \d+: ({names[0]} vs {names[1]}: draw .+"
        r"|.+ wins (\d-\d|on tantos \d+-\d+|by forfeit) against .+)",
        first,
    ), first
    assert f"{platform_url}/matches/" in result.out
    waited = truco.ok("challenge", names[1], names[0], "--wait", "--json").json()
    assert waited["status"] == "done" and waited["rated"] is False
    shown = truco.ok("match", "show", waited["id"]).out
    assert shown.startswith(f"match {waited['id']}: {waited['outcome']['phrase']}\n")
    assert re.search(r"^  1v1, challenge, unrated, \d+ games$", shown, re.MULTILINE)
    monkeypatch.chdir(tmp_path)
    saved = truco.ok("match", "replay", waited["id"]).out
    replay_file = tmp_path / f"match-{waited['id']}.replay.json"
    assert f"wrote {replay_file.name}; check it with: truco replay verify" in saved
    assert truco.ok("replay", "verify", str(replay_file)).out.startswith(f"{replay_file}: ok (")
    again = truco("match", "replay", waited["id"])
    assert again.code == 2 and again.err.startswith("error: File exists: ")
    assert truco.ok("match", "replay", waited["id"], "--json").json()["games"]
    history = truco.ok("bot", "matches", names[0]).out
    assert f"match {waited['id']}: " in history and history.count("\nmatch ") >= 1
    board = truco.ok("leaderboard", "--json").json()
    assert board["mode"] == "1v1"  # challenges are unrated: these bots are not on it
    assert not {entry["name"] for entry in board["entries"]} & set(names)
    assert truco.ok("leaderboard", "2v2").code == 0
    assert truco.ok("leaderboard", "2v2-individual", "--json").json()["mode"] == "2v2-individual"
    mine_only = truco("challenge", "987654321", names[0])
    assert mine_only.code == 1 and "(404)" in mine_only.err


def test_a_field_problem_prints_its_field(platform_url: str, truco: Truco) -> None:
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    bad = truco(
        "tournament", "create", "Zero", "--format", "swiss", "--mode", "1v1", "--games", "0"
    )
    assert bad.code == 1
    assert bad.err.splitlines() == [
        "error: Unprocessable Entity (422): the request body does not match the schema",
        "  body.games_per_match: Expected `int` >= 1",
    ]


def test_a_walkover_says_why_each_side_lost() -> None:
    match = {
        "id": 9,
        "status": "forfeit",
        "entrants": [{"bot_id": 1, "name": "mine", "side": 0}, {"bot_id": 2, "name": "them"}],
        "winner": 2,
        "games_won": [0, 0],
        "reason": "walkover",
        "outcome": {
            "winner_side": 1,
            "sides": [
                {"side": 1, "bots": [2], "names": ["them"], "games": 0, "tantos": 0},
                {"side": 0, "bots": [1], "names": ["mine"], "games": 0, "tantos": 0},
            ],
            "decided_by": "walkover",
            "partners": False,
            "phrase": "them wins by walkover: mine could not be reached",
        },
        "causes": [
            {"side": 0, "bot_id": 1, "call": "start", "kind": "http_status", "status": 401},
            {"side": 1, "bot_id": None, "call": "act", "kind": "timeout", "summary": "timed out"},
        ],
    }
    assert describe(match).splitlines() == [
        "match 9: them wins by walkover: mine could not be reached",
        "  mine: http_status (401) on /start",
        "  side 1: timed out",
    ]
