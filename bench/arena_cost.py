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

``BENCH_BASELINE_ROOT`` (another checkout, e.g. of main before a change) adds that checkout's
match to every repeat, run in a process of its own with that checkout's code (this file's
:func:`match_cpu`, its imports taken from there) against the same bots, and reports its figures
against the same bare loop: a before/after in one run. One untimed round warms every side up.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import msgspec

from arena.client.bot_client import BotClient, ClientConfig
from arena.client.connection import HttpBot
from arena.client.egress import EgressPolicy
from arena.client.signing import generate_secret
from arena.match.replay import Decision, EntrantRecord
from arena.match.runner import MatchSettings, run_match
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


_BASELINE_CHILD = """
import asyncio, runpy, sys
match_cpu = runpy.run_path(sys.argv[1], run_name="arena_cost_baseline")["match_cpu"]
urls, secret, games = sys.argv[2].split(), sys.argv[3], int(sys.argv[4])
for _ in sys.stdin:
    decisions, seconds = asyncio.run(match_cpu(urls, secret, games))
    print(decisions, seconds, flush=True)
"""


class BaselineMatches:
    """Matches played by another checkout's code, in a process of its own, one per
    :meth:`play` (its modules come from ``root``; the measuring code is this file's)."""

    def __init__(self, root: Path, urls: list[str], secret: str, games: int) -> None:
        self.root = root
        self._process = subprocess.Popen(
            [sys.executable, "-c", _BASELINE_CHILD, __file__, " ".join(urls), secret, str(games)],
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def play(self) -> tuple[int, float]:
        """(decisions, CPU seconds of the baseline's process) for one match."""
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write("go\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline().split()
        if len(line) != 2:
            raise RuntimeError(f"the baseline checkout at {self.root} did not play its match")
        return int(line[0]), float(line[1])

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=30)


def _figures(match_us: list[float], bare_us: list[float]) -> dict[str, float]:
    ratios = [m / b for m, b in zip(match_us, bare_us, strict=True)]
    return {
        "us_per_decision": round(statistics.median(match_us), 1),
        "ratio": round(statistics.median(ratios), 2),
        "ratio_min": round(min(ratios), 2),
        "ratio_max": round(max(ratios), 2),
        # the least disturbed run of each side (on a shared machine the minimum is the figure
        # closest to what the code itself costs)
        "ratio_of_minimums": round(min(match_us) / min(bare_us), 2),
    }


def measure(
    repeats: int = REPEATS, games: int = GAMES, baseline_root: Path | None = None
) -> dict[str, object]:
    """Match and bare loop side by side, ``repeats`` times (after one untimed round); medians
    and the ratio's spread. With ``baseline_root``, that checkout's match too, in each repeat."""
    secret = generate_secret()
    match_us: list[float] = []
    bare_us: list[float] = []
    bot_us: list[float] = []
    base_us: list[float] = []
    decisions = 0
    with TinyBots(2) as bots:
        baseline = None
        if baseline_root is not None:
            baseline = BaselineMatches(baseline_root, bots.urls, secret, games)
        try:
            for repeat in range(repeats + 1):
                if baseline is not None:  # first: this tree's match is followed by the bare loop
                    base_decisions, base_s = baseline.play()
                bot_before = bots.cpu()
                decisions, match_s = asyncio.run(match_cpu(bots.urls, secret, games))
                bot_after = bots.cpu()
                bare_s = asyncio.run(
                    bare_stream_loop(bots.urls, decisions, body=act_body(), secret=secret)
                )
                if repeat == 0:
                    continue  # the warm-up round
                match_us.append(1e6 * match_s / decisions)
                bare_us.append(1e6 * bare_s / decisions)
                answered = bot_after[1] - bot_before[1]
                bot_us.append(1e6 * (bot_after[0] - bot_before[0]) / answered)
                if baseline is not None:
                    base_us.append(1e6 * base_s / base_decisions)
        finally:
            if baseline is not None:
                baseline.close()
    summary: dict[str, object] = {
        **_figures(match_us, bare_us),
        "bare_us_per_request": round(statistics.median(bare_us), 1),
        "repeats": repeats,
        "decisions_per_match": decisions,
        "bot_us_per_request": round(statistics.median(bot_us), 1),
    }
    if baseline_root is not None:
        summary["baseline"] = {"root": str(baseline_root), **_figures(base_us, bare_us)}
    return summary


def _report(name: str, figures: dict[str, object]) -> None:
    print(
        f"  {name}: {figures['us_per_decision']} us of arena CPU per decision; "
        f"ratio {figures['ratio']} (spread {figures['ratio_min']}-{figures['ratio_max']}; "
        f"target at most {TARGET_RATIO}); least disturbed runs: {figures['ratio_of_minimums']}"
    )


def main() -> None:
    root = os.environ.get("BENCH_BASELINE_ROOT", "")
    summary = measure(baseline_root=Path(root).resolve() if root else None)
    print(
        f"  bare keep-alive loop: {summary['bare_us_per_request']} us of CPU per request "
        f"({summary['decisions_per_match']} decisions a match, median of {summary['repeats']}); "
        f"the bots: {summary['bot_us_per_request']} us a request"
    )
    baseline = summary.get("baseline")
    if isinstance(baseline, dict):
        _report(f"baseline ({baseline['root']})", baseline)
    _report("match (this tree)", summary)
    print(msgspec.json.encode({"arena_cost": summary}).decode())


if __name__ == "__main__":
    main()
