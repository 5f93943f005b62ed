"""Spectators at scale: many matches published to the real Redis while readers poll every
feed as fast as they can. The matches play exactly as they do unwatched and unpublished (same
games, same events, same results), a spectator sees every decision exactly once and in order
(each document it reads is a prefix of the final one, and the final one holds the replay's
decisions), and the feed costs far fewer Redis round trips than decisions (batching)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import msgspec
import pytest
import redis

from arena.client.bot_client import TimeBank
from arena.client.connection import Answer, BotConnection, InProcessBot
from arena.match.replay import Decision, EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from arena.wire.protocol import ActRequest
from engine.rules import Rules
from services.live import feed as live_feed
from services.live import publisher as live
from tests.servers import RedisTarget

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
MATCHES = 12
SPECTATORS = 2
STRATEGIES = ("heuristic", "random", "weak-heuristic")


def _settings(k: int) -> MatchSettings:
    rules = Rules(players=4 if k % 3 == 0 else 2, points_to_win=15, sena_seen_by_opponents=0.5)
    # deadlines no loaded machine reaches: a bot timed out in one run and not the other would
    # make the two matches differ for a reason that is not the spectators'
    return MatchSettings(rules=rules, games_per_match=2, timeout_ms=60_000, time_bank_ms=3_600_000)


class RemoteBot(InProcessBot):
    """A built-in strategy that answers after a short wait, as a bot over the network does
    (so the matches, the feed and the spectators take turns on the event loop)."""

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        await asyncio.sleep(0.002)
        return await super().act(request, bank)


async def _play(k: int, publisher: live.LivePublisher | None) -> Replay:
    names = [STRATEGIES[k % 3], STRATEGIES[(k + 1) % 3]]
    entrants: list[tuple[EntrantRecord, BotConnection]] = [
        (EntrantRecord(name, f"builtin:{name}"), RemoteBot(name, strategy_decider(name, k + i)))
        for i, name in enumerate(names)
    ]
    progress = None if publisher is None else publisher.progress
    try:
        return await run_match(f"spect-{k}", 1000 + k, _settings(k), entrants, progress)
    finally:
        if publisher is not None:
            publisher.close()


def _without_latency(replay: Replay) -> list[Any]:
    """What a match did: every game's events and the result, latencies left out."""
    games = []
    for game in replay.games:
        events = [
            (e.seat, e.fault, e.strikes) if isinstance(e, Decision) else e for e in game.events
        ]
        games.append((game.seed, game.teams, events, game.score, game.winner, game.forfeit))
    result = replay.result
    return [games, result.games_won, result.tantos, result.winner, result.reason]


def _decisions(document: dict[str, Any]) -> list[tuple[int, int, str | None]]:
    return [
        (game["number"], event["seat"], event.get("fault"))
        for game in document["games"]
        for event in game["events"]
        if event.get("type") == "decision"
    ]


def _events(document: dict[str, Any]) -> list[tuple[int, str]]:
    return [(game["number"], repr(event)) for game in document["games"] for event in game["events"]]


async def test_spectators_of_many_live_matches_change_nothing_and_see_each_decision_once(
    redis_target: RedisTarget,
) -> None:
    alone = await asyncio.gather(*(_play(k, None) for k in range(MATCHES)))

    client = redis.Redis.from_url(redis_target.url)
    keys = [live_feed.live_key(redis_target.prefix, 9000 + k) for k in range(MATCHES)]
    publishers = [live.LivePublisher(client, redis_target.prefix, 9000 + k) for k in range(MATCHES)]
    seen: dict[int, list[dict[str, Any]]] = {k: [] for k in range(MATCHES)}
    done = threading.Event()

    def spectate() -> None:  # a reader of its own, as the API's are (another process)
        reader = redis.Redis.from_url(redis_target.url)
        while not done.is_set():
            for k in range(MATCHES):
                items = reader.lrange(keys[k], 0, -1)
                seen[k].append({"games": msgspec.to_builtins(live_feed.last_run(items))})
            time.sleep(0.05)
        reader.close()

    watchers = [threading.Thread(target=spectate) for _ in range(SPECTATORS)]
    for publisher in publishers:
        publisher.begin()
    for watcher in watchers:
        watcher.start()
    try:
        watched = await asyncio.gather(*(_play(k, publishers[k]) for k in range(MATCHES)))
    finally:
        done.set()
        for watcher in watchers:
            watcher.join()

    decisions = 0
    try:
        for k in range(MATCHES):
            assert _without_latency(watched[k]) == _without_latency(alone[k]), k
            final = {
                "games": msgspec.to_builtins(live_feed.last_run(client.lrange(keys[k], 0, -1)))
            }
            expected = [
                (game.number, e.seat, e.fault)
                for game in watched[k].games
                for e in game.events
                if isinstance(e, Decision)
            ]
            assert _decisions(final) == expected, k  # every decision, once, in order
            assert len(seen[k]) > 3
            in_play = [d for d in seen[k] if 0 < len(_events(d)) < len(_events(final))]
            assert in_play or len(expected) < 50, f"match {k} was never seen in the middle"
            for document in seen[k]:  # what a spectator saw at any moment: a prefix
                shown = _events(document)
                assert shown == _events(final)[: len(shown)], k
            decisions += len(expected)
        writes = sum(publisher.writes for publisher in publishers)
        assert writes < decisions / 3, (writes, decisions)
    finally:
        client.delete(*keys)
        client.close()
