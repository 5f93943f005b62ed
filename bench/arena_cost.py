"""The platform's CPU per bot call: a match between two tiny bots against a bare loop.

Issue 14, goal 1: the arena process may spend at most twice the CPU of a bare keep-alive loop
per bot call. Both sides run in this process, one after the other and repeated (the machine
may be busy: only figures taken side by side are compared):

- a match (``run_match``, ``HttpBot``, the guarded ``BotClient``: pinning, deadline, time
  bank, 64 KiB limit, signing) between two bots of :mod:`bench.tinybot`; its CPU seconds
  (``time.process_time``: CPU, not wall time) over its ``/act`` decisions, the ``/``,
  ``/start`` and ``/end`` calls and the runner's own work included;
- ``bench.arena_client.bare_stream_loop``: as many ``/act`` calls with a real ``ActRequest``
  body to the same two bots, on bare asyncio streams.

The bots run in a process of their own; their CPU per request is printed too, to show they
are not what limits the run (it is well under the arena's).
"""

from __future__ import annotations

import asyncio
import statistics
import time

import msgspec

from arena.client import BotClient, ClientConfig
from arena.connection import HttpBot
from arena.egress import EgressPolicy
from arena.match import MatchSettings, run_match
from arena.replay import Decision, EntrantRecord
from arena.signing import generate_secret
from bench.arena import act_body
from bench.arena_client import bare_stream_loop
from bench.tinybot import TinyBots
from engine import Rules

GAMES = 2
REPEATS = 12
TARGET_RATIO = 2.0


def _config() -> ClientConfig:
    return ClientConfig(timeout_ms=5000.0, policy=EgressPolicy(allow_loopback=True))


async def match_cpu(urls: list[str], secret: str, games: int = GAMES) -> tuple[int, float]:
    """(decisions, CPU seconds of this process) for one match between the bots at ``urls``."""
    entrants = [
        (
            EntrantRecord(f"tiny#{i}", url),
            HttpBot(f"tiny#{i}", BotClient(url, secret, config=_config())),
        )
        for i, url in enumerate(urls)
    ]
    settings = MatchSettings(rules=Rules(flor=False), games_per_match=games, fault_limit=1000)
    start = time.process_time()
    replay = await run_match("bench-cost", 1, settings, entrants)
    seconds = time.process_time() - start
    if sum(replay.result.faults):
        raise RuntimeError(f"the benchmark match had faults: {replay.result.faults}")
    decisions = sum(1 for g in replay.games for e in g.events if isinstance(e, Decision))
    return decisions, seconds


def measure(repeats: int = REPEATS, games: int = GAMES) -> dict[str, object]:
    """Match and bare loop side by side, ``repeats`` times; medians and the ratio's spread."""
    secret = generate_secret()
    match_us: list[float] = []
    bare_us: list[float] = []
    bot_us: list[float] = []
    decisions = 0
    with TinyBots(2) as bots:
        for _ in range(repeats):
            bot_before = bots.cpu()
            decisions, match_s = asyncio.run(match_cpu(bots.urls, secret, games))
            bot_after = bots.cpu()
            bare_s = asyncio.run(
                bare_stream_loop(bots.urls, decisions, body=act_body(), secret=secret)
            )
            match_us.append(1e6 * match_s / decisions)
            bare_us.append(1e6 * bare_s / decisions)
            answered = bot_after[1] - bot_before[1]
            bot_us.append(1e6 * (bot_after[0] - bot_before[0]) / answered)
    ratios = [m / b for m, b in zip(match_us, bare_us, strict=True)]
    return {
        "us_per_decision": round(statistics.median(match_us), 1),
        "bare_us_per_request": round(statistics.median(bare_us), 1),
        "ratio": round(statistics.median(ratios), 2),
        "ratio_min": round(min(ratios), 2),
        "ratio_max": round(max(ratios), 2),
        # the least disturbed run of each side (on a shared machine the minimum is the figure
        # closest to what the code itself costs)
        "ratio_of_minimums": round(min(match_us) / min(bare_us), 2),
        "repeats": repeats,
        "decisions_per_match": decisions,
        "bot_us_per_request": round(statistics.median(bot_us), 1),
    }


def main() -> None:
    summary = measure()
    print(
        f"  match: {summary['us_per_decision']} us of arena CPU per decision "
        f"({summary['decisions_per_match']} decisions a match, median of {summary['repeats']})"
    )
    print(f"  bare keep-alive loop: {summary['bare_us_per_request']} us of CPU per request")
    print(
        f"  ratio {summary['ratio']} (spread {summary['ratio_min']}-{summary['ratio_max']}; "
        f"target at most {TARGET_RATIO}); least disturbed runs: {summary['ratio_of_minimums']}; "
        f"the bots: {summary['bot_us_per_request']} us a request"
    )
    print(msgspec.json.encode({"arena_cost": summary}).decode())


if __name__ == "__main__":
    main()
