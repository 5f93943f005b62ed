"""``truco.fit_ratings`` on a real trusted worker (a Celery subprocess on the run's Redis and
database): beat's message refits the pools whose results changed; two messages at once fit a
pool once (the lease, then nothing left to do)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import anyio
import asyncpg
import pytest

from arena.match.runner import run_match
from services import flow
from services.db import rating_fits as db_fits
from services.worker import senders
from services.worker.names import FIT_RATINGS
from tests.services.helpers.flow_helpers import in_process
from tests.services.worker.fixtures import BOX, make_account, make_bot
from tests.services.worker.processes import celery_worker, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def _rated(pool: asyncpg.Pool, a: int, b: int) -> None:
    match_id = await flow.create_challenge(
        pool, a, b, mode="1v1", rules={"points_to_win": 15}, games_per_match=1, rated=True
    )
    (spec,) = await flow.match_specs(pool, [match_id], secret_box=BOX)
    entrants = [in_process({a: "heuristic"})(e, match_id) for e in spec.entrants]
    replay = await run_match(str(match_id), spec.seed, spec.settings, entrants)
    await flow.record_result(pool, match_id, replay)


async def test_the_trusted_worker_fits_once_for_two_messages(
    pool: asyncpg.Pool, stack_env: dict[str, str], tmp_path: Path
) -> None:
    owner = await make_account(pool)
    bots = [await make_bot(pool, owner, "http://127.0.0.1:9") for _ in range(3)]
    for a, b in ((0, 1), (1, 2), (2, 0), (0, 1)):
        await _rated(pool, bots[a], bots[b])
    log = tmp_path / "worker.log"
    with celery_worker(stack_env, log, queues="results"):
        sender = senders.current_app()
        for _ in range(2):  # two beat periods' messages waiting at once
            sender.send_task(FIT_RATINGS, queue="results")
        wait_for(lambda: log.read_text().count(f"Task {FIT_RATINGS}") >= 4, 120, "fits", log)
        deadline = time.monotonic() + 30
        while not await pool.fetchval(
            "SELECT count(*) = 3 FROM rating_intervals WHERE bot_id = ANY($1)", bots
        ):
            assert time.monotonic() < deadline
            await anyio.sleep(0.1)
    text = log.read_text()
    assert "Traceback" not in text
    results = re.findall(rf"Task {re.escape(FIT_RATINGS)}\[[^\]]+\] succeeded in [^:]+: (.*)", text)
    assert len(results) == 2
    # one fit of the pool; the other found it leased or already fitted (it may have fitted
    # another pool that earlier tests of the run filled)
    assert len([r for r in results if "'1v1'" in r]) == 1, results
    state = await db_fits.pool_state(pool, "1v1")
    assert await db_fits.fitted_state(pool, "1v1") == state
    lease = await pool.fetchval("SELECT lease_until FROM rating_fits WHERE mode = '1v1'")
    assert lease is None
