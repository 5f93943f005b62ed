"""Individual 2v2 through the workflow (real PostgreSQL, matches played in process): four
bots a match, byes for the remainder, per-bot standings and Elo, withdrawals, refusals."""

from __future__ import annotations

import asyncio
from collections import Counter

import asyncpg
import pytest

from services import flow
from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from services.domain.ratings import RatedMatch, compute_ratings
from tests.services.helpers.flow_helpers import (
    InProcessSender,
    in_process,
    make_account,
    make_tournament,
)

pytestmark = pytest.mark.anyio
POOL = "2v2-individual"


async def _finished(pool: asyncpg.Pool, tid: int) -> list[db_matches.StoredMatch]:
    tournament = await db_tournaments.get_tournament(pool, tid)
    assert tournament is not None and tournament.status == "finished"
    return await db_matches.tournament_matches(pool, tid)


async def test_six_bots_swiss_one_table_and_two_byes_a_round(flow_pool: asyncpg.Pool) -> None:
    tid, bots = await make_tournament(
        flow_pool,
        "swiss",
        6,
        mode="2v2",
        partnership="individual",
        owners=list(range(6)),
        rounds=3,
    )
    sender = InProcessSender(in_process({bots[0]: "heuristic", bots[1]: "heuristic"}))
    await sender(flow_pool, await flow.start_tournament(flow_pool, tid))
    matches = await _finished(flow_pool, tid)
    rounds = max(m.round_number or 0 for m in matches)
    assert rounds == 3
    byes: Counter[int] = Counter()
    partners: Counter[frozenset[int]] = Counter()
    for number in range(1, rounds + 1):
        played = [m for m in matches if m.round_number == number]
        tables = [m for m in played if not m.bye]
        assert len(tables) == 1 and len(tables[0].seats) == 4
        assert tables[0].partnership == "individual" and tables[0].status == "done"
        byes.update(m.bot0 for m in played if m.bye)
        partners.update(frozenset(tables[0].side_bots(s)) for s in (0, 1))
        assert sorted([*tables[0].seats, *(m.bot0 for m in played if m.bye)]) == sorted(bots)
    assert sorted(byes.values()) == [1] * 6  # each bot sits out once in three rounds
    assert max(partners.values()) == 1
    # every finished replay has the four bots in slot order and plays them one seat each
    for match_id, replay in sender.replays.items():
        row = next(m for m in matches if m.id == match_id)
        assert [e.name for e in replay.entrants] == [
            (await _names(flow_pool, row.seats))[b] for b in row.seats
        ]

    standings = flow.standings(
        "swiss", *await flow.event_state(flow_pool, tid), partnership="individual"
    )
    assert sorted(r.bot_id for r in standings) == sorted(bots)
    assert [r.rank for r in standings] == list(range(1, 7))
    assert sum(r.points for r in standings) == pytest.approx(3 * 2 + 3 * 2)  # tables + byes
    assert all("buchholz" in r.tiebreaks for r in standings)
    points = sorted((r.points for r in standings), reverse=True)
    assert points == [r.points for r in standings]


async def _names(pool: asyncpg.Pool, bots: tuple[int, ...]) -> dict[int, str]:
    return await db_matches.entrant_names(pool, list(bots))


async def test_elo_is_per_bot_in_its_own_pool_partners_move_together(
    flow_pool: asyncpg.Pool,
) -> None:
    tid, bots = await make_tournament(
        flow_pool,
        "round_robin",
        4,
        mode="2v2",
        partnership="individual",
        owners=[0, 1, 2, 3],
        games_per_match=1,
    )
    await InProcessSender(in_process({bots[0]: "heuristic"}))(
        flow_pool, await flow.start_tournament(flow_pool, tid)
    )
    matches = await _finished(flow_pool, tid)
    assert len(matches) == 3
    partners = Counter(frozenset(m.side_bots(s)) for m in matches for s in (0, 1))
    assert len(partners) == 6  # four bots, three rounds: everyone partners everyone once
    rows = await flow_pool.fetch(
        "SELECT bot_id, mode, rating, matches FROM ratings WHERE bot_id = ANY($1)", bots
    )
    assert {r["mode"] for r in rows} == {POOL} and len(rows) == 4
    assert {r["matches"] for r in rows} == {3}
    assert sum(r["rating"] for r in rows) == pytest.approx(4 * 1500)
    for match in matches:
        history = {h[0]: h[3] - h[2] for h in await _history(flow_pool, match.id)}  # bot -> delta
        a, b = match.side_bots(0), match.side_bots(1)
        assert history[a[0]] == history[a[1]] == -history[b[0]] == -history[b[1]]
    # the stored ratings are the pure fold's (mean of each pair against the other pair)
    ordered = sorted(matches, key=lambda m: m.id)
    folded = compute_ratings(
        RatedMatch(
            POOL,
            m.side_bots(0),
            m.side_bots(1),
            "draw" if m.winner_side is None else "ab"[m.winner_side],  # type: ignore[arg-type]
        )
        for m in ordered
    )[POOL]
    assert {r["bot_id"]: round(r["rating"]) for r in rows} == {b: folded[b].rating for b in bots}


async def _history(pool: asyncpg.Pool, match_id: int) -> list[tuple[int, str, float, float]]:
    from services.db import ratings as db_ratings

    return await db_ratings.history_of_match(pool, match_id)


async def test_a_withdrawn_bot_forfeits_its_side_and_the_event_goes_on(
    flow_pool: asyncpg.Pool,
) -> None:
    tid, bots = await make_tournament(
        flow_pool, "swiss", 8, mode="2v2", partnership="individual", owners=list(range(8))
    )
    leaver = bots[3]
    withdrawn: list[list[int]] = []

    def withdraw_once(pool: asyncpg.Pool, match_id: int) -> asyncio.Future[None] | None:
        async def go() -> None:
            if not withdrawn:
                withdrawn.append((await flow.withdraw_bot(pool, leaver)).ready)

        return asyncio.ensure_future(go())

    sender = InProcessSender(in_process({}), before_record=withdraw_once)
    await sender(flow_pool, await flow.start_tournament(flow_pool, tid))
    matches = await _finished(flow_pool, tid)
    forfeits = [m for m in matches if m.status == "forfeit"]
    assert len(forfeits) == 1 and leaver in forfeits[0].seats
    lost = forfeits[0].seats.index(leaver) % 2
    assert forfeits[0].winner_side == 1 - lost
    later = [m for m in matches if (m.round_number or 0) > (forfeits[0].round_number or 0)]
    assert later and all(leaver not in m.seats for m in later)
    # 7 bots left: one table and three byes a round
    assert all(
        sum(not m.bye for m in later if m.round_number == r) == 1
        for r in {m.round_number for m in later}
    )
    standings = flow.standings(
        "swiss", *await flow.event_state(flow_pool, tid), partnership="individual"
    )
    assert [r.withdrawn for r in standings].count(True) == 1


async def test_refusals(flow_pool: asyncpg.Pool) -> None:
    organiser = await make_account(flow_pool)
    for format, mode in (("swiss", "1v1"), ("single_elimination", "2v2")):
        with pytest.raises(flow.BadPartnership):
            await flow.create_tournament(
                flow_pool,
                organiser_id=organiser,
                name="no",
                format=format,
                mode=mode,
                settings=flow.TournamentSettings(),
                partnership="individual",
            )
    # four time banks a match: 50 games fit the workers' cap in team 2v2, not in individual
    for partnership in ("team", "individual"):
        create = flow.create_tournament(
            flow_pool,
            organiser_id=organiser,
            name="long",
            format="swiss",
            mode="2v2",
            settings=flow.TournamentSettings(games_per_match=50),
            partnership=partnership,
        )
        if partnership == "team":
            await create
        else:
            with pytest.raises(flow.SettingsTooLong, match="4 time banks"):
                await create
    tid, _ = await make_tournament(
        flow_pool, "swiss", 3, mode="2v2", partnership="individual", owners=[0, 1, 2]
    )
    with pytest.raises(flow.NotEnoughEntrants, match="it needs 4"):
        await flow.start_tournament(flow_pool, tid)
    # the database refuses an individual 1v1 too
    with pytest.raises(asyncpg.CheckViolationError):
        await flow_pool.execute(
            "INSERT INTO tournaments (organiser_id, name, format, mode, partnership) "
            "VALUES ($1, 'x', 'swiss', '1v1', 'individual')",
            organiser,
        )


async def test_two_bots_per_owner_never_share_a_table(flow_pool: asyncpg.Pool) -> None:
    """8 bots of 4 owners (two each), 3 rounds: every table seats four owners (partners and
    opponents from different owners) and no partnership repeats (n/2 - m + 1 = 3 rounds)."""
    tid, bots = await make_tournament(
        flow_pool,
        "swiss",
        8,
        mode="2v2",
        partnership="individual",
        owners=[0, 1, 2, 3, 0, 1, 2, 3],
        rounds=3,
    )
    await InProcessSender(in_process({bots[0]: "heuristic"}))(
        flow_pool, await flow.start_tournament(flow_pool, tid)
    )
    matches = await _finished(flow_pool, tid)
    owner = {e.bot_id: e.owner_id for e in await db_tournaments.entries(flow_pool, tid)}
    assert len(set(owner.values())) == 4
    partners: Counter[frozenset[int]] = Counter()
    assert len(matches) == 6
    for match in matches:
        assert len({owner[b] for b in match.seats}) == 4
        partners.update(frozenset(match.side_bots(s)) for s in (0, 1))
    assert max(partners.values()) == 1
