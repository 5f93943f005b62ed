"""Crashes with real processes: kill -9 a worker in the middle of its work; nothing is lost,
nothing is stored twice, Elo moves once.

What recovers what (docs/reliability.md, "Crashes"):

* a pool process killed under a live worker (OOM killer): the worker sees it die and puts the
  message back at once (``acks_late`` + ``reject_on_worker_lost``); another pool process plays
  the match again;
* a whole worker killed: its message stays unacknowledged in Redis (handed out again only
  after the 2 h visibility timeout), so the recovery sweeper (beat, ``truco.requeue_stale_
  matches``) sends the match again once it is stale; here with test thresholds of seconds;
* the trusted worker killed after ``record_result`` committed and before it sent the next
  round: the round stays ``pending`` and the sweeper sends it.

A match begun again is dealt afresh (issue 21, item 7): the hands its bots saw in the killed
attempt are not the hands of the attempt that is stored.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import asyncpg
import pytest

from services import flow
from services.base.config import SweepSettings
from services.worker.results import dispatch
from tests.crash.stack import (
    SlowBots,
    pool_children,
    ratings_consistent,
    register,
    stack,
    stored_once,
    swiss_event,
    wait_db,
    wait_until,
)
from tests.services.worker.processes import process_groups_alive

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.timeout(120)]


async def _challenge(pool: asyncpg.Pool, bots: SlowBots, delay_s: float) -> tuple[int, list[int]]:
    bots.add("heuristic", delay_s, 1)
    bots.add("random", delay_s, 2)
    bot_ids = await register(pool, bots)
    match_id = await flow.create_challenge(
        pool, bot_ids[0], bot_ids[1], mode="1v1", rules={}, games_per_match=2, rated=True
    )
    return match_id, bot_ids


async def _kill_mid_match(
    pool: asyncpg.Pool, bots: SlowBots, match_id: int, kill: Callable[[], None]
) -> int:
    """Send the match, wait until it is surely being played, kill; the /act calls counted by
    then (a call already on the wire may still land after: a lower bound of the killed play's)."""
    await dispatch.send_matches(pool, [match_id])
    await wait_until(lambda: bots.acts >= 8, 30, "the match under way")
    kill()
    acts = bots.acts
    status = await pool.fetchval("SELECT status FROM matches WHERE id = $1", match_id)
    assert status in ("queued", "running"), status
    bots.hurried = True  # the match played again need not be slow
    return acts


async def test_bot_worker_killed_mid_match_whole_process_group_sweeper_recovers(
    pool: asyncpg.Pool, env: dict[str, str], bots: SlowBots, tmp_path: Path
) -> None:
    match_id, bot_ids = await _challenge(pool, bots, 0.03)
    with stack(env, tmp_path / "logs") as crew:
        crew.trusted_worker()
        crew.beat()
        doomed = crew.bot_worker()
        killed_at: list[float] = []

        def kill() -> None:
            crew.procs.remove(doomed)
            doomed.kill9()
            killed_at.append(time.monotonic())

        acts = await _kill_mid_match(pool, bots, match_id, kill)
        # nobody plays it now: no process of the killed worker is left, and no other
        # bot-calling worker runs until the next line starts one
        await wait_until(
            lambda: not process_groups_alive({doomed.pid}), 30, "the killed worker gone"
        )
        crew.bot_worker()  # a new worker, as a supervisor would start
        await wait_db(
            pool, "SELECT status = 'done' FROM matches WHERE id = $1", match_id, logs=crew
        )
        recovered_s = time.monotonic() - killed_at[0]
        beat_log = "\n".join(p.text() for p in crew.procs if p.log.name.startswith("beat"))
        resent = rf"re-sending stale matches \[([0-9, ]*, )?{match_id}(, [0-9, ]*)?\]"
        # every send after the first was the sweeper's: wait for its log of each (the match
        # may be done before the sweeper's line is read from its log)
        attempts = await pool.fetchval("SELECT attempts FROM matches WHERE id = $1", match_id)
        deadline = time.monotonic() + 30
        while True:
            trusted_log = "\n".join(
                p.text() for p in crew.procs if p.log.name.startswith("trusted")
            )
            resends = len(re.findall(resent, trusted_log))
            if resends >= attempts - 1 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    counts = await stored_once(pool, [match_id])
    assert counts == {"matches": 1, "results": 1, "rating_history": 2}
    await ratings_consistent(pool, bot_ids)
    # sent, then re-sent by the sweeper. How many times more is timing, not a guarantee: the
    # test's threshold (TRUCO_SWEEP_QUEUED_AFTER_S, 8 s) is far above a match here only on an
    # idle machine, and a re-sent match still unfinished 8 s later is sent again (a loaded
    # machine saw 4 attempts). What the product guarantees: every send after the first is one
    # of the sweeper's (each logged), never more than its cap of attempts (then it gives up,
    # and this match was not given up: it is done), and stored and rated once (above)
    assert 2 <= attempts <= min(1 + resends, SweepSettings().max_attempts), (attempts, resends)
    assert "truco.requeue_stale_matches" in beat_log
    # the sweeper sent it again (possibly with other stale matches in the same pass)
    assert re.search(resent, trusted_log), trusted_log[-2000:]
    assert bots.acts > acts  # played again from the start
    await _dealt_afresh(pool, bots, match_id)
    print(f"\nwhole bot-calling worker killed mid-match: done {recovered_s:.1f}s after the kill")


def _attempt_and_place(game_id: str) -> tuple[int, int]:
    """(attempt, game number) of a game id: ``{match}-g{n}``, ``{match}-a{a}-g{n}``."""
    parts = game_id.split("-")
    return (int(parts[1][1:]) if len(parts) == 3 else 0), int(parts[-1][1:])


async def _dealt_afresh(pool: asyncpg.Pool, bots: SlowBots, match_id: int) -> None:
    """Issue 21, item 7: the attempt the sweeper sent again dealt other cards than the killed
    one (before, every hand of it was dealt again to the same seat), and its replay says which
    attempt it was."""
    from arena.match.replay import load_replay
    from services.db.matches import replays_json

    async with pool.acquire() as conn:
        replay = load_replay((await replays_json(conn, [match_id]))[match_id])
    assert replay.attempt >= 1
    by_attempt: dict[int, dict[tuple[int, int, int], tuple[str, ...]]] = {}
    for (game_id, hand, seat), cards in bots.dealt.items():
        attempt, game = _attempt_and_place(game_id)
        by_attempt.setdefault(attempt, {})[(game, hand, seat)] = cards
    killed, stored = by_attempt[0], by_attempt[replay.attempt]
    aligned = [(cards, stored[key]) for key, cards in killed.items() if key in stored]
    same = sum(a == b for a, b in aligned)
    # two independent deals give a seat the same three cards once in 9,880
    assert len(aligned) >= 2 and same <= 1 and same < len(aligned), (aligned, same)


async def test_pool_process_killed_mid_match_is_redelivered_at_once(
    pool: asyncpg.Pool, env: dict[str, str], bots: SlowBots, tmp_path: Path
) -> None:
    """kill -9 of the prefork pool process only: reject_on_worker_lost puts it back at once."""
    match_id, bot_ids = await _challenge(pool, bots, 0.03)
    with stack(env, tmp_path / "logs") as crew:
        crew.trusted_worker()
        worker = crew.bot_worker(pool="prefork", concurrency=1)
        children = pool_children(worker)
        assert len(children) == 1
        killed_at: list[float] = []

        def kill() -> None:
            import os
            import signal

            os.kill(children[0], signal.SIGKILL)
            killed_at.append(time.monotonic())

        await _kill_mid_match(pool, bots, match_id, kill)
        await wait_db(
            pool, "SELECT status = 'done' FROM matches WHERE id = $1", match_id, logs=crew
        )
        recovered_s = time.monotonic() - killed_at[0]
        text = worker.text()
    assert "WorkerLostError" in text or "exited prematurely" in text
    counts = await stored_once(pool, [match_id])
    assert counts == {"matches": 1, "results": 1, "rating_history": 2}
    await ratings_consistent(pool, bot_ids)
    # sent once: the broker handed the same message out again (no sweeper here)
    assert await pool.fetchval("SELECT attempts FROM matches WHERE id = $1", match_id) == 1
    await _dealt_afresh(pool, bots, match_id)  # the same message, begun again: dealt afresh
    print(f"\npool process killed mid-match: done {recovered_s:.1f}s after the kill")


async def test_trusted_worker_killed_after_storing_before_sending_next_round(
    pool: asyncpg.Pool, env: dict[str, str], bots: SlowBots, tmp_path: Path
) -> None:
    for k in range(4):
        bots.add("heuristic" if k % 2 else "random", 0.0, k)
    tournament_id, bot_ids = await swiss_event(pool, bots, name="crash cup", rounds=3)
    marker = tmp_path / "blocked"
    with stack(env, tmp_path / "logs") as crew:
        hooked = crew.trusted_worker(
            module="tests.crash.hooked_worker",
            extra={"TRUCO_TEST_BLOCK_AFTER_RECORD": str(marker)},
        )
        crew.bot_worker()
        await dispatch.send_matches(pool, await flow.start_tournament(pool, tournament_id))
        await wait_until(marker.exists, 60, "the hook after record_result")
        pid, stored_match, next_ids = marker.read_text().split()
        assert int(pid) in {hooked.pid, *pool_children(hooked)}
        pending = [int(x) for x in next_ids.split(",")]
        statuses = await pool.fetch(
            "SELECT status FROM matches WHERE id = ANY($1::bigint[])", pending
        )
        assert {r["status"] for r in statuses} == {"pending"}  # committed, never sent
        assert (
            await pool.fetchval(
                "SELECT count(*) FROM match_results WHERE match_id = $1", int(stored_match)
            )
            == 1
        )
        crew.procs.remove(hooked)
        hooked.kill9()
        began = time.monotonic()
        crew.trusted_worker()  # a plain one, as a supervisor would start
        crew.beat()
        await wait_db(
            pool,
            "SELECT status = 'finished' FROM tournaments WHERE id = $1",
            tournament_id,
            timeout=90,
            logs=crew,
        )
        finished_s = time.monotonic() - began
    match_ids = [
        int(r["id"])
        for r in await pool.fetch("SELECT id FROM matches WHERE tournament_id = $1", tournament_id)
    ]
    assert len(match_ids) == 6  # 3 rounds x 2 boards
    counts = await stored_once(pool, match_ids)
    assert counts == {"matches": 6, "results": 6, "rating_history": 12}
    await ratings_consistent(pool, bot_ids)
    attempts = await pool.fetch(
        "SELECT attempts FROM matches WHERE id = ANY($1::bigint[])", pending
    )
    assert {r["attempts"] for r in attempts} == {1}  # sent by the sweeper, once
    print(f"\ntrusted worker killed between store and send: finished {finished_s:.1f}s later")
