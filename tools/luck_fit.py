"""Fit the luck model (docs/luck.md) on self-play of the built-in bots: ``make luck-model``.

``python -m tools.luck_fit --games N --seed S [--out PATH]`` plays, for every rules
configuration the model covers (1v1 and 2v2, flor on and off, to 30 and to 15), ``N`` games of
``heuristic`` against itself and against ``HeuristicStrategy(noise=p)`` for p in 0.1, 0.25 and
0.5, the seats alternating. Every game's seed and every bot's random stream derive from
``S`` (``truco-luck-fit/S/CONFIG/GAME``), so a run is reproducible from its seed; the bench
(``bench/luck.py``) measures on seeds of another derivation, never used here. The held-out
bots (``cautious``, ``reckless``) are never played here.

For each configuration it fits, by least squares, the hand's point difference (mano's team
minus the other) on the deal's features (:mod:`arena.luck.features`), sorts the hands into
:data:`BINS` bins by the fitted value and counts each bin's outcomes; the hands that ended the
game are left out (their points were cut at the target). It writes the model file (JSON) that
:mod:`arena.luck.model` reads. CPU-heavy: run it with ``nice``; it is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec
import numpy as np

from arena.bots.base import Strategy
from arena.bots.evaluate import game_events
from arena.bots.heuristic import HeuristicStrategy
from arena.luck.features import deal_features, feature_names
from arena.luck.hands import hand_info
from arena.luck.model import LATEST, ConfigData, FitInfo, ModelData, config_key, model_path
from engine import Rules
from engine.events import GameEnded, HandEnded, HandStarted

NOISES = (0.0, 0.1, 0.25, 0.5)  # heuristic against HeuristicStrategy(noise=p)
CONFIGS: tuple[tuple[Literal[2, 4], bool, Literal[15, 30]], ...] = tuple(
    (players, flor, points) for players in (2, 4) for flor in (True, False) for points in (30, 15)
)
BINS = 16


def derived_seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


@dataclass
class Sample:
    """The hands of one configuration: features, the two teams' points (mano's team first)."""

    features: list[list[float]] = field(default_factory=list)
    points: list[tuple[int, int]] = field(default_factory=list)
    games: int = 0


def collect(
    players: Literal[2, 4], flor: bool, points: Literal[15, 30], games: int, seed: int
) -> Sample:
    rules = Rules(players=players, flor=flor, points_to_win=points)
    key = config_key(players, flor, points)
    sample = Sample()
    for game in range(games):
        noise = NOISES[game % len(NOISES)]
        pair: tuple[Strategy, Strategy] = (HeuristicStrategy(), HeuristicStrategy(noise=noise))
        if (game // len(NOISES)) % 2:
            pair = (pair[1], pair[0])
        stream = f"truco-luck-fit/{seed}/{key}/{game}"
        start: HandStarted | None = None
        for event in game_events(pair, rules, derived_seed(stream), stream):
            if isinstance(event, HandStarted):
                start = event
            elif isinstance(event, HandEnded) and start is not None:
                if max(event.score) < points:  # a hand cut at the target tells less
                    team = start.mano % 2
                    ordered = tuple(
                        hand_info(start.deal[(start.mano + p) % players]) for p in range(players)
                    )
                    sample.features.append(deal_features(ordered, flor))
                    sample.points.append(
                        (
                            event.score[team] - start.score[team],
                            event.score[1 - team] - start.score[1 - team],
                        )
                    )
                start = None
            elif isinstance(event, GameEnded):
                break
        sample.games += 1
    return sample


def fit(sample: Sample, players: int) -> ConfigData:
    x = np.array(sample.features, dtype=float)
    y = np.array([m - t for m, t in sample.points], dtype=float)
    fitted = np.linalg.lstsq(x, y, rcond=None)[0]
    weights = [round(float(w), 6) for w in fitted]
    value = x @ np.array(weights)
    edges = np.quantile(value, np.linspace(0.0, 1.0, BINS + 1)[1:-1])
    bins = np.searchsorted(edges, value, side="right")
    centers: list[float] = []
    outcomes: list[list[tuple[int, int, int]]] = []
    for k in range(BINS):
        inside = bins == k
        centers.append(round(float(value[inside].mean()), 6))
        counts = Counter(p for p, keep in zip(sample.points, inside, strict=True) if keep)
        outcomes.append([(m, t, c) for (m, t), c in sorted(counts.items())])
    if len(weights) != len(feature_names(players)):
        raise AssertionError("the features and their names disagree")
    return ConfigData(weights=weights, centers=centers, outcomes=outcomes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20_000, help="games per configuration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=model_path(LATEST))
    args = parser.parse_args(argv)
    configs: dict[str, ConfigData] = {}
    hands = 0
    for players, flor, points in CONFIGS:
        began = time.perf_counter()
        sample = collect(players, flor, points, args.games, args.seed)
        configs[config_key(players, flor, points)] = fit(sample, players)
        hands += len(sample.points)
        print(
            f"{config_key(players, flor, points)}: {sample.games} games, "
            f"{len(sample.points)} hands, {time.perf_counter() - began:.0f} s",
            file=sys.stderr,
        )
    data = ModelData(
        version=LATEST,
        fit=FitInfo(
            seed=args.seed,
            games=args.games,
            hands=hands,
            strategies=["heuristic", *(f"heuristic(noise={p:g})" for p in NOISES[1:])],
            command=f"python -m tools.luck_fit --games {args.games} --seed {args.seed}",
        ),
        sena_value=0.0,
        configs=configs,
    )
    args.out.write_bytes(msgspec.json.format(msgspec.json.encode(data), indent=1) + b"\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
