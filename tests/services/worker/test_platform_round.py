"""A Swiss round through the real platform, end to end (issue 14, goal 3, reduced).

The benchmark's scenario (``bench.platform_round``; ``python -m bench platform_round`` runs it
with 1,000 bots): the API, two bot-calling and two trusted Celery workers, each its own
process, on a database of the run's own; 16 bots on one asyncio server answering in 2 ms, a
Swiss of 2 rounds to 15 points created, entered and started through the API. Asserted: round
1 is played and every result stored exactly once (one result, one replay, two rating-history
rows per match), round 2 is paired by the round's last result, no call failed, and no process
of the run is left.
"""

from __future__ import annotations

import pytest

from bench.platform_round import Plan, run
from services.launch.embedded._process import pid_alive
from tests.servers import PostgresServer, RedisTarget

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

BOTS = 16


def test_a_swiss_round_is_played_and_stored_once_through_the_platform(
    postgres_server: PostgresServer, redis_target: RedisTarget
) -> None:
    plan = Plan(bots=BOTS, points=15, delay_ms=2.0, timeout_s=120.0)
    figures = run(plan, server=postgres_server.admin_url, redis_url=redis_target.url)
    assert figures["matches"] == BOTS // 2
    assert figures["results"] == BOTS // 2
    assert figures["stored_once"] is True
    assert figures["pairing_round2_s"] is not None  # the last result paired round 2
    assert figures["faults"] == 0 and figures["walkovers"] == 0
    assert figures["calls"] >= BOTS // 2 * 20  # every match really played over HTTP
    # how soon each result is stored is speed (the bench reports store_lag_s); that a worker
    # takes more messages as soon as it acknowledges one is tests/services/worker/test_wakeup.py
    assert figures["worker_errors"] == []
    assert not [pid for pid in figures["pids"] if pid_alive(pid)]  # every process stopped
