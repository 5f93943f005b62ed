"""Issue 21, item 6, as it was attacked: a tournament cancelled (or a bot deleted, or an SPRT
test cancelled) in the middle of a match. Before, the master seed (or the match seed) was published at once while the worker
went on calling both bots for a minute. Now the match's bot calls stop within the stop watch's
poll, and nothing that derives its cards is served until the match row says it stopped.

Real processes: the API under uvicorn, a Celery worker on both queues, bots on 127.0.0.1 that
count their calls. That no bot is called once the row says stopped is read after the worker
process has exited (nothing is left that could call), not after a quiet while."""

from __future__ import annotations

import contextlib
import secrets
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from arena.client.connection import Choice
from arena.sdk import BotServer, strategy_decider
from arena.wire.protocol import ActRequest
from services.domain import seeds
from tests.services.worker.processes import api_process, celery_worker, stop

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ANSWER_S = 0.02
CALLS_AFTER_STOP = 60
"""At most this many /act calls after the cancel answered: the watch reads the flags every
0.5 s and a call takes at least 20 ms (generous: before the fix it was 400 more, for 64.6 s)."""


class CountingBot:
    """A random bot on 127.0.0.1 that notes when each /act call came."""

    def __init__(self, seed: int) -> None:
        self.calls: list[float] = []
        self._lock = threading.Lock()
        self._decide = strategy_decider("random", seed)
        self.server = BotServer(self.decide, name=f"count-{seed}", port=0)

    def decide(self, request: ActRequest) -> Choice:
        with self._lock:
            self.calls.append(time.monotonic())
        time.sleep(ANSWER_S)
        return self._decide(request)

    def count(self) -> int:
        with self._lock:
            return len(self.calls)

    def after(self, moment: float) -> int:
        with self._lock:
            return sum(1 for t in self.calls if t > moment)

    def last(self) -> float:
        with self._lock:
            return self.calls[-1]


@contextlib.contextmanager
def _platform(
    stack_env: dict[str, str], tmp_path: Path, bots: list[CountingBot]
) -> Iterator[tuple[subprocess.Popen[bytes], httpx.Client]]:
    """The bots served, a Celery worker on both queues and the API under uvicorn: (the
    worker's process, a client of the API)."""
    for bot in bots:
        bot.server.start()
    try:
        with (
            celery_worker(stack_env, tmp_path / "worker.log") as worker,
            api_process(stack_env, tmp_path / "api.log") as api_url,
            httpx.Client(base_url=api_url, timeout=30, trust_env=False) as client,
        ):
            yield worker, client
    finally:
        for bot in bots:
            bot.server.stop()


def _setup(client: httpx.Client, bots: list[CountingBot]) -> tuple[dict[str, str], list[int]]:
    account = client.post("/v1/accounts", json={"name": f"stop-{secrets.token_hex(3)}"})
    assert account.status_code == 201, account.text
    auth = {"authorization": f"Bearer {account.json()['api_key']}"}
    ids = []
    for bot in bots:
        created = client.post(
            "/v1/bots",
            json={"name": f"stop-{secrets.token_hex(4)}", "url": bot.server.url},
            headers=auth,
        )
        assert created.status_code == 201, created.text
        ids.append(int(created.json()["id"]))
    return auth, ids


def _start(client: httpx.Client, auth: dict[str, str], bot_ids: list[int]) -> tuple[int, int]:
    body = {
        "name": f"stop cup {secrets.token_hex(2)}",
        "format": "swiss",
        "mode": "1v1",
        "games_per_match": 30,
        "rules": {"points_to_win": 30},
    }
    created = client.post("/v1/tournaments", json=body, headers=auth)
    assert created.status_code == 201, created.text
    tid = int(created.json()["id"])
    for bot_id in bot_ids:
        entered = client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot_id}, headers=auth
        )
        assert entered.status_code == 201, entered.text
    started = client.post(f"/v1/tournaments/{tid}/start", headers=auth)
    assert started.status_code == 202, started.text
    (match_id,) = started.json()["queued"]
    return tid, match_id


def _wait_for_calls(bots: list[CountingBot], calls: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while sum(b.count() for b in bots) < calls:
        assert time.monotonic() < deadline, "the match did not start calling its bots"
        time.sleep(0.05)


def _served_seeds(client: httpx.Client, tid: int, match_id: int) -> tuple[Any, Any, Any, Any]:
    """What the API serves that derives the match's cards: the tournament's master seed, the
    match's seed, the export's master seed."""
    tournament = client.get(f"/v1/tournaments/{tid}").json()
    match = client.get(f"/v1/matches/{match_id}").json()
    export = client.get(f"/v1/tournaments/{tid}/export").json()
    exported = [m["seed"] for m in export["matches"] if m["id"] == match_id]
    return tournament["master_seed"], match["seed"], export["seeds"]["master_seed"], exported[0]


async def _watch_until_stopped(
    pool: asyncpg.Pool,
    stopping: str,
    arg: int,
    served: Callable[[list[int]], list[Any]],
    timeout: float = 60,
) -> tuple[float, int]:
    """Poll the rows (``stopping``: the ids of those still stopping) and the API until none is
    stopping: nothing derived from the cards (``served`` of the ids) is served while a match
    is. Returns (when none was seen stopping, polls made while one was)."""
    deadline = time.monotonic() + timeout
    polls = 0
    while True:
        ids = [int(r["id"]) for r in await pool.fetch(stopping, arg)]
        if not ids:
            return time.monotonic(), polls
        shown = served(ids)
        # a row may have turned stopped between the two reads: only rows still stopping count
        still = await pool.fetchval(
            "SELECT count(*) FROM matches WHERE id = ANY($1) AND stopping_since IS NOT NULL",
            ids,
        )
        if still == len(ids):
            assert all(value is None for value in shown), shown
            polls += 1
        assert time.monotonic() < deadline, f"matches {ids} were never marked stopped"
        time.sleep(0.05)


@pytest.mark.parametrize("how", ["cancel the tournament", "delete a bot"])
async def test_a_match_decided_mid_play_stops_calling_and_hides_its_seeds_until_stopped(
    pool: asyncpg.Pool, stack_env: dict[str, str], tmp_path: Path, how: str
) -> None:
    bots = [CountingBot(1), CountingBot(2)]
    with _platform(stack_env, tmp_path, bots) as (worker, client):
        auth, bot_ids = _setup(client, bots)
        tid, match_id = _start(client, auth, bot_ids)
        _wait_for_calls(bots, 30)
        decided_at = time.monotonic()
        if how == "cancel the tournament":
            answer = client.post(f"/v1/tournaments/{tid}/cancel", headers=auth)
            assert answer.status_code == 200, answer.text
        else:
            answer = client.delete(f"/v1/bots/{bot_ids[1]}", headers=auth)
            assert answer.status_code == 204, answer.text
        decided_at = (decided_at + time.monotonic()) / 2
        stopped_at, polls = await _watch_until_stopped(
            pool,
            "SELECT id FROM matches WHERE id = $1 AND stopping_since IS NOT NULL",
            match_id,
            lambda _: list(_served_seeds(client, tid, match_id)),
        )
        # every read while the match was stopping found its seeds hidden (asserted in the
        # watch); a loaded machine may stop it before the first read (it did, under -n 4 at
        # load average 12), so none is required here:
        # tests/services/flow/test_match_stopping.py holds a match stopping and reads it.
        # A worker still playing would go on calling: once its process has exited (a warm
        # shutdown waits for a play in progress), every call it could make has been counted
        stop(worker)
        after = sum(b.after(decided_at) for b in bots)
        last = max(b.last() for b in bots)
        print(
            f"\n{how}: last bot call {max(0.0, last - decided_at):.2f}s after the decision, "
            f"{after} call(s) after it; seeds served {stopped_at - decided_at:.2f}s after it"
            f" ({polls} read(s) while stopping)"
        )
        assert after <= CALLS_AFTER_STOP, after
        assert last < stopped_at  # nothing called once the row says stopped
        # and now they are served, and they are the committed ones
        master, seed, exported_master, exported_seed = _served_seeds(client, tid, match_id)
        tournament = client.get(f"/v1/tournaments/{tid}").json()
        if how == "cancel the tournament":
            assert master is not None and exported_master == master
            assert seeds.commitment(bytes.fromhex(master)) == tournament["seed_commitment"]
            assert exported_seed is not None
        else:
            assert seed is not None and exported_seed == seed  # a withdrawal is finished
        row = await pool.fetchrow(
            "SELECT status, stopping_since FROM matches WHERE id = $1", match_id
        )
        assert row["status"] == ("cancelled" if how.startswith("cancel") else "forfeit")
        assert row["stopping_since"] is None
    log = (tmp_path / "worker.log").read_text()
    assert "Traceback" not in log, log[-3000:]
    assert f"matches [{match_id}]: stopped" in log


async def test_a_cancelled_sprt_test_stops_its_pairs_in_play_and_hides_their_seeds(
    pool: asyncpg.Pool, stack_env: dict[str, str], tmp_path: Path
) -> None:
    bots = [CountingBot(3), CountingBot(4)]
    with _platform(stack_env, tmp_path, bots) as (worker, client):
        auth, (a, b) = _setup(client, bots)
        created = client.post(
            "/v1/tests", json={"bot_a": a, "bot_b": b, "concurrency": 2}, headers=auth
        )
        assert created.status_code == 202, created.text
        test_id = created.json()["test_id"]
        _wait_for_calls(bots, 30)
        decided_at = time.monotonic()
        cancelled = client.post(f"/v1/tests/{test_id}/cancel", headers=auth)
        assert cancelled.status_code == 200, cancelled.text
        decided_at = (decided_at + time.monotonic()) / 2
        # every read while a pair is stopping finds its seed hidden; the pairs may stop
        # before the first read (a loaded machine did), so which pairs were in play is
        # read once none is stopping: those cancelled after they had begun
        stopped_at, _ = await _watch_until_stopped(
            pool,
            "SELECT id FROM matches WHERE sprt_test_id = $1 AND stopping_since IS NOT NULL",
            test_id,
            lambda ids: [client.get(f"/v1/matches/{m}").json()["master_seed"] for m in ids],
        )
        stopping = [
            int(r["id"])
            for r in await pool.fetch(
                "SELECT id FROM matches WHERE sprt_test_id = $1 AND status = 'cancelled' "
                "AND started_at IS NOT NULL",
                test_id,
            )
        ]
        assert stopping  # pairs were in play when the test was cancelled
        stop(worker)  # every call the worker could still make has been made (see above)
        after = sum(bot.after(decided_at) for bot in bots)
        last = max(bot.last() for bot in bots)
        print(
            f"\nSPRT test cancelled: last bot call {max(0.0, last - decided_at):.2f}s after "
            f"the cancel, {after} call(s) after it"
        )
        # none of the reads while stopping is required (there may have been none):
        # tests/services/flow/test_match_stopping.py holds a pair stopping and reads it
        assert after <= CALLS_AFTER_STOP and last < stopped_at
        for match_id in stopping:
            assert client.get(f"/v1/matches/{match_id}").json()["master_seed"] is not None
