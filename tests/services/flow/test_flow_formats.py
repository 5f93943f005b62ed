"""Brackets and round robin through the workflow, to the end, matches played in process."""

from __future__ import annotations

import asyncpg
import pytest

from services import flow
from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from services.tournaments.played import advancing_side
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament

pytestmark = pytest.mark.anyio


async def _run(pool: asyncpg.Pool, tid: int, sender: InProcessSender) -> None:
    await sender(pool, await flow.start_tournament(pool, tid))
    tournament = await db_tournaments.get_tournament(pool, tid)
    assert tournament is not None and tournament.status == "finished"


async def _seeds(pool: asyncpg.Pool, tid: int) -> dict[int, int]:
    return {e.seed: e.bot_id for e in await db_tournaments.entries(pool, tid) if e.seed}


async def test_single_elimination_with_five_bots_gives_byes_to_the_top_seeds(
    flow_pool: asyncpg.Pool,
) -> None:
    tid, bots = await make_tournament(flow_pool, "single_elimination", 5)
    first = await flow.start_tournament(flow_pool, tid)
    # 8-slot bracket: seeds 1, 2, 3 have byes; 4 v 5 (W1) and 2 v 3 (W2, both byes) are ready
    rows = await db_matches.get_matches(flow_pool, first)
    seeds = await _seeds(flow_pool, tid)
    assert {(m.bracket_match, m.bots) for m in rows} == {
        ("W1-2", (seeds[4], seeds[5])),
        ("W2-2", (seeds[2], seeds[3])),
    }
    sender = InProcessSender(in_process({seeds[1]: "heuristic"}))
    await sender(flow_pool, first)
    tournament = await db_tournaments.get_tournament(flow_pool, tid)
    assert tournament is not None and tournament.status == "finished"

    matches = await db_matches.tournament_matches(flow_pool, tid)
    assert len(matches) == 4  # n - 1 matches; byes are not rows
    assert {m.bracket_match for m in matches} == {"W1-2", "W2-1", "W2-2", "W3-1"}
    final = next(m for m in matches if m.bracket_match == "W3-1")
    entrants, rows = await flow.event_state(flow_pool, tid)
    standings = flow.standings("single_elimination", entrants, rows)
    champion = standings[0].bot_id
    advancing = final.bots[advancing_side(final, {b: s for s, b in seeds.items()})]
    assert champion == advancing
    assert standings[1].bot_id in final.bots and standings[1].bot_id != champion
    assert sorted(s.bot_id for s in standings) == sorted(bots)
    assert [m.round_number for m in sorted(matches, key=lambda m: m.bracket_match or "")] == [
        1,
        2,
        2,
        3,
    ]


async def test_double_elimination_with_four_bots_finishes(flow_pool: asyncpg.Pool) -> None:
    tid, _ = await make_tournament(flow_pool, "double_elimination", 4)
    await _run(flow_pool, tid, InProcessSender(in_process({})))
    matches = await db_matches.tournament_matches(flow_pool, tid)
    codes = {m.bracket_match for m in matches}
    assert codes - {"GF2"} == {"W1-1", "W1-2", "W2-1", "L1-1", "L2-1", "GF"}
    assert {m.bracket for m in matches} <= {"main", "losers", "final"}
    entrants, rows = await flow.event_state(flow_pool, tid)
    standings = flow.standings("double_elimination", entrants, rows)
    # nobody but the champion is out with fewer than two losses
    for row in standings[1:]:
        assert row.tiebreaks["losses"] == 2 or row.rank == 2


async def test_round_robin_with_four_bots_pairs_everyone_once(flow_pool: asyncpg.Pool) -> None:
    tid, _bots = await make_tournament(flow_pool, "round_robin", 4)
    await _run(flow_pool, tid, InProcessSender(in_process({})))
    matches = await db_matches.tournament_matches(flow_pool, tid)
    assert len(matches) == 6
    assert len({frozenset(m.bots) for m in matches}) == 6
    assert sorted(m.round_number or 0 for m in matches) == [1, 1, 2, 2, 3, 3]
    entrants, rows = await flow.event_state(flow_pool, tid)
    standings = flow.standings("round_robin", entrants, rows)
    assert sum(s.points for s in standings) == 6
    assert set(standings[0].tiebreaks) == {
        "direct_encounter",
        "sonneborn_berger",
        "game_points",
        "tantos_difference",
        "buchholz",
        "buchholz_cut1",
    }


async def test_round_robin_with_five_bots_rests_one_a_round(flow_pool: asyncpg.Pool) -> None:
    tid, _bots = await make_tournament(flow_pool, "round_robin", 5, games_per_match=1)
    await _run(flow_pool, tid, InProcessSender(in_process({})))
    matches = await db_matches.tournament_matches(flow_pool, tid)
    assert len(matches) == 10 and not any(m.bye for m in matches)
    assert len({frozenset(m.bots) for m in matches}) == 10
    assert max(m.round_number or 0 for m in matches) == 5
