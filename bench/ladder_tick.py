"""The ladder matchmaker's tick at 1,000 and 10,000 bots (``make bench`` line ``ladder_tick``):
1v1 and individual 2v2, with a day's meetings already counted; beside it, in the same run,
the uniform random pairing's tick on the same bots as the floor any matchmaker pays. Its input
is the pool's current fit and today's meetings only, so it does not grow with the matches ever
played (tests/services/ladder/test_matchmaker.py)."""

from __future__ import annotations

import json
import random
import time

from bench.ladder_placement import uniform
from bench.smoke import size
from services.ladder.matchmaker import Pair, pair_key, pick_matches
from services.ladder.model import LadderBot, MatchmakerRules

SIZES = size((1_000, 10_000), (100,))
SLOTS = 200  # ladder matches the tick may start (the global cap less those in flight)
REPEATS = size(3, 1)


def pool(n: int, seed: int) -> tuple[list[LadderBot], dict[Pair, int]]:
    rng = random.Random(seed)
    bots = [
        LadderBot(
            bot_id=k,
            owner_id=k // 3,
            rating=rng.gauss(1500, 250),
            halfwidth=rng.choice((400.0, rng.uniform(40, 200))),
            available=rng.random() < 0.8,
        )
        for k in range(n)
    ]
    met = {pair_key(rng.randrange(n), rng.randrange(n)): rng.randint(1, 3) for _ in range(n * 5)}
    return bots, met


def best_of(work: object, repeats: int = REPEATS) -> float:
    assert callable(work)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    for n in SIZES:
        bots, met = pool(n, n)
        rules = MatchmakerRules(slots=SLOTS)
        line: dict[str, object] = {"bench": "ladder_tick", "bots": n, "slots": SLOTS}
        for players, name in ((2, "1v1"), (4, "2v2-individual")):
            picks = pick_matches(bots, met, rules, players=players)
            line[f"{name}_s"] = best_of(lambda: pick_matches(bots, met, rules, players=players))  # noqa: B023
            line[f"{name}_picks"] = len(picks)
        rng = random.Random(0)
        line["uniform_1v1_s"] = best_of(lambda: uniform(bots, met, rng))  # noqa: B023
        print(
            f"ladder_tick {n:>6} bots: 1v1 {line['1v1_s']:.3f} s ({line['1v1_picks']} picks), "
            f"individual 2v2 {line['2v2-individual_s']:.3f} s ({line['2v2-individual_picks']} "
            f"tables); uniform random pairing {line['uniform_1v1_s']:.3f} s"
        )
        print(json.dumps(line))


if __name__ == "__main__":
    main()
