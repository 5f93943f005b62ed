"""Many matches at once in ONE bot-calling worker process (issue 14, goal 2, reduced).

The real worker (``celery worker -Q matches``, threads pool) plays 50 matches together against
one bot server on 127.0.0.1 whose bots answer after 100 ms, through Redis; the harness is the
benchmark's (``bench.concurrency``: ``make bench`` runs it with 1,000). What is asserted is the
behaviour, not the speed: every match is played and handed on once, all 50 were held at once and
(nearly) all played together, and no call failed or reached its deadline (the bots never fail:
a fault would be the platform's doing).
"""

from __future__ import annotations

import pytest

from bench.concurrency import run
from tests.servers import RedisTarget

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

MATCHES = 50


def test_one_worker_process_plays_fifty_matches_at_once_without_faults(
    redis_target: RedisTarget,
) -> None:
    figures = run(MATCHES, 15, redis_url=redis_target.url, prefix=redis_target.prefix)
    assert figures["results"] == MATCHES
    assert figures["faults"] == 0
    # every message was taken and held unacknowledged at once; the cap on matches playing
    # (services.worker.matches.admission) starts at 16 and grows while the loop keeps up, so nearly
    # all play together, not a few threads' worth
    assert figures["peak_held"] == MATCHES
    assert figures["peak_in_flight"] >= MATCHES * 0.8
    # no bot was charged its deadline (1 s a call) for the platform's delay: that would be a
    # fault, counted above; how far under it the latencies stay is speed (make bench)
    assert figures["calls"] >= MATCHES * 20  # every match really played over HTTP
    assert figures["rss_mib"] < 1024
