"""The matrix: each mode (1v1, team 2v2, individual 2v2) played as a small finished event and
read through every surface: the API, the CLI (text and --json, in tests/cli/test_modes.py's
checks), the pages in English and Spanish, the export and `truco verify`. The winners, the
partnerships, the winner-first score, the standings' order and `decided_by` must agree."""

from __future__ import annotations

import html
import re
from typing import Any

import httpx
import msgspec
import pytest

from arena.sdk import BotServer
from services.tournaments.files.export_document import decode_export
from tests.cli.conftest import Truco
from tests.cli.test_modes import _check_surfaces, _play, _played

MODES = {
    "1v1 round robin": {"format": "round_robin", "mode": "1v1"},
    "2v2 team swiss": {"format": "swiss", "mode": "2v2"},
    "2v2 individual swiss": {"format": "swiss", "mode": "2v2", "seats": 4, "individual": True},
}


def _section(page: str, section_id: str) -> str:
    found = re.search(rf'<section[^>]*id="{section_id}".*?</section>', page, re.DOTALL)
    assert found is not None, f"no section {section_id}"
    return html.unescape(found.group(0))


def _order(text: str, names: list[str]) -> list[str]:
    """``names`` in the order they first appear in ``text``."""
    return sorted((n for n in names if n in text), key=text.index)


@pytest.mark.parametrize("case", MODES)
def test_every_surface_tells_the_same_event(
    case: str, platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    spec: dict[str, Any] = dict(MODES[case])
    individual = bool(spec.get("individual"))
    tid, names = _play(truco, platform_url, bots, **spec)
    _check_surfaces(truco, platform_url, tid, names, partners=individual)  # API and CLI
    detail = httpx.get(f"{platform_url}/v1/tournaments/{tid}").json()
    standing = {s["bot_id"]: s for s in detail["standings"]}
    by_id = {e["bot_id"]: e["name"] for m in _played(detail) for e in m["entrants"]}
    ranked = [by_id[s["bot_id"]] for s in detail["standings"] if s["bot_id"] in by_id]

    # the pages, in both languages: the standings in the API's order, each match's page
    # with its winners first
    for lang in ("en", "es"):
        page = httpx.get(f"{platform_url}/tournaments/{tid}", params={"lang": lang})
        assert page.status_code == 200
        assert _order(_section(page.text, "standings"), ranked) == ranked, lang
        for match in _played(detail):
            shown = httpx.get(f"{platform_url}/matches/{match['id']}", params={"lang": lang})
            assert shown.status_code == 200
            outcome = match["outcome"]
            first, second = outcome["sides"]
            line = re.search(r'<strong class="match-result">(.*?)</strong>', shown.text)
            assert line is not None, (lang, match["id"])
            told = html.unescape(line.group(1))
            assert told.endswith(f" {first['games']}-{second['games']}"), (lang, told)
            if outcome["winner_side"] is not None:
                assert all(by_id[b] in told for b in first["bots"]), (lang, told)
                assert not any(by_id[b] in told for b in second["bots"]), (lang, told)

    # the export: the same winners, results and standings order
    exported = httpx.get(f"{platform_url}/v1/tournaments/{tid}/export")
    doc = decode_export(exported.content)
    assert [s.bot_id for s in doc.standings] == [s["bot_id"] for s in detail["standings"]]
    played = {
        m["id"]: httpx.get(f"{platform_url}/v1/matches/{m['id']}").json() for m in _played(detail)
    }
    for match in doc.matches:
        if match.id not in played:
            continue
        api = played[match.id]
        assert match.winner_side == api["winner_side"]
        assert sorted(match.seats) == sorted(e["bot_id"] for e in api["entrants"])
        result = msgspec.convert(match.result, dict)
        assert result["games_won"] == api["games_won"]
        if api["outcome"]["decided_by"] in ("games", "tantos", "draw"):
            assert result["reason"] == api["reason"]
    for bot_id, row in standing.items():
        exported_row = next(s for s in doc.standings if s.bot_id == bot_id)
        assert exported_row.rank == row["rank"] and exported_row.points == row["points"]

    # truco verify: every check passes on the same event
    verified = truco("verify", "tournament", tid)
    assert verified.code == 0, verified.out + verified.err
    assert "verified: every check passed" in verified.out
