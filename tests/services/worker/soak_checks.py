"""What the soak asserts once everything has stopped, from the database and through the API:
every match stored once, the tournament's export verifies (its standings recomputed from its
results, its replays re-simulated, its Elo changes recomputed: ``truco verify tournament``'s
checks), every rating and rating change equal to a refit of its pool from the stored history,
and the /play sessions as the people saw them end."""

from __future__ import annotations

from typing import Any

import asyncpg
import httpx

from services.domain import RATING_POOLS
from services.flow.rating_refit import recompute_pool
from services.tournaments.files.export_document import decode_export
from truco_cli.verify_event import verify_export

OPEN = ("pending", "queued", "running")


async def stored_once(conn: asyncpg.Connection) -> dict[str, int]:
    """Every match is over; each played one (done or forfeit, not a bye) has exactly one
    result and one replay and, rated, moved Elo once (a rating change per bot); one that was
    not played (cancelled, error) has none. The counts by status."""
    rows = await conn.fetch(
        "SELECT m.id, m.status, m.rated, m.bye, m.ladder_pool, "
        "(SELECT count(*) FROM match_results r WHERE r.match_id = m.id) AS results, "
        "(SELECT count(*) FROM rating_history h WHERE h.match_id = m.id) AS history, "
        "(SELECT count(*) FROM replays p WHERE p.match_id = m.id) AS replays "
        "FROM matches m ORDER BY m.id"
    )
    counts: dict[str, int] = {}
    for row in rows:
        assert row["status"] not in OPEN, dict(row)
        counts[row["status"]] = counts.get(row["status"], 0) + 1
        if row["bye"]:
            continue
        if row["status"] in ("done", "forfeit"):
            assert (row["results"], row["replays"]) == (1, 1), dict(row)
            assert row["history"] == (2 if row["rated"] else 0), dict(row)
        else:
            assert row["results"] == row["history"] == 0, dict(row)
    return counts


async def refit_differs(conn: asyncpg.Connection) -> list[str]:
    """Every pool recomputed from its stored history (``recompute_pool``, the annulment's
    refit) in a transaction rolled back: the ratings and rating changes that came out
    different (none, when every result moved Elo once and in order)."""
    ratings = "SELECT bot_id, mode, rating, matches, wins, losses, draws FROM ratings ORDER BY 1, 2"
    history = "SELECT id, bot_id, mode, match_id, rating_before, rating_after FROM rating_history"
    differs: list[str] = []
    transaction = conn.transaction()
    await transaction.start()
    try:
        before = [dict(r) for r in await conn.fetch(ratings)]
        changes = {r["id"]: dict(r) for r in await conn.fetch(history)}
        for pool in RATING_POOLS:
            if await conn.fetchval("SELECT count(*) FROM rating_history WHERE mode = $1", pool):
                await recompute_pool(conn, pool)
        after = [dict(r) for r in await conn.fetch(ratings)]
        refit = {r["id"]: dict(r) for r in await conn.fetch(history)}
    finally:
        await transaction.rollback()
    for old, new in zip(before, after, strict=True):
        if not _same(old, new):
            differs.append(f"rating {old} refits to {new}")
    for ident, old in changes.items():
        if not _same(old, refit[ident]):
            differs.append(f"rating change {old} refits to {refit[ident]}")
    return differs


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(
        abs(a[k] - b[k]) < 1e-6 if isinstance(a[k], float) else a[k] == b[k] for k in a
    )


def verify_tournament(client: httpx.Client, tournament: int) -> list[str]:
    """The tournament's export through the API, checked as ``truco verify tournament`` does
    (commitment, seeds, replays, results, standings recomputed from the results, Elo); the
    checks passed (it raises ``Discrepancy`` at the first that fails)."""
    answer = client.get(f"/v1/tournaments/{tournament}/export", timeout=300)
    assert answer.status_code == 200, answer.text[:500]
    said: list[str] = []
    verified = verify_export(decode_export(answer.content), say=said.append)
    assert verified.complete, verified.gaps
    return verified.checks


def replay_decisions(client: httpx.Client, match_id: int) -> int:
    """How many decisions the stored replay of ``match_id`` records."""
    answer = client.get(f"/v1/matches/{match_id}/replay", timeout=60)
    assert answer.status_code == 200, answer.text[:300]
    return sum(
        1
        for game in answer.json()["games"]
        for event in game["events"]
        if event.get("type") == "decision"
    )
