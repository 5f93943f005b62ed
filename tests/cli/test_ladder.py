"""`truco ladder join|show|resume|leave` (text and --json) and `truco verify ladder POOL DAY`
against the served API: a day played through the in-process flow on the API's database
verifies by download and from a saved file (exit 0), a tampered file fails (1), garbage is
unreadable (2), and a day not yet revealed verifies all but its seeds (3)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import asyncpg

from arena.sdk import BotServer
from services.db.pool import create_pool
from tests.cli.conftest import Truco, unique
from tests.services.api.test_ladder_api import play_a_day


def _play(url: str, day: datetime, *, reveal: bool) -> None:
    async def go() -> None:
        pool = await create_pool(url, min_size=1, max_size=4)
        try:
            await play_a_day(pool, day, reveal=reveal)
        finally:
            await pool.close()

    asyncio.run(go())


def test_join_show_resume_and_leave(
    truco: Truco, platform_url: str, bots: list[BotServer], api_database_url: str
) -> None:
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    name = unique("lad")
    truco.ok("bot", "register", name, bots[0].url)
    joined = truco.ok("ladder", "join", "1v1", name, "--hourly-cap", "7")
    assert "on the 1v1 ladder" in joined.out and "waiting" in joined.out
    entry = truco.ok("ladder", "join", "1v1", name, "--json").json()
    assert entry["name"] == name and entry["hourly_cap"] == 7  # joining again changes nothing
    board = truco.ok("ladder", "show", "1v1", "--json").json()
    assert name in [e["name"] for e in board["entries"]]
    text = truco.ok("ladder", "show", "1v1").out
    assert "rank" in text and "95% interval" in text and name in text
    bot_id = entry["bot_id"]

    async def pause() -> None:
        conn = await asyncpg.connect(api_database_url)
        try:
            await conn.execute(
                "UPDATE ladder_entries SET paused_at = now(), pause_cause = 'walkover: gone' "
                "WHERE bot_id = $1",
                bot_id,
            )
        finally:
            await conn.close()

    asyncio.run(pause())
    shown = truco.ok("ladder", "show", "1v1").out
    assert f"{name} (paused)" in shown and "walkover: gone" in shown  # the owner sees why
    resumed = truco.ok("ladder", "resume", "1v1", name, "--json").json()
    assert resumed["paused"] is False
    assert "paused" not in truco.ok("ladder", "resume", "1v1", name).out
    left = truco.ok("ladder", "leave", "1v1", name)
    assert "left the 1v1 ladder" in left.out
    again = truco("ladder", "leave", "1v1", name)
    assert again.code != 0 and "Traceback" not in again.err


def test_verify_a_ladder_day(
    truco: Truco, platform_url: str, api_database_url: str, tmp_path: Path
) -> None:
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    _play(api_database_url, datetime(2026, 10, 1, 9, 0, tzinfo=UTC), reveal=False)
    early = truco("verify", "ladder", "1v1", "2026-10-01")
    assert early.code == 3, early.out + early.err  # the day is not over: no seed to check
    _play(api_database_url, datetime(2026, 10, 3, 9, 0, tzinfo=UTC), reveal=True)
    saved = tmp_path / "day.json"
    done = truco("verify", "ladder", "1v1", "2026-10-03", "--save", saved)
    assert done.code == 0 and "verified: every check passed" in done.out, done.out
    assert "ok    luck: " in done.out and "model truco-luck/1" in done.out, done.out
    assert truco("verify", "ladder", "1v1", "2026-10-03", "--file", saved).code == 0
    doc = json.loads(saved.read_bytes())
    lucky = json.loads(saved.read_bytes())  # a hand's luck moved: the recomputation says where
    played = next(m for m in lucky["matches"] if (m.get("result") or {}).get("luck"))
    played["result"]["luck"]["games"][0]["hands"][0]["win"] += 0.01
    moved = tmp_path / "luck.json"
    moved.write_text(json.dumps(lucky))
    caught = truco("verify", "ladder", "1v1", "2026-10-03", "--file", moved)
    assert caught.code == 1, caught.out
    assert f"FAIL  match {played['id']} luck: game 1 hand 1 win recorded" in caught.out
    match = next(m for m in doc["matches"] if m.get("seed") is not None)
    match["seed"] = (
        int(match["seed"]) + 1 if isinstance(match["seed"], int) else "00" + match["seed"][2:]
    )
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(doc))
    failed = truco("verify", "ladder", "1v1", "2026-10-03", "--file", tampered)
    assert failed.code == 1 and "FAIL" in failed.out, failed.out
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x00not json{")
    assert truco("verify", "ladder", "1v1", "2026-10-03", "--file", garbage).code == 2
    wrong_day = truco("verify", "ladder", "1v1", "2026-10-02", "--file", saved)
    assert wrong_day.code == 1  # the export is of another day


def test_a_ladder_match_is_shown_as_one(
    truco: Truco, platform_url: str, api_database_url: str
) -> None:
    """`truco match show` says where a match was played: "ladder 1v1", not "challenge" (a
    ladder match has no tournament, and it is rated, unlike a challenge)."""
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    _play(api_database_url, datetime(2026, 9, 1, 9, 0, tzinfo=UTC), reveal=False)

    async def first_ladder_match() -> int:
        conn = await asyncpg.connect(api_database_url)
        try:
            found: int = await conn.fetchval(
                "SELECT id FROM matches WHERE ladder_pool = '1v1' AND status = 'done' "
                "ORDER BY id LIMIT 1"
            )
            return found
        finally:
            await conn.close()

    match_id = asyncio.run(first_ladder_match())
    shown = truco.ok("match", "show", match_id).out
    assert "  1v1, ladder 1v1, rated, " in shown, shown
    assert "challenge" not in shown
    assert truco.ok("match", "show", match_id, "--json").json()["ladder"] == "1v1"
