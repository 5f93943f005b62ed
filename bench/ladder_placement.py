"""How many matches a ladder spends to know its ranking: our matchmaker against two baselines,
side by side on the same simulated pools (``make bench`` line ``ladder_placement``).

A pool: ``POOL`` bots whose true strengths are drawn from a normal distribution (sd ``SPREAD``
Elo, about the spread of a real pool of bots), owners shared by a few of them; a match is won
with the Bradley-Terry probability of the true difference. Every tick each policy starts at most
``SLOTS`` matches (the global cap on ladder matches in flight), each bot in at most one, and the
pool's ratings are refitted with the platform's own fit (:func:`services.domain.rating_fit.fit_ratings`,
95% intervals) before the next tick.

* (b) **the top is sure**: from a cold start (no bot has played), the matches until 9 of the
  true top 10 are in the table's top 10 and the true top 3 are its top 3 in order;
* (a) **a new bot is placed**: then, once the pool has played ``WARMUP_MATCHES`` matches
  whatever the policy (so each has spent as many when they come), ``NEW_BOTS`` new bots join, one every ``JOIN_EVERY`` ticks;
  for each, its own matches until its interval is under +-100 Elo (placement), beside the
  information bound (even matches against known opponents:
  :func:`services.ladder.model.even_matches_to_place`).

Policies: ``ours`` (:mod:`services.ladder.matchmaker`), ``uniform`` (random pairs) and
``near_rank`` (Kaggle-style: bots still placing first, each with a random opponent of similar
rating). Each policy plays each pool with the same true strengths; medians and quartiles over
``POOLS`` pools, since one pool's run can be many times longer than another's.

Size: ``POOLS`` is 4 (``BENCH_LADDER_POOLS``; docs/ladder.md's table is of 20). Every tick refits
the whole pool, so a run costs its ticks (up to 1,400) times a fit over up to 20,000 matches:
80-130 s a run on this loaded machine, three runs a pool. The runs are spread over one process a core.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from bench.smoke import env_size, size
from services.domain.rating_fit import GameTable, fit_ratings
from services.domain.ratings import BotId
from services.ladder.matchmaker import Pair, pair_key, pick_1v1
from services.ladder.model import (
    NEW_BOT_HALFWIDTH,
    PLACEMENT_HALFWIDTH,
    LadderBot,
    MatchmakerRules,
    even_matches_to_place,
)

POOLS = int(env_size("BENCH_LADDER_POOLS", "4", "2"))
POOL = size(200, 20)
SPREAD = 200.0
SLOTS = 20
NEW_BOTS = 8
JOIN_EVERY = 3
MAX_MATCHES_B = size(20_000, 400)
WARMUP_MATCHES = size(10_000, 200)
MAX_TICKS_A = size(400, 20)
DAY_TICKS = 200
"""Ticks in a ladder day: two bots meet at most ``PAIR_PER_DAY`` times in one (every policy)."""
PAIR_PER_DAY = 3

Policy = Callable[[list[LadderBot], dict[Pair, int], random.Random], list[tuple[int, int]]]


def ours(bots: list[LadderBot], met: dict[Pair, int], rng: random.Random) -> list[tuple[int, int]]:
    del rng
    picks = pick_1v1(bots, met, MatchmakerRules(slots=SLOTS, pair_per_day=PAIR_PER_DAY))
    return [(p.side_a[0], p.side_b[0]) for p in picks]


def _may_meet(a: LadderBot, b: LadderBot, met: dict[Pair, int]) -> bool:
    return a.owner_id != b.owner_id and met.get(pair_key(a.bot_id, b.bot_id), 0) < PAIR_PER_DAY


def uniform(
    bots: list[LadderBot], met: dict[Pair, int], rng: random.Random
) -> list[tuple[int, int]]:
    ready = [b for b in bots if b.available]
    rng.shuffle(ready)
    pairs: list[tuple[int, int]] = []
    waiting: list[LadderBot] = []
    for bot in ready:
        partner = next((w for w in waiting if _may_meet(w, bot, met)), None)
        if partner is None:
            waiting.append(bot)
            continue
        waiting.remove(partner)
        pairs.append((partner.bot_id, bot.bot_id))
        if len(pairs) == SLOTS:
            break
    return pairs


def near_rank(
    bots: list[LadderBot], met: dict[Pair, int], rng: random.Random
) -> list[tuple[int, int]]:
    """Kaggle-style: bots still placing first, then the rest in random order; each takes an
    opponent drawn with weight ``exp(-(d / 100)^2 / 2)`` over the rating difference ``d``."""
    ready = [b for b in bots if b.available]
    rng.shuffle(ready)
    ready.sort(key=lambda b: b.placed)
    free = {b.bot_id: b for b in ready}
    pairs: list[tuple[int, int]] = []
    for bot in ready:
        if bot.bot_id not in free:
            continue
        del free[bot.bot_id]
        others = [o for o in free.values() if _may_meet(o, bot, met)]
        if not others:
            free[bot.bot_id] = bot
            continue
        weights = [math.exp(-(((o.rating - bot.rating) / 100) ** 2) / 2) + 1e-12 for o in others]
        other = rng.choices(others, weights=weights)[0]
        del free[other.bot_id]
        pairs.append((bot.bot_id, other.bot_id))
        if len(pairs) == SLOTS:
            break
    return pairs


POLICIES: dict[str, Policy] = {"ours": ours, "uniform": uniform, "near_rank": near_rank}


@dataclass
class Pool:
    """The simulated pool: true strengths, owners, every match played (as the fit's arrays,
    grown in place) and the latest fit."""

    strength: dict[int, float]
    owner: dict[int, int]
    index: dict[int, int] = field(default_factory=dict)
    side_a: list[int] = field(default_factory=list)
    side_b: list[int] = field(default_factory=list)
    score: list[float] = field(default_factory=list)
    played: dict[int, int] = field(default_factory=dict)
    fitted: dict[int, tuple[float, float]] = field(default_factory=dict)  # rating, halfwidth

    @property
    def matches(self) -> int:
        return len(self.score)

    def refit(self) -> None:
        if not self.score:
            return
        games = len(self.score)
        table = GameTable(
            bots=tuple(self.index),
            side_a=np.array(self.side_a, dtype=np.intp).reshape(games, 1),
            side_b=np.array(self.side_b, dtype=np.intp).reshape(games, 1),
            score=np.array(self.score, dtype=np.float64),
        )
        start: dict[BotId, float] = {b: self.fitted.get(int(b), (0.0, 0.0))[0] for b in table.bots}
        fit = fit_ratings(table, start)
        self.fitted = {int(b): (f.rating, (f.high - f.low) / 2) for b, f in fit.items()}

    def ladder(self) -> list[LadderBot]:
        return [
            LadderBot(
                bot_id=b,
                owner_id=self.owner[b],
                rating=self.fitted.get(b, (0.0, NEW_BOT_HALFWIDTH))[0],
                halfwidth=self.fitted.get(b, (0.0, NEW_BOT_HALFWIDTH))[1],
            )
            for b in self.strength
        ]

    def play(self, pairs: Sequence[tuple[int, int]], rng: random.Random) -> None:
        for a, b in pairs:
            p = 1 / (1 + 10 ** ((self.strength[b] - self.strength[a]) / 400))
            self.side_a.append(self.index.setdefault(a, len(self.index)))
            self.side_b.append(self.index.setdefault(b, len(self.index)))
            self.score.append(1.0 if rng.random() < p else 0.0)
            self.played[a] = self.played.get(a, 0) + 1
            self.played[b] = self.played.get(b, 0) + 1

    def top_is_sure(self) -> bool:
        true = sorted(self.strength, key=lambda b: -self.strength[b])
        table = sorted(self.fitted, key=lambda b: -self.fitted[b][0])
        return len(set(true[:10]) & set(table[:10])) >= 9 and table[:3] == true[:3]


def make_pool(seed: int) -> Pool:
    rng = random.Random(seed)
    strength = {b: rng.gauss(0.0, SPREAD) for b in range(POOL)}
    owner = {b: b % (POOL * 4 // 5) for b in range(POOL)}
    return Pool(strength, owner)


@dataclass(frozen=True)
class Run:
    matches_to_top: int
    top_reached: bool
    placement: list[int]
    seconds: float


def run(policy: Policy, seed: int) -> Run:
    started = time.perf_counter()
    pool = make_pool(seed)
    rng = random.Random(seed * 7919 + 1)
    met: dict[Pair, int] = {}
    ticks = 0

    def tick() -> None:
        nonlocal ticks, met
        if ticks % DAY_TICKS == 0:
            met = {}  # a new ladder day
        pairs = policy(pool.ladder(), met, rng)
        for a, b in pairs:
            met[pair_key(a, b)] = met.get(pair_key(a, b), 0) + 1
        pool.play(pairs, rng)
        pool.refit()
        ticks += 1

    while not (pool.fitted and pool.top_is_sure()) and pool.matches < MAX_MATCHES_B:
        tick()
    matches_to_top, reached = pool.matches, pool.top_is_sure()
    while pool.matches < WARMUP_MATCHES:
        tick()  # every policy has spent as many matches when the new bots come
    joining = random.Random(seed + 104729)
    newcomers = list(range(POOL, POOL + NEW_BOTS))
    placed_after: dict[int, int] = {}
    for n in range(MAX_TICKS_A):
        if n % JOIN_EVERY == 0 and n // JOIN_EVERY < NEW_BOTS:
            bot = newcomers[n // JOIN_EVERY]
            pool.strength[bot] = joining.gauss(0.0, SPREAD)
            pool.owner[bot] = 10_000 + bot
        tick()
        for bot in newcomers:
            joined = bot in pool.strength and bot not in placed_after
            if joined and pool.fitted.get(bot, (0.0, math.inf))[1] < PLACEMENT_HALFWIDTH:
                placed_after[bot] = pool.played.get(bot, 0)
        if len(placed_after) == NEW_BOTS:
            break
    placement = [placed_after.get(b, -1) for b in newcomers]
    return Run(matches_to_top, reached, placement, time.perf_counter() - started)


def run_named(name: str, seed: int) -> Run:
    """:func:`run` with the policy named (what a process of the pool is sent)."""
    return run(POLICIES[name], seed)


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def main(pools: int = POOLS, only: Sequence[str] = ()) -> None:
    """Every policy on ``pools`` pools (``only``: those policies, for running them as parallel
    processes on the same pools; the summary then compares what was run)."""
    bound = even_matches_to_place()
    names = [n for n in POLICIES if not only or n in only]
    jobs = [(name, seed) for seed in range(pools) for name in names]
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(len(jobs), os.cpu_count() or 1), mp_context=spawn) as runner:
        done = list(runner.map(run_named, *zip(*jobs, strict=True)))
    results: dict[str, list[Run]] = {name: [] for name in names}
    for (name, _seed), one in zip(jobs, done, strict=True):
        results[name].append(one)
    summary: dict[str, dict[str, object]] = {}
    for name, runs in results.items():
        top = [float(r.matches_to_top) for r in runs]
        placed = [float(m) for r in runs for m in r.placement if m >= 0]
        unplaced = sum(1 for r in runs for m in r.placement if m < 0)
        tq = quartiles(top)
        pq = quartiles(placed) if len(placed) >= 2 else (math.nan,) * 3
        summary[name] = {
            "top_q1": tq[0],
            "top_median": tq[1],
            "top_q3": tq[2],
            "top_not_reached": sum(1 for r in runs if not r.top_reached),
            "placement_q1": pq[0],
            "placement_median": pq[1],
            "placement_q3": pq[2],
            "placement_not_reached": unplaced,
            "placement_vs_bound": pq[1] / bound if bound else math.nan,
            "seconds": sum(r.seconds for r in runs),
        }
        print(
            f"ladder_placement {name:9s}: top sure after {tq[1]:.0f} matches "
            f"(q1 {tq[0]:.0f}, q3 {tq[2]:.0f}); new bot placed after {pq[1]:.0f} of its "
            f"matches (q1 {pq[0]:.0f}, q3 {pq[2]:.0f}; bound {bound}, "
            f"{pq[1] / bound:.2f}x); {sum(r.seconds for r in runs):.0f} s"
        )
    if set(summary) != set(POLICIES):
        print(json.dumps({"bench": "ladder_placement", "pools": pools, "policies": summary}))
        return
    best_top = min(float(summary[n]["top_median"]) for n in ("uniform", "near_rank"))  # type: ignore[arg-type]
    best_place = min(float(summary[n]["placement_median"]) for n in ("uniform", "near_rank"))  # type: ignore[arg-type]
    ratio_top = best_top / float(summary["ours"]["top_median"])  # type: ignore[arg-type]
    ratio_place = best_place / float(summary["ours"]["placement_median"])  # type: ignore[arg-type]
    print(
        f"ladder_placement: the better baseline needs {ratio_top:.2f}x our matches for a sure "
        f"top and {ratio_place:.2f}x for a placement ({pools} pools of {POOL} bots)"
    )
    print(
        json.dumps(
            {
                "bench": "ladder_placement",
                "pools": pools,
                "pool_size": POOL,
                "slots": SLOTS,
                "spread_elo": SPREAD,
                "information_bound": bound,
                "policies": summary,
                "baseline_over_ours_top": ratio_top,
                "baseline_over_ours_placement": ratio_place,
            }
        )
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else POOLS, sys.argv[2:])
