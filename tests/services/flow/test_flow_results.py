"""Results are stored once with one Elo change; withdrawals forfeit; start and challenge rules."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from arena.match.replay import Replay
from arena.match.runner import run_match
from arena.match.verify import verify_replay
from engine.errors import RulesError
from engine.rules import Rules
from services import flow
from services.db import matches as db_matches
from services.db import ratings as db_ratings
from services.db import tournaments as db_tournaments
from services.domain.ratings import RatedMatch, compute_ratings
from tests.services.helpers.flow_helpers import (
    BOX,
    InProcessSender,
    in_process,
    make_account,
    make_bot,
    make_tournament,
)

pytestmark = pytest.mark.anyio


async def _play(pool: asyncpg.Pool, match_id: int, strategies: dict[int, str]) -> Replay:
    (spec,) = await flow.match_specs(pool, [match_id], secret_box=BOX)
    connector = in_process(strategies)
    entrants = [connector(e, 1) for e in spec.entrants]
    return await run_match(str(spec.match_id), spec.seed, spec.settings, entrants)


async def test_a_result_recorded_twice_is_stored_once_and_rated_once(
    flow_pool: asyncpg.Pool,
) -> None:
    owner = await make_account(flow_pool)
    a, b = await make_bot(flow_pool, owner), await make_bot(flow_pool, owner)
    match_id = await flow.create_challenge(
        flow_pool, a, b, mode="1v1", rules={"points_to_win": 15}, games_per_match=2, rated=True
    )
    replay = await _play(flow_pool, match_id, {a: "heuristic"})
    # two deliveries of the same task, at the same time and then again later
    first = await asyncio.gather(
        flow.record_result(flow_pool, match_id, replay, task_id="t1"),
        flow.record_result(flow_pool, match_id, replay, task_id="t1"),
    )
    assert sorted(r.stored for r in first) == [False, True]  # stored once
    assert [r.next_ids for r in first] == [[], []]
    assert not (await flow.record_result(flow_pool, match_id, replay, task_id="t2")).stored

    assert (
        await flow_pool.fetchval("SELECT count(*) FROM match_results WHERE match_id = $1", match_id)
        == 1
    )
    history = await db_ratings.history_of_match(flow_pool, match_id)
    assert [h[0] for h in history] == sorted([a, b])
    (ha, hb) = sorted(history, key=lambda h: h[0] != a)
    assert ha[2] == hb[2] == 1500 and ha[3] + hb[3] == 3000  # one zero-sum change
    match = await db_matches.get_match(flow_pool, match_id)
    assert match is not None and match.status == "done" and match.attempts == 1
    assert match.winner_side == replay.result.winner
    rating = dict(
        await flow_pool.fetch(
            "SELECT bot_id, matches FROM ratings WHERE mode = '1v1' AND bot_id = ANY($1)", [a, b]
        )
    )
    assert rating == {a: 1, b: 1}
    # the stored replay is the one recorded, compressed, and it verifies
    stored = await db_matches.replay_json(flow_pool, match_id)
    assert stored is not None
    size = await flow_pool.fetchrow(
        "SELECT size_bytes, stored_size FROM replays WHERE match_id = $1", match_id
    )
    assert size is not None and size["stored_size"] < size["size_bytes"] == len(stored)
    verify_replay(
        Replay.__struct_config__ and __import__("msgspec").json.decode(stored, type=Replay)
    )


async def test_stored_ratings_equal_a_recomputation_from_history(
    flow_pool: asyncpg.Pool,
) -> None:
    tid, bots = await make_tournament(flow_pool, "round_robin", 4, games_per_match=1)
    await InProcessSender(in_process({bots[0]: "heuristic"}))(
        flow_pool, await flow.start_tournament(flow_pool, tid)
    )
    rows = await flow_pool.fetch(
        "SELECT m.id, m.winner_side, "
        "(SELECT bot_id FROM match_entrants WHERE match_id = m.id AND side = 0) AS a, "
        "(SELECT bot_id FROM match_entrants WHERE match_id = m.id AND side = 1) AS b "
        "FROM matches m WHERE m.tournament_id = $1 "
        "ORDER BY (SELECT min(id) FROM rating_history h WHERE h.match_id = m.id)",
        tid,
    )
    sequence = [
        RatedMatch(
            "1v1",
            (r["a"],),
            (r["b"],),
            "draw" if r["winner_side"] is None else ("a" if r["winner_side"] == 0 else "b"),
        )
        for r in rows
    ]
    expected = compute_ratings(sequence)["1v1"]
    stored = dict(
        await flow_pool.fetch(
            "SELECT bot_id, rating FROM ratings WHERE mode = '1v1' AND bot_id = ANY($1)", bots
        )
    )
    assert stored == {bot: float(expected[bot].rating) for bot in bots}


async def test_a_withdrawn_bot_forfeits_and_the_event_still_finishes(
    flow_pool: asyncpg.Pool,
) -> None:
    tid, bots = await make_tournament(flow_pool, "swiss", 4)
    leaver = bots[3]
    withdrawn: list[list[int]] = []
    started: list[int] = []

    async def withdraw_once(pool: asyncpg.Pool, match_id: int) -> None:
        if not started:  # the first match played: its result arrives after the bot left
            started.append(match_id)
            withdrawn.append((await flow.withdraw_bot(pool, leaver)).ready)

    def hook(pool: asyncpg.Pool, match_id: int) -> asyncio.Future[None]:
        return asyncio.ensure_future(withdraw_once(pool, match_id))

    sender = InProcessSender(in_process({}), before_record=hook)
    first = await flow.start_tournament(flow_pool, tid)
    await sender(flow_pool, first)

    tournament = await db_tournaments.get_tournament(flow_pool, tid)
    assert tournament is not None and tournament.status == "finished"
    matches = await db_matches.tournament_matches(flow_pool, tid)
    forfeits = [m for m in matches if m.status == "forfeit"]
    assert len(forfeits) == 1 and leaver in forfeits[0].bots
    assert forfeits[0].winner_bot != leaver and forfeits[0].winner_bot is not None
    assert forfeits[0].result is not None and forfeits[0].result.reason == "withdrawn"
    # the leaver is paired in round 1 only (rounds 2 and 3 pair the three others + a bye)
    later = [m for m in matches if (m.round_number or 0) > 1]
    assert later and all(leaver not in m.bots for m in later)
    assert sum(m.bye for m in later) == 2
    # no Elo for the forfeit
    assert await db_ratings.history_of_match(flow_pool, forfeits[0].id) == []
    entries = {e.bot_id: e for e in await db_tournaments.entries(flow_pool, tid)}
    assert entries[leaver].withdrawn_at is not None
    entrants, rows = await flow.event_state(flow_pool, tid)
    standings = flow.standings("swiss", entrants, rows)
    assert [s.withdrawn for s in standings].count(True) == 1
    # round 1 was still open when the bot left: nothing new to queue then
    assert withdrawn == [[]]
    # the forfeited match was played anyway; its late result changed nothing
    assert forfeits[0].id in sender.played
    late = sender.replays[forfeits[0].id]
    assert not (await flow.record_result(flow_pool, forfeits[0].id, late)).stored
    assert (
        await flow_pool.fetchval("SELECT count(*) FROM replays WHERE match_id = $1", forfeits[0].id)
        == 0
    )


async def test_a_withdrawal_in_a_bracket_advances_the_opponent(
    flow_pool: asyncpg.Pool,
) -> None:
    tid, _bots = await make_tournament(flow_pool, "single_elimination", 4)
    first = await flow.start_tournament(flow_pool, tid)
    seeds = {e.seed: e.bot_id for e in await db_tournaments.entries(flow_pool, tid) if e.seed}
    assert len(first) == 2
    # seed 4 leaves before playing: seed 1 goes through at once; nothing new until 2 v 3 ends
    assert (await flow.withdraw_bot(flow_pool, seeds[4])).ready == []
    (other,) = [m for m in await db_matches.get_matches(flow_pool, first) if seeds[4] not in m.bots]
    replay = await _play(flow_pool, other.id, {})
    final = (await flow.record_result(flow_pool, other.id, replay)).next_ids
    (final_match,) = await db_matches.get_matches(flow_pool, final)
    assert final_match.bracket_match == "W2-1" and seeds[1] in final_match.bots
    assert (await flow.withdraw_bot(flow_pool, seeds[1])).ready == []  # the final is forfeited too
    tournament = await db_tournaments.get_tournament(flow_pool, tid)
    assert tournament is not None and tournament.status == "finished"


async def test_start_refuses_bad_states(flow_pool: asyncpg.Pool) -> None:
    tid, _ = await make_tournament(flow_pool, "swiss", 1)
    with pytest.raises(flow.NotEnoughEntrants):
        await flow.start_tournament(flow_pool, tid)
    tid, _ = await make_tournament(flow_pool, "swiss", 2)
    await flow.start_tournament(flow_pool, tid)
    with pytest.raises(flow.TournamentStateError):
        await flow.start_tournament(flow_pool, tid)
    with pytest.raises(flow.TournamentNotFound):
        await flow.start_tournament(flow_pool, 10**12)
    owner = await make_account(flow_pool)
    late = await make_bot(flow_pool, owner)
    with pytest.raises(flow.TournamentStateError):
        await flow.enter_tournament(flow_pool, tid, late)


async def test_unavailable_bots_are_left_out_at_the_start(flow_pool: asyncpg.Pool) -> None:
    tid, bots = await make_tournament(flow_pool, "swiss", 3)
    await flow_pool.execute("UPDATE bots SET status = 'unavailable' WHERE id = $1", bots[2])
    first = await flow.start_tournament(flow_pool, tid)
    (match,) = await db_matches.get_matches(flow_pool, first)
    assert set(match.bots) == set(bots[:2])
    entries = {e.bot_id: e for e in await db_tournaments.entries(flow_pool, tid)}
    assert entries[bots[2]].seed is None and entries[bots[2]].withdrawn_at is not None


async def test_entering_twice_or_an_unavailable_bot_is_refused(flow_pool: asyncpg.Pool) -> None:
    tid, bots = await make_tournament(flow_pool, "swiss", 2)
    with pytest.raises(flow.AlreadyEntered):
        await flow.enter_tournament(flow_pool, tid, bots[0])
    owner = await make_account(flow_pool)
    gone = await make_bot(flow_pool, owner)
    await flow_pool.execute(
        "UPDATE bots SET status = 'deleted', deleted_at = now() WHERE id = $1", gone
    )
    with pytest.raises(flow.BotUnavailable):
        await flow.enter_tournament(flow_pool, tid, gone)


async def test_due_tournaments_are_the_registering_ones_whose_time_came(
    flow_pool: asyncpg.Pool,
) -> None:
    now = datetime.now(UTC)
    organiser = await make_account(flow_pool)
    ids = []
    for start in (now - timedelta(minutes=1), now + timedelta(hours=1), None):
        created = await flow.create_tournament(
            flow_pool,
            organiser_id=organiser,
            name="timed",
            format="swiss",
            mode="1v1",
            settings=flow.TournamentSettings(),
            start_at=start,
        )
        ids.append(created.id)
    due = await db_tournaments.due_tournaments(flow_pool, now)
    assert ids[0] in due and ids[1] not in due and ids[2] not in due
    # no bot entered the due one: beat's flow.due_tournaments cancels it instead of starting
    assert ids[0] not in await flow.due_tournaments(flow_pool, now)
    cancelled = await db_tournaments.get_tournament(flow_pool, ids[0])
    assert cancelled is not None and cancelled.status == "cancelled"


async def test_challenges_check_bots_and_rules(flow_pool: asyncpg.Pool) -> None:
    owner = await make_account(flow_pool)
    a, b = await make_bot(flow_pool, owner), await make_bot(flow_pool, owner)
    with pytest.raises(flow.SameBot):
        await flow.create_challenge(
            flow_pool, a, a, mode="1v1", rules={}, games_per_match=2, rated=False
        )
    with pytest.raises(flow.BotNotFound):
        await flow.create_challenge(
            flow_pool, a, 10**12, mode="1v1", rules={}, games_per_match=2, rated=False
        )
    with pytest.raises(RulesError, match="players"):
        await flow.create_challenge(
            flow_pool, a, b, mode="2v2", rules={"players": 2}, games_per_match=2, rated=False
        )
    match_id = await flow.create_challenge(
        flow_pool, a, b, mode="2v2", rules={"flor": False}, games_per_match=2, rated=False
    )
    (spec,) = await flow.match_specs(flow_pool, [match_id], secret_box=BOX)
    assert spec.settings.rules.players == 4 and spec.settings.rules.flor is False
    assert [e.bot_id for e in spec.entrants] == [a, b]
    assert all(e.secret.startswith("whsec_") for e in spec.entrants)
    replay = await _play(flow_pool, match_id, {})
    recorded = await flow.record_result(flow_pool, match_id, replay)
    assert recorded.stored and recorded.next_ids == []  # a challenge sets nothing off
    assert await db_ratings.history_of_match(flow_pool, match_id) == []  # unrated
    # a finished match is not handed out again
    assert await flow.match_specs(flow_pool, [match_id], secret_box=BOX) == []


async def test_a_secret_sealed_under_another_key_holds_back_only_its_own_match(
    flow_pool: asyncpg.Pool,
) -> None:
    """One bot's secret that this key cannot open (a key rotated by hand, a restored backup):
    its match is not sent, and every other match still is (the sweeper sent none before)."""
    from services.base.config import Secret
    from services.base.secretbox import SecretBox
    from services.db import matches as db_matches
    from tests.services.helpers.flow_helpers import BOX, make_account, make_bot

    owner = await make_account(flow_pool)
    good = [await make_bot(flow_pool, owner) for _ in range(2)]
    stranger = await make_bot(flow_pool, owner, box=SecretBox(Secret("t" * 48)))
    ids = []
    async with flow_pool.acquire() as conn:
        for pair in ((good[0], good[1]), (good[0], stranger)):
            ids.append(
                await db_matches.insert_match(
                    conn,
                    bots=pair,
                    mode="1v1",
                    seed=1,
                    rated=False,
                    games_per_match=1,
                    rules=Rules(),
                )
            )
    specs = await flow.match_specs(flow_pool, ids, secret_box=BOX)
    assert [s.match_id for s in specs] == [ids[0]]
