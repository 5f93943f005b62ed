"""`truco tournament show|watch` and `truco match show` in every mode (1v1, team 2v2,
individual 2v2), text and --json, against the real API: a match's line is the platform's
outcome (winner first, the winner's score first, partnerships in individual 2v2, never a
"draw" for a won match), and the standings carry the format's own columns."""

from __future__ import annotations

import re
from typing import Any

import httpx

from arena.sdk import BotServer
from services.tournaments.ranked import standing_columns
from tests.cli.conftest import Truco, unique
from truco_cli.results import COLUMN_LABELS


def _play(
    truco: Truco,
    platform_url: str,
    bots: list[BotServer],
    *,
    format: str,
    mode: str,
    seats: int = 2,
    individual: bool = False,
) -> tuple[str, list[str]]:
    """A finished event of ``seats`` bots (the two servers, registered as often as needed)."""
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    names = [unique(f"b{k}") for k in range(seats)]
    for k, name in enumerate(names):
        truco.ok("bot", "register", name, bots[k % 2].url)
    partnership = ["--partnership", "individual"] if individual else []
    tid = truco.ok(
        "tournament", "create", f"Copa {mode}", "--format", format, "--mode", mode,
        *partnership, "--rounds", "1", "--games", "2", "--points", "15", "-q",
    ).out.strip()  # fmt: skip
    truco.ok("tournament", "enter", tid, *names)
    truco.ok("tournament", "start", tid)
    truco.ok("tournament", "watch", tid, "--interval", "0.2", "--timeout", "120")
    return tid, names


def _played(detail: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for r in detail["rounds"] for m in r["matches"] if not m["bye"]]


def _check_outcome(match: dict[str, Any], partners: bool) -> None:
    """The API's outcome agrees with its own winner fields and reads winner first."""
    found = match["outcome"]
    assert found is not None
    names = {e["bot_id"]: e["name"] for e in match["entrants"]}
    first, second = found["sides"]
    assert found["partners"] is partners
    assert len(first["bots"]) == (2 if partners else 1)
    if found["winner_side"] is None:
        assert match["winners"] == [] and "draw" in found["phrase"]
        return
    assert first["side"] == found["winner_side"] and sorted(first["bots"]) == sorted(
        match["winners"]
    )
    winner_name = " & ".join(names[b] for b in first["bots"])
    assert found["phrase"].startswith(f"{winner_name} win")
    if found["decided_by"] == "games":
        assert first["games"] > second["games"]
        assert f" {first['games']}-{second['games']} against " in found["phrase"]


def _check_luck(match: dict[str, Any], shown: str) -> None:
    """The match's luck (docs/luck.md): every game's hands add up to its score, the match's
    luck is its games' (to the rounding), and `truco match show` says it in a line."""
    luck = match["luck"]
    assert luck["model"] == "truco-luck/1" and len(luck["games"]) == len(match["games"])
    for game, played in zip(luck["games"], match["games"], strict=True):
        points = [sum(h["points"][side] for h in game["hands"]) for side in (0, 1)]
        assert points == played["score"]
        assert abs(sum(h["tantos"] for h in game["hands"]) - game["tantos"]) < 1e-3 * len(
            game["hands"]
        )
        difference = played["score"][0] - played["score"][1]
        assert abs(game["adjusted_tantos"] - (difference - game["tantos"])) < 2e-4
    assert abs(sum(g["tantos"] for g in luck["games"]) - luck["tantos"]) < 1e-3 * len(luck["games"])
    side0 = " & ".join(
        e["name"] for k, e in enumerate(match["entrants"]) if e.get("side", k % 2) == 0
    )
    assert (
        f"  luck   {side0} was dealt {luck['tantos']:+.1f} tantos of luck over the match" in shown
    )


def _check_surfaces(
    truco: Truco, platform_url: str, tid: str, names: list[str], *, partners: bool
) -> None:
    detail = httpx.get(f"{platform_url}/v1/tournaments/{tid}").json()
    assert detail["status"] == "finished"
    shown = truco.ok("tournament", "show", tid).out
    for address in (f"{platform_url}/tournaments/{tid}", f"{platform_url}/v1/tournaments/{tid}"):
        assert truco.ok("tournament", "show", address).out == shown  # as watch prints it
    watched = truco.ok("tournament", "watch", tid, "--interval", "0.2").out
    for match in _played(detail):
        _check_outcome(match, partners)
        phrase = match["outcome"]["phrase"]
        assert f"  match {match['id']}: {phrase}  {platform_url}/matches/{match['id']}" in shown
        assert re.search(rf"match {match['id']}: {re.escape(phrase)}$", watched, re.MULTILINE)
        if partners:
            assert phrase.count(" & ") == 2
        shown_match = truco.ok("match", "show", f"{platform_url}/matches/{match['id']}").out
        single = shown_match.splitlines()[0]
        assert single == f"match {match['id']}: {phrase}"
        as_json = truco.ok("match", "show", match["id"], "--json").json()
        assert as_json["outcome"] == match["outcome"]
        assert as_json["winners"] == match["winners"]
        _check_luck(as_json, shown_match)
    # the standings: the format's columns in their ranking order, every bot once
    columns = standing_columns(detail["format"], detail["partnership"])
    head = ["rank", "bot", *(COLUMN_LABELS[c] for c in columns)]
    lines = shown.splitlines()
    at = next(k for k, line in enumerate(lines) if line.split()[:2] == ["rank", "bot"])
    assert lines[at].split() == head
    assert {line.split()[1] for line in lines[at + 1 :]} == set(names)
    shown_json = truco.ok("tournament", "show", tid, "--json").json()
    assert [m["outcome"] for m in _played(shown_json)] == [m["outcome"] for m in _played(detail)]
    assert [s["bot_id"] for s in shown_json["standings"]] == [
        s["bot_id"] for s in detail["standings"]
    ]


def test_one_v_one_round_robin_reads_winner_first_with_its_own_columns(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    tid, names = _play(truco, platform_url, bots, format="round_robin", mode="1v1")
    _check_surfaces(truco, platform_url, tid, names, partners=False)
    heads = truco.ok("tournament", "show", tid).out
    assert re.search(r"^rank\s+bot\s+pts\s+de\s+sb\s+games\s+\+/-$", heads, re.MULTILINE)
    assert "bh-1" not in heads


def test_team_2v2_names_one_bot_a_side(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    tid, names = _play(truco, platform_url, bots, format="swiss", mode="2v2")
    _check_surfaces(truco, platform_url, tid, names, partners=False)


def test_individual_2v2_names_the_partnerships_and_never_a_false_draw(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    tid, names = _play(
        truco, platform_url, bots, format="swiss", mode="2v2", seats=4, individual=True
    )
    _check_surfaces(truco, platform_url, tid, names, partners=True)
    detail = httpx.get(f"{platform_url}/v1/tournaments/{tid}").json()
    (match,) = _played(detail)
    assert match["winner"] is None  # the old CLI read this, and printed a draw
    heads = truco.ok("tournament", "show", tid).out
    assert re.search(r"^rank\s+bot\s+pts\s+bh\s+games\s+\+/-$", heads, re.MULTILINE)


def test_the_column_headings_are_the_pages_abbreviations() -> None:
    from services.tournaments.formats import FORMATS
    from services.web.views.standings import TIEBREAK_LABELS

    assert {key: short.lower() for key, (short, _) in TIEBREAK_LABELS.items()} == COLUMN_LABELS
    for name in FORMATS:
        assert set(standing_columns(name)) <= set(COLUMN_LABELS)
    assert set(standing_columns("swiss", "individual")) <= set(COLUMN_LABELS)
