"""`truco verify tournament`: a finished Swiss played over HTTP by real bots on 127.0.0.1
verifies from its id, its page address or a saved file; every kind of tampering with the
saved export fails the check, naming what was changed; a legacy event verifies all but its
seeds."""

from __future__ import annotations

import asyncio
import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from arena.sdk import BotServer, strategy_decider
from tests.cli.conftest import Truco, unique

Tamper = Callable[[dict[str, Any]], None]


@pytest.fixture
def four_bots() -> Iterator[list[BotServer]]:
    servers = [
        BotServer(strategy_decider(strategy, seed=k), name=strategy, secret=None, port=0)
        for k, strategy in enumerate(["heuristic", "random", "weak-heuristic", "random"])
    ]
    for server in servers:
        server.start()
    yield servers
    for server in servers:
        server.stop()


def _finished_swiss(truco: Truco, platform_url: str, bots: list[BotServer]) -> str:
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    names = [unique("b") for _ in bots]
    for name, server in zip(names, bots, strict=True):
        truco.ok("bot", "register", name, server.url)
    tid = truco.ok(
        "tournament", "create", "Copa Verify", "--format", "swiss", "--mode", "1v1",
        "--rounds", "3", "--games", "2", "--points", "15", "-q",
    ).out.strip()  # fmt: skip
    truco.ok("tournament", "enter", tid, *names)
    truco.ok("tournament", "start", tid)
    return tid


def _played(doc: dict[str, Any]) -> dict[str, Any]:
    """The second match with a replay (not the first, so an index slip cannot pass)."""
    return [m for m in doc["matches"] if m["replay"] is not None][1]


def _swap_deal(doc: dict[str, Any]) -> None:
    event = _played(doc)["replay"]["games"][0]["events"][0]
    assert event["type"] == "hand_started"
    event["deal"] = [event["deal"][1], event["deal"][0]]


def _luck_of_a_hand(doc: dict[str, Any]) -> None:
    hand = _played(doc)["result"]["luck"]["games"][1]["hands"][2]
    hand["tantos"] = round(hand["tantos"] + 0.25, 4)  # luck moved from one side to the other


def _bump_elo(doc: dict[str, Any]) -> None:
    _played(doc)["rating_changes"][0]["after"] += 3


TAMPERING: dict[str, tuple[Tamper, str]] = {
    "commitment": (
        lambda d: d["seeds"].update(commitment="ab" * 32),
        r"seed commitment: SHA-256 of the revealed master seed is [0-9a-f]{64}, but the "
        r"published commitment is (ab){32}",
    ),
    "master seed": (
        lambda d: d["seeds"].update(master_seed="cd" * 32),
        r"seed commitment: SHA-256 of the revealed master seed is [0-9a-f]{64}, but",
    ),
    "one match seed": (
        lambda d: _played(d).update(seed=_played(d)["seed"] ^ 1),
        r"match \d+ seed: \d+ is not HMAC-SHA256\(master seed, 'truco-arena/match/v1/\d+/1/1/-'\)",
    ),
    "one replay event": (
        _swap_deal,
        r"match \d+ replay: game 1, event 0: recorded \{\"type\":\"hand_started\"",
    ),
    "one result": (
        # one side's tantos raised: reversing them was no change when both were equal
        lambda d: _played(d)["result"]["tantos"].__setitem__(
            0, _played(d)["result"]["tantos"][0] + 1
        ),
        r"match \d+ result: tantos recorded \[\d+, \d+\], its replay gives \[\d+, \d+\]",
    ),
    "one hand's luck": (
        _luck_of_a_hand,
        r"match \d+ luck: game 2 hand 3 tantos recorded -?\d+\.\d+, recomputed -?\d+\.\d+",
    ),
    "a match's luck": (
        lambda d: _played(d)["result"]["luck"].update(
            win=_played(d)["result"]["luck"]["win"] - 0.01
        ),
        r"match \d+ luck: win recorded -?\d+\.\d+, recomputed -?\d+\.\d+",
    ),
    "standings order": (
        lambda d: d["standings"].insert(0, d["standings"].pop(1)),
        r"standings: line 1 of the export is rank 2 bot \d+ .*, the results give rank 1 bot",
    ),
    "a bot that never entered": (
        lambda d: _played(d)["seats"].__setitem__(0, 2**40),
        r"standings: the results cannot be ranked: .*unknown player id 1099511627776",
    ),
    "one Elo delta": (
        _bump_elo,
        r"match \d+ Elo: bot \d+ moved [+-]\d+ \(\d+ -> \d+\), the Elo rule gives [+-]\d+",
    ),
}


def test_a_finished_swiss_verifies_and_every_tampering_fails(
    platform_url: str, truco: Truco, four_bots: list[BotServer], tmp_path: Path
) -> None:
    tid = _finished_swiss(truco, platform_url, four_bots)
    saved = tmp_path / "export.json"
    checked = truco.ok("verify", "tournament", tid, "--save", saved)
    lines = checked.out.splitlines()
    assert lines[0] == f"downloading {platform_url}/v1/tournaments/{tid}/export"
    assert lines[1] == f"saved {saved}"
    assert lines[2].startswith(f"tournament {tid} 'Copa Verify' (swiss, 1v1, finished): 4 ")
    assert [line.split()[:2] for line in lines[3:10]] == [
        ["ok", "seed"], ["ok", "match"], ["ok", "replays:"],
        ["ok", "results:"], ["ok", "luck:"], ["ok", "standings:"], ["ok", "Elo:"],
    ]  # fmt: skip
    assert "6 derived from the master seed" in lines[4] and "6 re-simulated" in lines[5]
    assert re.match(
        r"ok    luck: 6 matches recomputed .* model truco-luck/1 \(\d+ hands\)$", lines[7]
    )
    assert "12 rating changes" in lines[9] and lines[-1] == "verified: every check passed"

    page = truco.ok("verify", "tournament", f"{platform_url}/tournaments/{tid}")
    assert page.out.splitlines()[0] == lines[0] and page.out.endswith("every check passed\n")
    original = json.loads(saved.read_bytes())
    commitment = original["seeds"]["commitment"]
    assert truco.ok("verify", "tournament", saved, "--commitment", commitment.upper()).out
    other = truco("verify", "tournament", saved, "--commitment", "00" * 32)
    assert other.code == 1 and "the commitment you recorded is 0000" in other.out

    for name, (tamper, message) in TAMPERING.items():
        doc = copy.deepcopy(original)
        tamper(doc)
        assert doc != original, name
        changed = tmp_path / f"{name.replace(' ', '-')}.json"
        changed.write_text(json.dumps(doc))
        result = truco("verify", "tournament", changed)
        assert result.code == 1, (name, result.out)
        failure = result.out.splitlines()[-1]
        assert failure.startswith("FAIL  "), (name, result.out)
        assert re.match(message, failure[6:]), (name, failure)

    # a luck model this truco does not know: its figures cannot be checked (exit 3, not 0)
    doc = copy.deepcopy(original)
    _played(doc)["result"]["luck"]["model"] = "truco-luck/99"
    unknown = tmp_path / "unknown-model.json"
    unknown.write_text(json.dumps(doc))
    result = truco("verify", "tournament", unknown)
    assert result.code == 3, result.out
    assert "skip  luck: model truco-luck/99 is unknown to this truco" in result.out


def test_a_legacy_event_verifies_all_but_its_seeds(
    platform_url: str,
    api_database_url: str,
    truco: Truco,
    four_bots: list[BotServer],
    tmp_path: Path,
) -> None:
    tid = _finished_swiss(truco, platform_url, four_bots[:2])

    async def make_legacy() -> None:
        conn = await asyncpg.connect(api_database_url)
        try:  # as migration 0008 left an event played before it
            await conn.execute("UPDATE tournaments SET master_seed = NULL WHERE id = $1", int(tid))
            await conn.execute(
                "UPDATE matches SET seed_scheme = 'legacy' WHERE tournament_id = $1", int(tid)
            )
        finally:
            await conn.close()

    asyncio.run(make_legacy())
    saved = tmp_path / "legacy.json"
    result = truco("verify", "tournament", tid, "--save", saved)
    assert result.code == 3, result.out
    assert "skip  seeds: this event was created before seeds were committed" in result.out
    assert "ok    replays: 1 re-simulated" in result.out and "ok    Elo: 2 rating" in result.out
    assert result.out.splitlines()[-1].startswith("partly verified")
    doc = json.loads(saved.read_bytes())
    assert doc["seeds"] == {"scheme": "legacy", "commitment": None, "master_seed": None}
    doc["matches"][0]["seed_scheme"] = "derived-v1"  # a legacy event cannot claim it
    saved.write_text(json.dumps(doc))
    claimed = truco("verify", "tournament", saved)
    assert claimed.code == 1 and "marked derived-v1 in an event without a master seed" in (
        claimed.out
    )


def test_sources_that_are_not_an_export(platform_url: str, truco: Truco, tmp_path: Path) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text('{"format": "something else"}')
    wrong = truco("verify", "tournament", notes)
    assert wrong.code == 2 and "is not a tournament export" in wrong.err
    nothing = truco("verify", "tournament", tmp_path / "missing.json")
    assert nothing.code == 2 and "no such file; expected a file, a tournament id" in nothing.err
    elsewhere = truco("verify", "tournament", f"{platform_url}/bots/3")
    assert elsewhere.code == 2 and "Not a tournament address" in elsewhere.err
    absent = truco("verify", "tournament", f"{platform_url}/v1/tournaments/999999999")
    assert absent.code == 1 and "(404)" in absent.err and "no tournament 999999999" in absent.err
