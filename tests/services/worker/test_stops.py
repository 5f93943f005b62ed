"""The stop flags (services/worker/stops.py) on the real Redis: the watch cancels the play of a
flagged match and no other; a match flagged before it begins is never played."""

from __future__ import annotations

import secrets
import time
from concurrent.futures import Future
from typing import Any

import msgspec
import redis

from arena.match.runner import MatchSettings
from engine.rules import Rules
from services.domain.match_order import EntrantOrder, MatchOrder
from services.worker.matches import play_match as play
from services.worker.stops import StopWatch, flagged, request_stops, stop_key
from tests.servers import RedisTarget
from tests.services.worker.fixtures import Sent


def _client(target: RedisTarget) -> redis.Redis:
    return redis.Redis.from_url(target.url)


def test_the_watch_cancels_the_flagged_match_and_only_it(redis_target: RedisTarget) -> None:
    prefix = f"{redis_target.prefix}stops-{secrets.token_hex(3)}:"
    client = _client(redis_target)
    watch = StopWatch(client, prefix, every_s=0.05)
    playing: Future[Any] = Future()
    other: Future[Any] = Future()
    try:
        with watch.watching(7, playing), watch.watching(8, other):
            assert not watch.requested(7)
            request_stops(client, prefix, [7, 9])
            assert watch.requested(7) and flagged(client, prefix, [7, 8, 9]) == {7, 9}
            deadline = time.monotonic() + 10
            while not playing.cancelled():
                assert time.monotonic() < deadline, "the watch never cancelled match 7"
                time.sleep(0.02)
            assert not other.cancelled()
            assert watch.stopped(playing) and not watch.stopped(playing)  # told once
            assert not watch.stopped(other)
        assert 0 < client.ttl(stop_key(prefix, 7)) <= 7 * 86400  # flags expire
    finally:
        client.delete(*(stop_key(prefix, m) for m in (7, 9)))
        client.close()


def test_a_match_flagged_before_it_begins_calls_no_bot(
    worker_env: RedisTarget, bot_server_factory: Any, sent: Sent
) -> None:
    match_id = 900_000 + secrets.randbelow(99_999)
    bots = [bot_server_factory("random"), bot_server_factory("random")]
    entrants = [
        EntrantOrder(bot_id=20 + i, name=f"s{i}", url=bot.url, secret="whsec_" + "A" * 32)
        for i, bot in enumerate(bots)
    ]
    message = MatchOrder(
        match_id, 99, MatchSettings(rules=Rules(points_to_win=15), games_per_match=2), entrants
    )
    client = _client(worker_env)
    request_stops(client, worker_env.prefix, [match_id])
    try:
        outcome = play.play_match.apply(args=[msgspec.to_builtins(message)])
        assert outcome.successful(), outcome.traceback
        assert outcome.result == {"match_id": match_id, "stopped": True}
        # no truco.match_started, no result: only the word that it stopped
        assert [(c[0], c[1], c[2]["queue"]) for c in sent.calls] == [
            ("truco.match_stopped", [match_id], "results")
        ]
        slots = play.bot_slots(play.app.settings)
        assert slots.in_use(20) == 0 and slots.in_use(21) == 0
    finally:
        client.delete(stop_key(worker_env.prefix, match_id))
        client.close()
