"""Arena overhead: a match between two trivial bots on 127.0.0.1 against a bare loop of the
same number of POSTs with the same client (issue #3 target: at least 70% of the bare loop).

Both bots run the SDK's server (the standard library's threading HTTP server), each in its own
process; the bare loop (``bench.arena_client.bare_post_loop``) sends a real ``ActRequest`` body to the
same two ``/act`` endpoints in turn, signed, through the same guarded ``BotClient``, so the difference is what the match runner
adds: the engine, observations, request building, legality checks and the replay.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import msgspec

from arena.client.bot_client import BotClient, ClientConfig
from arena.client.connection import HttpBot
from arena.client.egress import EgressPolicy
from arena.client.signing import generate_secret
from arena.match.replay import Decision, EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.wire.protocol import ActRequest, act_request
from bench.arena_client import bare_post_loop
from engine import Rules, legal_actions, new_game, observation

GAMES = 6


def _config() -> ClientConfig:
    """The client settings shared by the match and the bare loop."""
    return ClientConfig(timeout_ms=5000.0, policy=EgressPolicy(allow_loopback=True))


def _client(url: str, secret: str) -> BotClient:
    return BotClient(url, secret, config=_config())


async def _match(urls: list[str], secret: str) -> tuple[int, float]:
    entrants = [
        (EntrantRecord(f"first#{i}", url), HttpBot(f"first#{i}", _client(url, secret)))
        for i, url in enumerate(urls)
    ]
    settings = MatchSettings(rules=Rules(flor=False), games_per_match=GAMES, fault_limit=1000)
    start = time.perf_counter()
    replay = await run_match("bench", 1, settings, entrants)
    seconds = time.perf_counter() - start
    decisions = sum(1 for g in replay.games for e in g.events if isinstance(e, Decision))
    faults = sum(replay.result.faults)
    if faults:
        raise RuntimeError(f"the benchmark match had {faults} faults")
    return decisions, seconds


def act_body() -> ActRequest:
    """A real ``/act`` request (the first decision of a game) for the bare loop."""
    state = new_game(Rules(flor=False), 1)
    return act_request(
        "bench",
        "bench-g1",
        0,
        observation(state, 0),
        legal_actions(state),
        timeout_ms=1000,
        time_bank_ms=30000,
        last_latency_ms=None,
    )


SERVER = """
import sys
from arena.sdk import BotServer, strategy_decider
server = BotServer(strategy_decider("first", 1), name="first", secret=sys.argv[1], port=0)
server.start()
print(server.url, flush=True)
sys.stdin.read()
"""


def _start_server(secret: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, secret],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        process.kill()
        raise RuntimeError(f"the bench bot did not start: {url!r}")
    return process, url


def main() -> None:
    secret = generate_secret()
    servers = [_start_server(secret) for _ in range(2)]
    try:
        urls = [url for _, url in servers]
        decisions, match_s = asyncio.run(_match(urls, secret))
        bare_s = asyncio.run(
            bare_post_loop(urls, decisions, body=act_body(), secret=secret, config=_config())
        )
    finally:
        for process, _ in servers:
            process.kill()
            process.wait()
    match_rate = decisions / match_s
    bare_rate = decisions / bare_s
    ratio = match_rate / bare_rate
    print(f"  match: {decisions} decisions in {match_s:.2f} s = {match_rate:,.0f} decisions/s")
    print(f"  bare loop: {decisions} POSTs in {bare_s:.2f} s = {bare_rate:,.0f} POSTs/s")
    print(f"  match / bare = {100 * ratio:.0f}% (target: at least 70%)")
    summary = {
        "decisions": decisions,
        "match_decisions_per_s": round(match_rate, 1),
        "bare_posts_per_s": round(bare_rate, 1),
        "ratio": round(ratio, 3),
    }
    print(msgspec.json.encode({"arena": summary}).decode())
