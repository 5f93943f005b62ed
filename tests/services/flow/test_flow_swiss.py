"""Swiss tournaments run to the end through the workflow, matches played in process."""

from __future__ import annotations

import asyncpg
import pytest

from services import flow
from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament

pytestmark = pytest.mark.anyio


async def _ratings(pool: asyncpg.Pool, bots: list[int]) -> dict[int, tuple[float, int]]:
    rows = await pool.fetch(
        "SELECT bot_id, rating, matches FROM ratings WHERE mode = '1v1' AND bot_id = ANY($1)",
        bots,
    )
    return {row["bot_id"]: (row["rating"], row["matches"]) for row in rows}


async def test_four_bot_swiss_runs_to_the_end(flow_pool: asyncpg.Pool) -> None:
    tid, bots = await make_tournament(flow_pool, "swiss", 4)
    sender = InProcessSender(in_process({bots[0]: "heuristic"}))
    first = await flow.start_tournament(flow_pool, tid)
    assert len(first) == 2
    await sender(flow_pool, first)

    tournament = await db_tournaments.get_tournament(flow_pool, tid)
    assert tournament is not None and tournament.status == "finished"
    assert tournament.settings.rounds == 3  # ceil(log2 4) + 1
    assert tournament.finished_at is not None and tournament.current_round == 3
    matches = await db_matches.tournament_matches(flow_pool, tid)
    assert len(matches) == 6 and all(m.status == "done" for m in matches)
    assert sorted(sender.played) == sorted(m.id for m in matches)
    # every pair met at most once (three rounds of four: everyone met everyone)
    pairs = [frozenset(m.bots) for m in matches]
    assert len(set(pairs)) == 6
    assert all(r.status == "done" for r in await db_tournaments.rounds(flow_pool, tid))
    # each match has a distinct 63-bit seed, a result and a replay
    assert len({m.seed for m in matches}) == 6 and all(0 <= m.seed < 2**63 for m in matches)
    assert all(m.result is not None for m in matches)
    for m in matches:
        assert await db_matches.replay_json(flow_pool, m.id) is not None

    ratings = await _ratings(flow_pool, bots)
    assert {b: n for b, (_, n) in ratings.items()} == dict.fromkeys(bots, 3)
    assert sum(r for r, _ in ratings.values()) == 4 * 1500  # zero-sum
    assert any(r != 1500 for r, _ in ratings.values())
    history = await flow_pool.fetchval(
        "SELECT count(*) FROM rating_history WHERE match_id = ANY($1)", [m.id for m in matches]
    )
    assert history == 12

    entrants, rows = await flow.event_state(flow_pool, tid)
    standings = flow.standings("swiss", entrants, rows, third_place=False)
    assert [s.rank for s in standings] == [1, 2, 3, 4]
    assert sum(s.points for s in standings) == 6  # one point per match
    assert standings[0].points >= standings[-1].points


async def test_five_bot_swiss_gives_one_bye_a_round_and_counts_it(
    flow_pool: asyncpg.Pool,
) -> None:
    tid, _bots = await make_tournament(flow_pool, "swiss", 5)
    sender = InProcessSender(in_process({}))
    await sender(flow_pool, await flow.start_tournament(flow_pool, tid))

    tournament = await db_tournaments.get_tournament(flow_pool, tid)
    assert tournament is not None and tournament.status == "finished"
    assert tournament.settings.rounds == 3  # ceil(log2 5) + 1 = 4, capped at n - 2
    matches = await db_matches.tournament_matches(flow_pool, tid)
    byes = [m for m in matches if m.bye]
    assert len(byes) == 3 and len({m.bot0 for m in byes}) == 3  # nobody gets two byes
    assert all(m.status == "done" and m.winner_bot == m.bot0 and not m.rated for m in byes)
    assert {m.round_number for m in byes} == {1, 2, 3}
    played = [m for m in matches if not m.bye]
    assert len(played) == 6 and len({frozenset(m.bots) for m in played}) == 6
    assert not set(sender.played) & {m.id for m in byes}  # byes are never queued

    entrants, rows = await flow.event_state(flow_pool, tid)
    standings = flow.standings("swiss", entrants, rows, third_place=False)
    assert sum(s.points for s in standings) == 6 + 3  # each match one point, each bye one
    bye_bots = {m.bot0 for m in byes}
    for row in standings:  # a bye is a win: points = wins + draws/2 + the bye
        mine = [m for m in played if row.bot_id in m.bots]
        wins = sum(m.winner_bot == row.bot_id for m in mine)
        draws = sum(m.winner_side is None for m in mine)
        assert row.points == wins + draws / 2 + (row.bot_id in bye_bots)
    history = await flow_pool.fetchval(
        "SELECT count(*) FROM rating_history WHERE match_id = ANY($1)", [m.id for m in matches]
    )
    assert history == 12  # rated matches only, never the byes
