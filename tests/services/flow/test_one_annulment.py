"""One annulment (docs/moderation.md "Annulled ladder matches"): a disqualification and a
collusion flag's annulment go through one table and one rule. A match both annul is annulled
once (by whichever came first, with that action's audit line), the pool's Elo then equals a
recomputation from the matches left, and the ladder day still verifies."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg
import pytest

from services.db import annulment as db_annulment
from services.db import ladder_flags as db_flags
from services.domain import side_result
from services.domain.ratings import RatedMatch, compute_ratings
from services.flow import ladder_integrity
from services.flow import moderation as flow_moderation
from services.flow.ladder_export import day_chunks
from services.flow.moderation import Actor
from services.tournaments.files.export_document import decode_ladder_day
from tests.services.api.test_admin_api import play_ladder, rated_games
from truco_cli.verify_ladder import verify_ladder_day

pytestmark = pytest.mark.anyio
ADMIN = Actor(None, "server:test")
EVIDENCE = {
    "matches": 6,
    "score": 6.0,
    "expected": 3.0,
    "others_matches": 6,
    "others_score": 3.0,
    "strength_from_others": 1500.0,
    "z": 3.2,
    "z_results": 3.2,
    "z_points": None,
    "points_share": None,
    "expected_share": None,
    "match_ids": [],
}


async def pair_of(pool: asyncpg.Pool, bot: int, others: list[int]) -> tuple[int, list[int]]:
    """An opponent of ``bot`` among ``others`` it met on the ladder, and their matches."""
    rows = await pool.fetch(
        "SELECT them.bot_id, array_agg(m.id ORDER BY m.id) AS ids FROM matches m "
        "JOIN match_entrants me ON me.match_id = m.id AND me.bot_id = $1 "
        "JOIN match_entrants them ON them.match_id = m.id AND them.side <> me.side "
        "WHERE m.ladder_pool = '1v1' AND them.bot_id = ANY($2) AND EXISTS "
        "(SELECT 1 FROM rating_history h WHERE h.match_id = m.id) "
        "GROUP BY them.bot_id ORDER BY count(*) DESC, them.bot_id LIMIT 1",
        bot,
        others,
    )
    assert rows, "the pair never met"
    return int(rows[0]["bot_id"]), [int(i) for i in rows[0]["ids"]]


async def tallies(pool: asyncpg.Pool, bots: list[int]) -> dict[int, int]:
    """Each bot's rated ladder matches as the ladder counts them."""
    rows = await pool.fetch(
        "SELECT bot_id, rated FROM ladder_tallies WHERE pool = '1v1' AND bot_id = ANY($1)", bots
    )
    return {int(r["bot_id"]): int(r["rated"]) for r in rows}


async def flag(pool: asyncpg.Pool, bot: int, against: int) -> int:
    async with pool.acquire() as conn:
        return await db_flags.upsert_flag(conn, "1v1", bot, "bot", against, EVIDENCE)


async def test_a_match_a_flag_and_a_disqualification_both_annul_is_annulled_once(
    flow_pool: asyncpg.Pool,
) -> None:
    pool = flow_pool
    bots = await play_ladder(pool, bots=5, ticks=10)
    before = await rated_games(pool, "1v1")
    target = bots[1]
    target_matches = await db_annulment.ladder_matches_of_bot(pool, target)
    accomplice, flagged_matches = await pair_of(pool, target, [b for b in bots if b != target])
    assert set(flagged_matches) < set(target_matches)
    others = [b for b in bots if b not in (target, accomplice)]
    third, third_matches = await pair_of(pool, target, others)
    ladder_counts = await tallies(pool, bots)

    # the flag first: the pair's matches are annulled with the flag's line
    first = await flag(pool, accomplice, target)
    decided = await ladder_integrity.annul(pool, first, ADMIN, "colluded")
    assert decided.annulled == flagged_matches
    assert decided.entry.action == "annul_pair" and decided.entry.target_id == accomplice
    assert decided.entry.detail["flag_id"] == first
    # then the disqualification: the target's other ladder matches, not those again
    done = await flow_moderation.disqualify_bot(pool, target, ADMIN, "engine assist")
    assert done.entry is not None
    assert done.entry.detail["annulled_ladder_matches"] == sorted(
        set(target_matches) - set(flagged_matches)
    )
    # and a flag decided after it, on a pair whose matches are all annulled: nothing twice
    late = await flag(pool, third, target)
    again = await ladder_integrity.annul(pool, late, ADMIN, "colluded too")
    assert again.annulled == [] and again.entry.detail["annulled_ladder_matches"] == []

    rows = await pool.fetch(
        "SELECT match_id, log_id, flag_id FROM annulled_matches WHERE match_id = ANY($1) "
        "ORDER BY match_id",
        target_matches,
    )
    assert [r["match_id"] for r in rows] == sorted(target_matches)  # once each
    for row in rows:
        if row["match_id"] in flagged_matches:
            assert (row["log_id"], row["flag_id"]) == (decided.entry.id, first)
        else:
            assert (row["log_id"], row["flag_id"]) == (done.entry.id, None)
    assert set(third_matches) <= set(target_matches)
    assert await db_annulment.annulled_by_flag(pool, [first, late]) == {first: flagged_matches}

    # one rule: Elo is a recomputation from the matches left (none of the annulled moved a
    # rating), and the ladder's match counts left them once
    kept = [g for g in before if g[0] not in set(target_matches)]
    expected = compute_ratings(
        RatedMatch("1v1", tuple(a), tuple(b), side_result(w), m) for m, a, b, w in kept
    )["1v1"]
    stored = await pool.fetch(
        "SELECT bot_id, rating FROM ratings WHERE mode = '1v1' AND matches > 0"
    )
    assert {r["bot_id"]: round(r["rating"]) for r in stored} == {
        b: r.rating for b, r in expected.items()
    }
    assert not await pool.fetchval(
        "SELECT count(*) FROM rating_history WHERE match_id = ANY($1)", target_matches
    )
    counts_after = await tallies(pool, bots)
    for bot in bots:
        lost = sum(1 for m, a, b, _ in before if m in set(target_matches) and bot in a + b)
        assert counts_after[bot] == ladder_counts[bot] - lost, bot

    # the day's export names the annulled matches once; `truco verify ladder` passes
    day = datetime.now(UTC).date()
    doc = decode_ladder_day(b"".join([c async for c in day_chunks(pool, "1v1", day)]))
    assert set(doc.annulled) >= set(target_matches)
    lines: list[str] = []
    verify_ladder_day(doc, say=lines.append)
    assert any("annulled matches" in line for line in lines), lines


async def test_deciding_a_flag_twice_or_an_unknown_flag_is_refused(flow_pool: asyncpg.Pool) -> None:
    bots = await play_ladder(flow_pool, bots=3, ticks=3)
    flag_id = await flag(flow_pool, bots[0], bots[1])
    await ladder_integrity.dismiss(flow_pool, flag_id, ADMIN, "honest")
    with pytest.raises(ladder_integrity.FlagDecided, match="dismissed already"):
        await ladder_integrity.annul(flow_pool, flag_id, ADMIN, "changed my mind")
    with pytest.raises(ladder_integrity.FlagNotFound):
        await ladder_integrity.dismiss(flow_pool, 2**62, ADMIN, "none")
    entries = await flow_pool.fetch(
        "SELECT action, reason, detail->>'flag_id' AS flag FROM moderation_log "
        "WHERE detail->>'flag_id' = $1",
        str(flag_id),
    )
    assert [(e["action"], e["reason"]) for e in entries] == [("dismiss_flag", "honest")]
