"""Luck-adjusted results (docs/luck.md): how much variance the luck model removes, and how many
fewer games an SPRT needs for it.

``python -m bench.luck [--pairs N] [--runs R] [--seed S] [--smoke]`` (``make bench`` runs it at
full size). For each pairing of built-in bots, in 1v1 and 2v2 (flor, to 30), it plays ``N``
pairs of games (two games, the seats swapped, each dealt independently) in process, on seeds
derived as ``bench-luck/S/...``: a derivation the model's fit (``tools/luck_fit.py``,
``truco-luck-fit/...``) never uses. The pairings: ``heuristic`` against
``HeuristicStrategy(noise=p)`` for p in 0.1, 0.25, 0.5 and against itself (the bots the model
was fitted on), and against ``cautious`` and ``reckless``, never used in the fit (held out).

It measures, from bot A's side (``heuristic``):

- the variance of a game's result, raw and adjusted (the result minus its luck): the win
  (1 or 0) and the tantos difference, and their ratio;
- ``R`` SPRTs per pairing with the platform's defaults (elo0 0, elo1 10, alpha = beta = 0.05,
  at most 10,000 pairs), each on pairs drawn at random from the played ones (the same draws
  for every test of a run): the platform's raw test (trinomial GSPRT on games won), the
  normal-approximation test on the raw pair scores, and the same test on the adjusted pair
  scores (:mod:`arena.sprt.adjusted`); games to a decision (median, quartiles) and the
  realised error rates (H1 accepted where A's mean score in the played pairs is at most
  elo0's, as between equal bots; H0 accepted where it is at least elo1's). Equal bots are symmetric, so their pairs are drawn from the played pairs and
  their mirror images (each pair seen from B's side): the runs then sit exactly at elo 0;
- the bias: equal bots' adjusted mean per game (from the played games, not mirrored) and its
  standard error;
- the cost of the correction: CPU microseconds per hand, computing the luck of every played
  game from its events (the least of five passes: the machine may be shared).

It prints a text table and one JSON line ``{"luck": {...}}``: per pairing ``games_ratio``
(adjusted test's median games to a decision over the platform's raw test's), ``variance_ratio``
(adjusted over raw variance of a game's win), ``held_out``.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from arena.bots import get_strategy
from arena.bots.base import Strategy
from arena.bots.evaluate import game_events
from arena.bots.heuristic import HeuristicStrategy
from arena.luck import LATEST, game_luck, load_model
from arena.sprt.adjusted import AdjustedSprt
from arena.sprt.stats import Sprt, logistic
from bench.smoke import smoke
from engine import Rules

MODES: tuple[tuple[str, Literal[2, 4]], ...] = (("1v1", 2), ("2v2", 4))
ELO0, ELO1, ALPHA, BETA = 0.0, 10.0, 0.05, 0.05  # the platform's defaults (docs/sprt.md)
MAX_PAIRS = 10_000
COST_REPEATS = 5


@dataclass(frozen=True)
class Pairing:
    b: str
    make_b: Callable[[], Strategy]
    held_out: bool = False


PAIRINGS = (
    Pairing("heuristic", HeuristicStrategy),
    Pairing("heuristic(noise=0.1)", lambda: HeuristicStrategy(noise=0.1)),
    Pairing("heuristic(noise=0.25)", lambda: HeuristicStrategy(noise=0.25)),
    Pairing("heuristic(noise=0.5)", lambda: HeuristicStrategy(noise=0.5)),
    Pairing("cautious", lambda: get_strategy("cautious"), held_out=True),
    Pairing("reckless", lambda: get_strategy("reckless"), held_out=True),
)


@dataclass(frozen=True)
class Game:
    """One game from A's side: won, its luck in game chance, the tantos difference and its
    luck in tantos."""

    won: float
    win_luck: float
    tantos: float
    tantos_luck: float

    @property
    def adjusted(self) -> float:
        return self.won - self.win_luck


@dataclass
class Pool:
    pairs: list[tuple[Game, Game]]
    hands: int = 0
    games: list[Sequence[object]] = field(default_factory=list)  # every game's events

    def cost_us(self, rules: Rules, repeats: int = COST_REPEATS) -> float:
        """CPU microseconds per hand of computing every game's luck from its events: the
        least of ``repeats`` passes (the machine is shared; the least is the code's cost)."""
        model = load_model(LATEST)
        best = math.inf
        for _ in range(repeats):
            began = time.process_time()
            for events in self.games:
                game_luck(model, rules, events)
            best = min(best, time.process_time() - began)
        return 1e6 * best / max(self.hands, 1)


def _seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def play(pairing: Pairing, players: Literal[2, 4], pairs: int, seed: int) -> Pool:
    rules = Rules(players=players)
    model = load_model(LATEST)
    pool = Pool([])
    for k in range(pairs):
        games = []
        for g in range(2):  # A sits as team 0, then as team 1
            stream = f"bench-luck/{seed}/{pairing.b}/{players}/{k}/{g}"
            a, b = HeuristicStrategy(), pairing.make_b()
            events = list(game_events((a, b) if g == 0 else (b, a), rules, _seed(stream), stream))
            luck = game_luck(model, rules, events)
            pool.games.append(events)
            pool.hands += len(luck.hands)
            sign = 1.0 if g == 0 else -1.0
            won = luck.won if g == 0 else not luck.won
            difference = luck.score[0] - luck.score[1]
            games.append(
                Game(float(bool(won)), sign * luck.win, sign * difference, sign * luck.tantos)
            )
        pool.pairs.append((games[0], games[1]))
    return pool


@dataclass(frozen=True)
class Draw:
    raw: int  # games A won of the pair
    adjusted: float  # A's adjusted score per game in the pair


def draws(pool: Pool, mirrored: bool) -> list[Draw]:
    out = [Draw(int(a.won + b.won), (a.adjusted + b.adjusted) / 2.0) for a, b in pool.pairs]
    if mirrored:  # the same pairs seen from B's side: equal bots, exactly at elo 0
        out += [Draw(2 - d.raw, 1.0 - d.adjusted) for d in out]
    return out


@dataclass(frozen=True)
class Run:
    """One SPRT run: (verdict, games) for the raw test, the normal test on raw scores, and the
    normal test on adjusted scores."""

    raw: tuple[str, int]
    raw_normal: tuple[str, int]
    adjusted: tuple[str, int]


def sprt_run(data: Sequence[Draw], rng: random.Random) -> Run:
    raw = Sprt(elo0=ELO0, elo1=ELO1, alpha=ALPHA, beta=BETA)
    raw_normal = AdjustedSprt(elo0=ELO0, elo1=ELO1, alpha=ALPHA, beta=BETA)
    adjusted = AdjustedSprt(elo0=ELO0, elo1=ELO1, alpha=ALPHA, beta=BETA)
    done: dict[str, tuple[str, int]] = {}
    pairs = 0
    while len(done) < 3 and pairs < MAX_PAIRS:
        draw = data[rng.randrange(len(data))]
        pairs += 1
        verdicts = {
            "raw": raw.add(draw.raw) if "raw" not in done else "",
            "raw_normal": raw_normal.add(draw.raw / 2.0) if "raw_normal" not in done else "",
            "adjusted": adjusted.add(draw.adjusted) if "adjusted" not in done else "",
        }
        for name, verdict in verdicts.items():
            if verdict in ("H0", "H1"):
                done[name] = (verdict, 2 * pairs)
    for name in ("raw", "raw_normal", "adjusted"):
        done.setdefault(name, ("inconclusive", 2 * pairs))
    return Run(done["raw"], done["raw_normal"], done["adjusted"])


def _quartiles(values: list[int]) -> tuple[float, float, float]:
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def _variance(values: list[float]) -> float:
    return statistics.pvariance(values)


@dataclass
class Row:
    pairing: Pairing
    mode: str
    games: int
    win_rate: float
    var_win: float
    var_win_adjusted: float
    var_tantos: float
    var_tantos_adjusted: float
    sprt: dict[str, dict[str, float]]
    us_per_hand: float
    bias: tuple[float, float] | None  # equal bots: adjusted mean - 1/2, its standard error

    @property
    def variance_ratio(self) -> float:
        return self.var_win_adjusted / self.var_win

    @property
    def games_ratio(self) -> float:
        return self.sprt["adjusted"]["median"] / self.sprt["raw"]["median"]


def wrong_verdict(data: Sequence[Draw]) -> str | None:
    """The verdict that is an error in the world the runs draw from: H1 if A's mean score is
    at most elo0's, H0 if it is at least elo1's, none in between."""
    mean = statistics.fmean(d.raw / 2.0 for d in data)
    if mean <= logistic(ELO0):
        return "H1"
    if mean >= logistic(ELO1):
        return "H0"
    return None


def summarise(runs: list[Run], wrong: str | None) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name in ("raw", "raw_normal", "adjusted"):
        results = [getattr(r, name) for r in runs]
        games = [g for _, g in results]
        q1, median, q3 = _quartiles(games) if len(games) > 1 else (games[0],) * 3
        out[name] = {
            "median": median,
            "q1": q1,
            "q3": q3,
            "error_rate": (
                sum(v == wrong for v, _ in results) / len(results) if wrong else math.nan
            ),
            "inconclusive": sum(v == "inconclusive" for v, _ in results) / len(results),
        }
    return out


def measure(
    pairing: Pairing, mode: str, players: Literal[2, 4], pairs: int, runs: int, seed: int
) -> Row:
    pool = play(pairing, players, pairs, seed)
    games = [g for pair in pool.pairs for g in pair]
    equal = pairing.b == "heuristic"
    data = draws(pool, mirrored=equal)
    sprt = [
        sprt_run(data, random.Random(f"{seed}/{pairing.b}/{mode}/run/{r}")) for r in range(runs)
    ]
    bias = None
    if equal:
        adjusted = [g.adjusted for g in games]
        se = math.sqrt(_variance(adjusted) / len(adjusted))
        bias = (statistics.fmean(adjusted) - 0.5, se)
    return Row(
        pairing=pairing,
        mode=mode,
        games=len(games),
        win_rate=statistics.fmean(g.won for g in games),
        var_win=_variance([g.won for g in games]),
        var_win_adjusted=_variance([g.adjusted for g in games]),
        var_tantos=_variance([g.tantos for g in games]),
        var_tantos_adjusted=_variance([g.tantos - g.tantos_luck for g in games]),
        sprt=summarise(sprt, wrong_verdict(data)),
        us_per_hand=pool.cost_us(Rules(players=players)),
        bias=bias,
    )


def report(rows: list[Row], pairs: int, runs: int, seed: int) -> None:
    print(
        f"  model {LATEST}; {pairs} pairs of games per pairing and mode (seed {seed}, never used "
        f"in the fit); {runs} SPRT runs each (elo0 {ELO0:g}, elo1 {ELO1:g}, alpha = beta = {ALPHA})"
    )
    print(
        "  A = heuristic against B          mode  A won  var(win) raw  adj  ratio  "
        "var(tantos) ratio  games to a decision: raw [q1-q3]  raw-normal  adjusted [q1-q3]  "
        "ratio  error raw/adj"
    )
    for r in rows:
        s = r.sprt
        mark = " (held out)" if r.pairing.held_out else ""
        print(
            f"  {r.pairing.b + mark:<32} {r.mode}  {100 * r.win_rate:5.1f}  "
            f"{r.var_win:12.4f} {r.var_win_adjusted:.4f}  {r.variance_ratio:5.2f}  "
            f"{r.var_tantos_adjusted / r.var_tantos:17.2f}  "
            f"{s['raw']['median']:>22.0f} [{s['raw']['q1']:.0f}-{s['raw']['q3']:.0f}]"
            f"  {s['raw_normal']['median']:>10.0f}  {s['adjusted']['median']:>8.0f} "
            f"[{s['adjusted']['q1']:.0f}-{s['adjusted']['q3']:.0f}]  {r.games_ratio:5.2f}  "
            f"{s['raw']['error_rate']:.3f}/{s['adjusted']['error_rate']:.3f}"
        )
    for r in rows:
        if r.bias is not None:
            mean, se = r.bias
            print(
                f"  bias, equal bots, {r.mode}: adjusted mean per game 0.5 {mean:+.4f} "
                f"(standard error {se:.4f}: {abs(mean) / se:.1f} SE)"
            )
    cost = {r.mode: r.us_per_hand for r in rows}
    print(
        "  cost of the correction: " + ", ".join(f"{m} {us:.1f} us/hand" for m, us in cost.items())
    )
    summary = {
        "model": LATEST,
        "pairs": pairs,
        "runs": runs,
        "seed": seed,
        "sprt": {
            "elo0": ELO0,
            "elo1": ELO1,
            "alpha": ALPHA,
            "beta": BETA,
            "max_games": 2 * MAX_PAIRS,
        },
        "us_per_hand": {m: round(us, 2) for m, us in cost.items()},
        "bias": {
            r.mode: {"mean_minus_half": round(r.bias[0], 5), "standard_error": round(r.bias[1], 5)}
            for r in rows
            if r.bias is not None
        },
        "pairings": [
            {
                "a": "heuristic",
                "b": r.pairing.b,
                "mode": r.mode,
                "held_out": r.pairing.held_out,
                "a_win_rate": round(r.win_rate, 4),
                "variance_ratio": round(r.variance_ratio, 4),
                "tantos_variance_ratio": round(r.var_tantos_adjusted / r.var_tantos, 4),
                "games_ratio": round(r.games_ratio, 4),
                "games_ratio_same_test": round(
                    r.sprt["adjusted"]["median"] / r.sprt["raw_normal"]["median"], 4
                ),
                "sprt": {
                    k: {n: None if math.isnan(v) else round(v, 4) for n, v in d.items()}
                    for k, d in r.sprt.items()
                },
            }
            for r in rows
        ],
    }
    print(msgspec.json.encode({"luck": summary}).decode())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.luck")
    parser.add_argument(
        "--pairs", type=int, default=1000, help="pairs of games per pairing and mode"
    )
    parser.add_argument("--runs", type=int, default=200, help="SPRT runs per pairing and mode")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="a few seconds: 8 pairs, 4 runs")
    args = parser.parse_args([] if argv is None else argv)
    if args.smoke or smoke():
        args.pairs, args.runs = 8, 4
    rows = [
        measure(pairing, mode, players, args.pairs, args.runs, args.seed)
        for pairing in PAIRINGS
        for mode, players in MODES
    ]
    report(rows, args.pairs, args.runs, args.seed)


if __name__ == "__main__":
    main(sys.argv[1:])
