"""The luck model's data and the value tables built from it.

A model file (``model-v1.json`` beside this module) holds, per rules configuration (players,
flor, points to win), what ``tools/luck_fit.py`` fitted on self-play:

- ``weights``: the linear value of a deal's features (:mod:`arena.luck.features`), the expected
  point difference of the hand from the mano's team's side;
- ``centers`` and ``outcomes``: the deals of the fit sorted into bins by that value; per bin its
  mean value and how often each outcome of the hand came (points won by the mano's team and by
  the other).

From the outcomes the model builds, once per configuration, the chance that the mano's team
wins the game from each score before a deal (by backward induction over the scores, the mano
passing to the other team after each hand) and, per bin, the expected game chance and point
difference after the hand (points past the target are not scored: R-3). The value of a deal is
then read between the two bins nearest its linear value.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Sequence
from operator import mul
from pathlib import Path
from typing import Final

import msgspec
import numpy as np

from arena.luck.features import SEAT_FEATURES, meet_features, seat_features
from arena.luck.hands import HandInfo
from engine.rules import Rules

LATEST: Final = "truco-luck/1"
"""The model version new results are computed with."""
_FILES: Final = {"truco-luck/1": "model-v1.json"}


class UnknownModel(LookupError):
    """No luck model has this version (a document from a newer platform, or a typo)."""


class ConfigData(msgspec.Struct, frozen=True):
    weights: list[float]
    centers: list[float]
    outcomes: list[list[tuple[int, int, int]]]  # per bin: (mano team's points, other's, count)


class FitInfo(msgspec.Struct, frozen=True):
    seed: int
    games: int
    hands: int
    strategies: list[str]
    command: str


class ModelData(msgspec.Struct, frozen=True):
    version: str
    fit: FitInfo
    sena_value: float  # tantos a seña costs its team per opponent who saw it (0: not modelled)
    configs: dict[str, ConfigData]


def config_key(players: int, flor: bool, points: int) -> str:
    return f"{players}/{'flor' if flor else 'no-flor'}/{points}"


class Tables:
    """The value tables of one configuration: ``win[a][b]`` and ``diff[a][b]`` are, per bin,
    the mano's team's chance of winning the game and its expected point difference after the
    hand, at scores ``a`` (mano's team) and ``b`` (the other) before it."""

    def __init__(self, data: ConfigData, players: int, target: int) -> None:
        self.target = target
        self.centers = data.centers
        self.const = data.weights[0]
        seat = len(SEAT_FEATURES)
        self.seat_weights = [
            data.weights[1 + p * seat : 1 + (p + 1) * seat] for p in range(players)
        ]
        self.meet_weights = data.weights[1 + players * seat :]
        self._seat_values: list[dict[HandInfo, float]] = [{} for _ in range(players)]
        pooled: dict[tuple[int, int], int] = {}
        for outcomes in data.outcomes:
            for mine, theirs, count in outcomes:
                pooled[mine, theirs] = pooled.get((mine, theirs), 0) + count
        self.before = _game_chances(_normalise(pooled), target)
        # after[a + m][b + t]: the mano's team's chance once a hand left the scores there
        reach = target + max(max(m, t) for outcomes in data.outcomes for m, t, _ in outcomes)
        after = np.zeros((reach, reach))
        after[target:, :] = 1.0
        for a in range(target):
            for b in range(target):
                after[a, b] = 1.0 - self.before[b][a]
        capped = np.minimum(np.arange(reach), target)
        win = np.zeros((len(data.outcomes), target, target))
        diff = np.zeros((len(data.outcomes), target, target))
        scores = np.arange(target)
        for k, outcomes in enumerate(data.outcomes):
            total = sum(c for _, _, c in outcomes)
            for m, t, count in outcomes:
                p = count / total
                win[k] += p * after[m : m + target, t : t + target]
                gained = (capped[scores + m] - scores)[:, None] - (capped[scores + t] - scores)
                diff[k] += p * gained
        self.win: list[list[list[float]]] = win.transpose(1, 2, 0).tolist()
        self.diff: list[list[list[float]]] = diff.transpose(1, 2, 0).tolist()
        # the leverage of one point at each score: the game chance of a point more for the
        # mano's team against a point more for the other, halved
        self.leverage = [
            [float(after[a + 1, b] - after[a, b + 1]) / 2.0 for b in range(target)]
            for a in range(target)
        ]

    def _seat_value(self, position: int, info: HandInfo, flor: bool) -> float:
        """The part of a deal's value that one seat's cards at ``position`` add alone."""
        weights = self.seat_weights[position]
        value: float = sum(map(mul, weights, seat_features(info, flor)))
        self._seat_values[position][info] = value
        return value

    def value(self, ordered: tuple[HandInfo, ...], flor: bool) -> float:
        """The fitted value of a deal by positions from the mano (:mod:`arena.luck.features`):
        its expected point difference for the mano's team."""
        total = self.const
        caches = self._seat_values
        for position, info in enumerate(ordered):
            found = caches[position].get(info)
            total += self._seat_value(position, info, flor) if found is None else found
        meet: float = sum(map(mul, self.meet_weights, meet_features(ordered, flor)))
        return total + meet

    def at(self, value: float) -> tuple[int, float]:
        """The bin below ``value`` and the weight of the bin above (0 to 1; clamped)."""
        centers = self.centers
        above = bisect_right(centers, value)
        if above == 0:
            return 0, 0.0
        if above == len(centers):
            return above - 2, 1.0
        low = centers[above - 1]
        return above - 1, (value - low) / (centers[above] - low)


def _normalise(counts: dict[tuple[int, int], int]) -> list[tuple[int, int, float]]:
    total = sum(counts.values())
    return [(m, t, c / total) for (m, t), c in sorted(counts.items())]


def _game_chances(dist: Sequence[tuple[int, int, float]], target: int) -> list[list[float]]:
    """``chance[a][b]``: the mano's team's chance of winning the game from scores ``a`` (its)
    and ``b`` before a deal, every hand's outcome drawn from ``dist`` and the mano passing to
    the other team after it. Every hand scores a point, so each score depends only on higher
    totals: solved from the highest total down."""
    chance = [[0.0] * target for _ in range(target)]
    for total in range(2 * target - 2, -1, -1):
        for a in range(max(0, total - target + 1), min(total, target - 1) + 1):
            b = total - a
            win = 0.0
            for m, t, p in dist:
                if a + m >= target:
                    win += p
                elif b + t < target:
                    win += p * (1.0 - chance[b + t][a + m])
            chance[a][b] = win
    return chance


class LuckModel:
    """A luck model: its version, its data and the tables of each configuration (built on
    first use)."""

    def __init__(self, data: ModelData) -> None:
        self.version = data.version
        self.data = data
        self.sena_value = data.sena_value
        self._tables: dict[tuple[int, bool, int], Tables] = {}

    def tables(self, rules: Rules) -> Tables:
        key = (rules.players, rules.flor, rules.points_to_win)
        found = self._tables.get(key)
        if found is None:
            data = self.data.configs[config_key(*key)]
            found = self._tables[key] = Tables(data, rules.players, rules.points_to_win)
        return found


def model_path(version: str) -> Path:
    try:
        return Path(__file__).with_name(_FILES[version])
    except KeyError:
        known = ", ".join(sorted(_FILES))
        raise UnknownModel(f"unknown luck model {version!r}; this code knows {known}") from None


@functools.cache
def load_model(version: str = LATEST) -> LuckModel:
    """The luck model of ``version`` (read once per process)."""
    data = msgspec.json.decode(model_path(version).read_bytes(), type=ModelData)
    if data.version != version:
        raise UnknownModel(f"{model_path(version).name} holds {data.version!r}, not {version!r}")
    return LuckModel(data)


def read_model(path: Path) -> LuckModel:
    """A luck model from a file of any name (the fit's output, before it is shipped)."""
    return LuckModel(msgspec.json.decode(path.read_bytes(), type=ModelData))
