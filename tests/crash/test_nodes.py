"""Several nodes at once (issue 14, goal 5): two bot-calling and two trusted worker processes,
each under its own node name (``-n name@host``), against one PostgreSQL and one Redis; one node
of EACH kind is killed (SIGKILL to its whole process group, as a lost machine) in the middle
of a round, and nothing restarts them. The survivors finish the tournament: every result is
stored once and every rating applied once (asserted from the database).

What recovers what: the killed bot-calling node's matches were never acknowledged and never
reported, and the killed trusted node's prefetched messages die with it; the recovery sweeper
(beat, test thresholds of seconds) sends every match left ``queued``/``running`` again, and
the surviving nodes play and store it; a match played twice is stored once.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import asyncpg
import pytest

from services import flow
from services.worker.results import dispatch
from tests.crash.stack import (
    Proc,
    SlowBots,
    Stack,
    ratings_consistent,
    stack,
    stored_once,
    swiss_event,
    wait_db,
    wait_until,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.timeout(240)]

BOTS = 8  # four boards a round
ROUNDS = 3
GAMES = 2  # short matches (the default is 6): still several in flight when the nodes die
NODE = re.compile(r"\b((?:bots|trusted)-[0-9a-f]{6})@")


def received(proc: Proc, task: str) -> int:
    return len(re.findall(rf"Task {re.escape(task)}\[[0-9a-f-]+\] received", proc.text()))


def succeeded(proc: Proc, task: str) -> int:
    return len(re.findall(rf"Task {re.escape(task)}\[[0-9a-f-]+\] succeeded", proc.text()))


def playing(proc: Proc) -> bool:
    """The bot-calling node has a match it took and has not finished."""
    return received(proc, "truco.play_match") > succeeded(proc, "truco.play_match")


def node_name(proc: Proc) -> str:
    found = NODE.search(proc.text())
    assert found is not None, proc.text()[-2000:]
    return found.group(1)


def kill(crew: Stack, proc: Proc) -> None:
    crew.procs.remove(proc)
    proc.restart = None
    proc.kill9()


async def test_two_nodes_of_each_kind_one_of_each_killed_mid_round(
    pool: asyncpg.Pool, env: dict[str, str], bots: SlowBots, tmp_path: Path
) -> None:
    for k in range(BOTS):
        bots.add("heuristic" if k % 2 else "random", 0.02, k)
    tournament_id, bot_ids = await swiss_event(
        pool, bots, name="nodes cup", rounds=ROUNDS, games_per_match=GAMES
    )
    with stack(env, tmp_path / "logs") as crew:
        trusted = [crew.trusted_worker(), crew.trusted_worker()]
        # two matches at most per bot-calling node: the four boards spread over both nodes
        callers = [crew.bot_worker(concurrency=2), crew.bot_worker(concurrency=2)]
        crew.beat()
        names = {node_name(proc) for proc in [*trusted, *callers]}
        assert len(names) == 4  # four nodes, each under its own name
        first_round = await flow.start_tournament(pool, tournament_id)
        assert len(first_round) == BOTS // 2
        await dispatch.send_matches(pool, first_round)

        # the middle of round 1: a result stored, and both bot-calling nodes still playing
        await wait_until(
            lambda: all(playing(proc) for proc in callers), 60, "both bot-calling nodes playing"
        )
        await wait_db(
            pool,
            "SELECT count(*) >= 1 FROM matches WHERE id = ANY($1::bigint[]) AND status = 'done'",
            first_round,
            logs=crew,
        )
        caller = next(proc for proc in callers if playing(proc))
        victim = max(trusted, key=lambda proc: received(proc, "truco.store_result"))
        assert received(victim, "truco.store_result") >= 1  # it was storing this round
        kill(crew, caller)
        kill(crew, victim)
        killed_at = time.monotonic()
        open_matches = await pool.fetchval(
            "SELECT count(*) FROM matches WHERE id = ANY($1::bigint[]) "
            "AND status NOT IN ('done', 'forfeit')",
            first_round,
        )
        assert open_matches >= 1  # killed in the middle of the round, not after it
        bots.hurried = True  # what is left to play need not be slow

        await wait_db(
            pool,
            "SELECT status = 'finished' FROM tournaments WHERE id = $1",
            tournament_id,
            timeout=180,
            logs=crew,
        )
        finished_s = time.monotonic() - killed_at
        survivors = [proc for proc in crew.procs if proc.kind in ("bots", "trusted")]
        assert len(survivors) == 2 and not crew.restarted  # nothing was started again
        trusted_log = "\n".join(p.text() for p in survivors if p.kind == "trusted")
    match_ids = [
        int(r["id"])
        for r in await pool.fetch("SELECT id FROM matches WHERE tournament_id = $1", tournament_id)
    ]
    assert len(match_ids) == ROUNDS * BOTS // 2
    counts = await stored_once(pool, match_ids)
    assert counts == {
        "matches": len(match_ids),
        "results": len(match_ids),
        "rating_history": 2 * len(match_ids),
    }
    await ratings_consistent(pool, bot_ids)
    assert "re-sending stale matches" in trusted_log  # the killed node's matches, sent again
    print(f"\none node of each kind killed mid-round: tournament finished {finished_s:.1f}s later")
