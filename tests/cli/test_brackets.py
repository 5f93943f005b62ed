"""`truco tournament show` and `watch` on brackets, against the real API with real bots on
127.0.0.1: the first round's byes are printed (the platform decides them without a match), and
each match is named as the tournament page names it ("Semi-final 2", "Winners final", "Losers
round 1", "Grand final"), in the text and in the ``--json`` document; ``watch`` numbers a
round's matches in the order it reports them ("(1/2)", then "(2/2)")."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from arena.sdk import BotServer, strategy_decider
from services.tournaments.brackets.names import match_names
from services.tournaments.formats import bracket_format
from tests.cli.conftest import Truco, unique


@pytest.fixture
def five() -> Iterator[list[BotServer]]:
    servers = [
        BotServer(strategy_decider("random", seed=k), name="r", secret=None, port=0)
        for k in range(5)
    ]
    for server in servers:
        server.start()
    yield servers
    for server in servers:
        server.stop()


def _field(truco: Truco, platform_url: str, servers: list[BotServer]) -> list[str]:
    truco.ok("account", "create", unique("brackets"), "--url", platform_url)
    names = [unique("b") for _ in servers]
    for name, server in zip(names, servers, strict=True):
        truco.ok("bot", "register", name, server.url)
    return names


def _played(truco: Truco, fmt: str, names: list[str]) -> str:
    tid = truco.ok(
        "tournament", "create", unique("cup"), "--format", fmt, "--mode", "1v1", "--games", "1",
        "-q",
    ).out.strip()  # fmt: skip
    truco.ok("tournament", "enter", tid, *names)
    truco.ok("tournament", "start", tid)
    return tid


def test_a_single_elimination_shows_its_byes_and_names_its_rounds(
    platform_url: str, truco: Truco, five: list[BotServer]
) -> None:
    """Five bots in an eight-slot bracket: three byes in the quarter-finals, one played."""
    names = _field(truco, platform_url, five)
    tid = _played(truco, "single_elimination", names)
    detail = httpx.get(f"{platform_url}/v1/tournaments/{tid}").json()
    expected = match_names(bracket_format("single_elimination").make_bracket(5), double=False)
    assert {m["code"]: m["name"] for m in detail["bracket"]["matches"]} == expected
    shown = truco.ok("tournament", "show", tid).out
    first = shown[shown.index("round 1 (done)") : shown.index("round 2")]
    byes = re.findall(r"^  (Quarter-final \d): (\S+) has a bye$", first, re.MULTILINE)
    assert len(byes) == 3, shown
    assert {who for _, who in byes} <= set(names)
    assert re.search(r"^  match \d+ \(Quarter-final \d\): \S+ wins", first, re.MULTILINE), shown
    later = shown[shown.index("round 2") :]
    assert len(re.findall(r"\(Semi-final [12]\): ", later)) == 2, shown
    assert re.search(r"^  match \d+ \(Final\): ", later, re.MULTILINE), shown
    watched = truco.ok("tournament", "watch", tid).out.splitlines()
    assert sum(bool(re.match(r"round 1 Quarter-final \d: \S+ has a bye$", x)) for x in watched) == 3
    assert any(re.match(r"round 3 \(1/1\) match \d+ \(Final\): ", x) for x in watched), watched
    as_json = truco.ok("tournament", "show", tid, "--json").json()
    assert {m["name"] for m in as_json["bracket"]["matches"]} >= {"Final", "Quarter-final 1"}


def test_double_elimination_rounds_are_named_as_on_the_page(
    platform_url: str, truco: Truco, five: list[BotServer]
) -> None:
    names = _field(truco, platform_url, five[:4])
    tid = _played(truco, "double_elimination", names)
    page = httpx.get(f"{platform_url}/tournaments/{tid}").text
    shown = truco.ok("tournament", "show", tid).out
    labels = re.findall(r"^  match \d+ \(([^)]+)\): ", shown, re.MULTILINE)
    assert {"Winners semi-final 1", "Winners semi-final 2", "Winners final", "Losers final",
            "Grand final"} <= set(labels), shown  # fmt: skip
    assert any(label.startswith("Losers round 1") for label in labels), shown
    for label in labels:  # the page's own words
        assert label in page, label
    watched = truco.ok("tournament", "watch", tid).out
    assert re.search(r"^round 1 \(1/2\) match \d+ \(Winners semi-final 1\): ", watched, re.M)
    assert re.search(r"^round 1 \(2/2\) match \d+ \(Winners semi-final 2\): ", watched, re.M)
    json_names = {m["name"] for m in truco.ok("tournament", "watch", tid, "--json").json()[
        "bracket"]["matches"]}  # fmt: skip
    assert set(labels) <= json_names


def test_watch_numbers_a_rounds_matches_in_the_order_it_tells_them(
    platform_url: str, truco: Truco, five: list[BotServer]
) -> None:
    """Three bots in a Swiss: each round is a bye and a match, both over by the first look;
    the bye is told first as "(1/2)", the match second as "(2/2)" (as docs/quickstart.md
    shows it), never both as "(2/2)"."""
    names = _field(truco, platform_url, five[:3])
    tid = _played(truco, "swiss", names)
    lines = [x for x in truco.ok("tournament", "watch", tid).out.splitlines() if x[:6] == "round "]
    for number in (1, 2, 3):
        told = [x for x in lines if x.startswith(f"round {number} ")]
        assert [x.split()[2] for x in told] == ["(1/2)", "(2/2)"], lines
