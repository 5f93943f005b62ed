"""`truco export decisions` takes what `truco verify tournament` takes (one resolver): a
finished event by id, its page address (as `truco tournament watch` prints it), its API
address, its export's address and its saved export all give the same rows; a missing file,
garbage and an unknown event are a clear error and a non-zero exit."""

from __future__ import annotations

import json
from pathlib import Path

from arena.sdk import BotServer
from tests.cli.conftest import Truco, unique


def _finished(truco: Truco, platform_url: str, bots: list[BotServer]) -> str:
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    names = [unique("b") for _ in range(4)]
    for k, name in enumerate(names):  # four bots on the two servers: two matches a round
        truco.ok("bot", "register", name, bots[k % 2].url)
    tid = truco.ok(
        "tournament", "create", "Copa Export", "--format", "swiss", "--mode", "1v1",
        "--rounds", "1", "--games", "2", "--points", "15", "-q",
    ).out.strip()  # fmt: skip
    truco.ok("tournament", "enter", tid, *names)
    truco.ok("tournament", "start", tid)
    truco.ok("tournament", "watch", tid, "--interval", "0.2", "--timeout", "120")
    return tid


def test_every_kind_of_source_gives_the_same_rows(
    platform_url: str, truco: Truco, bots: list[BotServer], tmp_path: Path
) -> None:
    tid = _finished(truco, platform_url, bots)
    saved = tmp_path / "event.json"
    truco.ok("verify", "tournament", f"{platform_url}/tournaments/{tid}", "--save", saved)
    sources = {
        "id": tid,
        "page": f"{platform_url}/tournaments/{tid}",
        "api": f"{platform_url}/v1/tournaments/{tid}",
        "export": f"{platform_url}/v1/tournaments/{tid}/export",
        "file": str(saved),
    }
    rows: dict[str, list[str]] = {}
    for kind, source in sources.items():
        out = tmp_path / f"{kind}.jsonl"
        said = truco.ok("export", "decisions", source, "--out", out).out
        rows[kind] = out.read_text().splitlines()
        assert f"{len(rows[kind])} decisions from 2 matches written to {out}" in said, kind
    assert len(rows["id"]) > 0
    assert all(lines == rows["id"] for lines in rows.values())
    match_ids = {json.loads(line)["match_id"] for line in rows["id"]}
    assert len(match_ids) == 2


def test_bad_sources_say_what_is_wrong(platform_url: str, truco: Truco, tmp_path: Path) -> None:
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    out = tmp_path / "rows.jsonl"
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    cases = {
        str(tmp_path / "missing.json"): (2, "No such tournament or file"),
        "nonsense!": (2, "No such tournament or file"),
        str(garbage): (2, "Not a replay or a tournament export"),
        f"{platform_url}/bots/3": (2, "Not a tournament address"),
        f"{platform_url}/tournaments/987654": (1, "(404)"),
        "http://127.0.0.1:9/tournaments/1": (1, "Platform unreachable"),
        "http://[::1": (2, "Not a tournament address"),
    }
    for source, (code, words) in cases.items():
        for command in (
            ["export", "decisions", source, "--out", out],
            ["verify", "tournament", source],
        ):
            got = truco(*command)
            if command[0] == "verify" and source == str(garbage):
                assert got.code == 2 and "is not a tournament export" in got.err
                continue
            assert got.code == code and words in got.err, (command, got)
        assert not out.exists() and not out.with_name(out.name + ".part").exists()
