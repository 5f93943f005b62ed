"""The live feed's cost per decision against the real Redis: one write per decision
(before, the baseline) against batched writes (after).

Issue 14, goal 6. The progress calls of a few recorded matches (in-process bots, so the feed is
all that is measured) are replayed through a :class:`~services.live.publisher.LivePublisher` that
writes to the Redis at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``) under a key prefix
of its own, deleted afterwards:

- **before**: ``flush_after_s=0``, one round trip (``RPUSH`` + ``EXPIRE``) per decision, as
  the feed wrote before batching;
- **after**: the default batching (a round trip at each hand's end and game's opening; with
  no event loop running, as here, no timer: the count is what fast bots cause).

Both run side by side, alternated and repeated; the figures are medians. ``us_per_decision``
is the wall time the match's thread spends in the feed (a synchronous write blocks its event
loop), ``cpu_us_per_decision`` the process CPU of it.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import time
from collections.abc import Sequence
from typing import Any

import msgspec
import redis

from arena.client.connection import InProcessBot
from arena.match.replay import Decision, EntrantRecord
from arena.match.runner import MatchSettings, Progress, run_match
from arena.sdk import strategy_decider
from engine.events import Event
from engine.rules import Rules
from engine.state import State
from services.live.publisher import LivePublisher

MATCHES = 4
REPEATS = 7

Call = tuple[int, State, Decision | None, Sequence[Event]]


def _recorder(calls: list[Call]) -> Progress:
    def progress(
        index: int, state: State, decision: Decision | None, events: Sequence[Event]
    ) -> None:
        calls.append((index, state, decision, list(events)))

    return progress


def recorded_calls(matches: int = MATCHES) -> list[list[Call]]:
    """The progress calls of ``matches`` matches between two built-in strategies."""
    out: list[list[Call]] = []
    for k in range(matches):
        calls: list[Call] = []
        entrants = [
            (EntrantRecord(name, "x"), InProcessBot(name, strategy_decider(name, k + i)))
            for i, name in enumerate(("heuristic", "random"))
        ]
        settings = MatchSettings(rules=Rules(players=2 if k % 2 else 4), games_per_match=2)
        progress = _recorder(calls)
        asyncio.run(run_match(f"bench-{k}", 70 + k, settings, entrants, progress))
        out.append(calls)
    return out


def replay_feed(
    client: redis.Redis, prefix: str, matches: list[list[Call]], flush_after_s: float | None
) -> tuple[float, float, int]:
    """Publish every recorded call: (wall seconds, CPU seconds, Redis round trips)."""
    options: dict[str, Any] = {} if flush_after_s is None else {"flush_after_s": flush_after_s}
    publishers = [LivePublisher(client, prefix, k, **options) for k in range(len(matches))]
    for publisher in publishers:
        publisher.begin()
    writes_before = sum(p.writes for p in publishers)
    wall, cpu = time.perf_counter(), time.process_time()
    for publisher, calls in zip(publishers, matches, strict=True):
        for call in calls:
            publisher.progress(*call)
        publisher.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, sum(p.writes for p in publishers) - writes_before


def measure(repeats: int = REPEATS) -> dict[str, Any]:
    url = os.environ.get("REDIS_URL", "").strip() or "redis://127.0.0.1:6379/0"
    client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
    prefix = f"bench-{secrets.token_hex(4)}:"
    matches = recorded_calls()
    decisions = sum(1 for calls in matches for call in calls if call[2] is not None)
    figures: dict[str, list[tuple[float, float, int]]] = {"before": [], "after": []}
    try:
        for _ in range(repeats):
            figures["before"].append(replay_feed(client, prefix, matches, 0.0))
            figures["after"].append(replay_feed(client, prefix, matches, None))
    finally:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()

    def per_decision(side: str, field: int) -> float:
        return round(1e6 * statistics.median(run[field] for run in figures[side]) / decisions, 1)

    before, after = per_decision("before", 0), per_decision("after", 0)
    return {
        "decisions": decisions,
        "repeats": repeats,
        "us_per_decision_before": before,
        "us_per_decision_after": after,
        "cpu_us_per_decision_before": per_decision("before", 1),
        "cpu_us_per_decision_after": per_decision("after", 1),
        "writes_per_decision_before": round(figures["before"][0][2] / decisions, 3),
        "writes_per_decision_after": round(figures["after"][0][2] / decisions, 3),
        "speedup": round(before / after, 1) if after else None,
    }


def main() -> None:
    summary = measure()
    print(
        f"  live feed, {summary['decisions']} decisions (median of {summary['repeats']}): "
        f"{summary['us_per_decision_before']} us a decision writing each one "
        f"({summary['writes_per_decision_before']} round trips a decision), "
        f"{summary['us_per_decision_after']} us batched "
        f"({summary['writes_per_decision_after']} round trips a decision): "
        f"x{summary['speedup']}"
    )
    print(
        f"  CPU: {summary['cpu_us_per_decision_before']} us before, "
        f"{summary['cpu_us_per_decision_after']} us after"
    )
    print(msgspec.json.encode({"live_feed": summary}).decode())


if __name__ == "__main__":
    main()
