"""Time the rating fit (services/domain/rating_fit.py) at 1,000 bots / 100,000 rated games and at
10,000 bots / 1,000,000 (issue 15's target: under a minute on the platform's machine).

The games are simulated: true strengths from N(1500, 200 Elo), random 1v1 pairs, each game won
with the model's own probability; the table is built from arrays (no per-game Python objects),
so what is timed is :func:`fit_ratings` itself: the Newton fit, the information matrix, its
inverse, the intervals and the LOS down the leaderboard. The smaller size runs first in the
same process, as the baseline the larger one is read against (the inverse grows as n^3, the
rest as the number of games). The load average is printed beside the figures: the machine is
shared, and the inverse takes both cores.
"""

from __future__ import annotations

import json
import os
import time
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from bench.smoke import size
from services.domain.rating_fit import GameTable, fit_ratings
from services.domain.ratings import BotId

SIZES = size(((1_000, 100_000), (10_000, 1_000_000)), ((100, 1_000),))
TARGET_S = 60.0


class Pool(NamedTuple):
    table: GameTable
    elo: dict[BotId, float]
    true: NDArray[np.float64]  # on the fit's scale: mean moved to the Elo mean (its anchor)


def simulated(bots: int, games: int, seed: int = 7) -> Pool:
    rng = np.random.default_rng(seed)
    true = rng.normal(1500.0, 200.0, bots)
    a = rng.integers(0, bots, games)
    b = (a + rng.integers(1, bots, games)) % bots  # never the same bot
    wins = rng.random(games) < 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
    table = GameTable(tuple(range(bots)), a[:, None], b[:, None], wins.astype(np.float64))
    # the Elo ratings a real pool would have: the truth blurred by about 60 Elo
    elo = true + rng.normal(0.0, 60.0, bots)
    return Pool(
        table, {bot: float(elo[bot]) for bot in range(bots)}, true - true.mean() + elo.mean()
    )


def time_fit(bots: int, games: int) -> tuple[float, float]:
    """(seconds, share of true strengths inside their 95% interval)."""
    pool = simulated(bots, games)
    order = sorted(pool.elo, key=lambda bot: -pool.elo[bot])
    start = time.perf_counter()
    fitted = fit_ratings(pool.table, pool.elo, order)
    seconds = time.perf_counter() - start
    inside = [fitted[b].low <= pool.true[b] <= fitted[b].high for b in range(bots)]
    return seconds, float(np.mean(inside))


def main() -> None:
    figures: dict[str, float] = {}
    for bots, games in SIZES:
        load = os.getloadavg()[0]
        seconds, covered = time_fit(bots, games)
        key = f"fit_{bots}_bots_{games}_games"
        figures[f"{key}_s"] = round(seconds, 2)
        figures[f"{key}_coverage"] = round(covered, 4)
        figures[f"{key}_load_before"] = round(load, 2)
        verdict = "ok" if seconds < TARGET_S else "OVER TARGET"
        print(
            f"rating fit, {bots:>6,} bots, {games:>9,} games: {seconds:7.2f} s "
            f"(target < {TARGET_S:.0f} s: {verdict}); {covered:.1%} of true strengths inside "
            f"their 95% interval; load average before {load:.2f}"
        )
    print(json.dumps({"bench": "rating_fit", **figures}))


if __name__ == "__main__":
    main()
