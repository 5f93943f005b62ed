"""A person's seat under load: many people playing the house heuristic at once in one process.

Issue 23. ``CASES`` of scripted people (each answering its turn at once with its first legal
action) play 1v1 matches to 15 against the built-in heuristic through the match runner and
:class:`~arena.match.human.HumanSeat`, all on one event loop, as play sessions run on a
bot-calling worker's loop (``bench play_cluster`` measures the whole path across processes). Measured: the turn latency (from the person's answer to their next turn being open:
the runner, the judge, the bot's decisions and the seat's hand-off), p50/p95/max; the CPU per
decision; and the memory a session holds (``tracemalloc`` in a run of its own, the peak over all
sessions divided by their number). With 100 people answering instantly every turn waits its
place on the loop; real people think for seconds, so that case is a bound, not a forecast. No database and no HTTP: the API's own cost is the per-request cost of any
endpoint.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import tracemalloc

import msgspec

from arena.client.connection import InProcessBot
from arena.match.human import HumanSeat
from arena.match.replay import EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from arena.wire.protocol import ActResponse
from bench.smoke import size
from engine.rules import Rules

CASES = size((1, 100), (1, 4))
"""People playing at once: alone (the runner's own cost), and a crowd answering instantly."""


async def _person(seat: HumanSeat, latencies: list[float]) -> None:
    version = 0
    answered_at: float | None = None
    while not seat.closed:
        version = await seat.wait_change(version, 5.0)
        turn = seat.turn
        if turn is None:
            continue
        if answered_at is not None:
            latencies.append((time.perf_counter() - answered_at) * 1000)
        first = turn.request.legal_actions[0]
        answered_at = time.perf_counter()
        seat.submit(turn.number, ActResponse(action=first.action, card=first.card))


async def _session(k: int, latencies: list[float]) -> int:
    seat = HumanSeat("person", clock_s=60)
    bot = InProcessBot("house", strategy_decider("heuristic", k))
    person = asyncio.create_task(_person(seat, latencies))
    settings = MatchSettings(rules=Rules(points_to_win=15), games_per_match=1)
    replay = await run_match(
        f"play-{k}",
        1000 + k,
        settings,
        [
            (EntrantRecord("person", "person"), seat),
            (EntrantRecord("house", "builtin:heuristic"), bot),
        ],
    )
    await person
    return sum(1 for g in replay.games for e in g.events if type(e).__name__ == "Decision")


async def _all(sessions: int) -> tuple[list[float], int]:
    latencies: list[float] = []
    decisions = await asyncio.gather(*(_session(k, latencies) for k in range(sessions)))
    return latencies, sum(decisions)


def _case(sessions: int) -> dict[str, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    latencies, decisions = asyncio.run(_all(sessions))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    ordered = sorted(latencies)
    return {
        "sessions": sessions,
        "decisions": decisions,
        "turn_latency_ms_p50": round(statistics.median(ordered), 3),
        "turn_latency_ms_p95": round(ordered[round(0.95 * (len(ordered) - 1))], 3),
        "turn_latency_ms_max": round(ordered[-1], 3),
        "cpu_us_per_decision": round(cpu / decisions * 1e6, 1),
        "wall_s": round(wall, 2),
    }


def _memory(sessions: int) -> float:
    """KiB a session holds: the peak traced while ``sessions`` play at once, divided."""
    tracemalloc.start()
    asyncio.run(_all(sessions))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return round(peak / sessions / 1024, 1)


def main() -> None:
    cases = [_case(n) for n in CASES]
    kib = _memory(CASES[-1])
    for case in cases:
        print(
            f"{case['sessions']} at once vs the heuristic (1v1 to 15, one loop): turn latency "
            f"p50 {case['turn_latency_ms_p50']} ms, p95 {case['turn_latency_ms_p95']} ms, max "
            f"{case['turn_latency_ms_max']} ms; {case['cpu_us_per_decision']} us CPU a decision"
        )
    print(f"{kib} KiB per session (peak with {CASES[-1]} at once, tracemalloc)")
    print(msgspec.json.encode({"play_session": {"cases": cases, "kib_per_session": kib}}).decode())


if __name__ == "__main__":
    main()
