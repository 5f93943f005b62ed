"""A running SPRT on pairs with either statistic (docs/sprt.md): ``raw``, the trinomial test on
the games bot A won (:class:`arena.sprt.stats.Sprt`), or ``adjusted``, the test on luck-adjusted
pair scores (:class:`arena.sprt.adjusted.AdjustedSprt`, the default). Both are fed every pair;
the chosen one decides and gives the LLR and the estimate, and the raw counts are kept for the
wins, losses and pairs shown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from arena.sprt.adjusted import AdjustedSprt
from arena.sprt.stats import Counts, Sprt, Verdict, elo_estimate

Statistic = Literal["adjusted", "raw"]
STATISTICS: Final[tuple[Statistic, ...]] = ("adjusted", "raw")
DEFAULT_STATISTIC: Final[Statistic] = "adjusted"


@dataclass
class PairTest:
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    statistic: Statistic = DEFAULT_STATISTIC
    raw: Sprt = field(init=False)
    adjusted: AdjustedSprt = field(init=False)

    def __post_init__(self) -> None:
        self.raw = Sprt(elo0=self.elo0, elo1=self.elo1, alpha=self.alpha, beta=self.beta)
        self.adjusted = AdjustedSprt(
            elo0=self.elo0, elo1=self.elo1, alpha=self.alpha, beta=self.beta
        )
        self.bounds = self.raw.bounds

    @classmethod
    def resume(
        cls,
        counts: Counts,
        adjusted: Sequence[float],
        *,
        elo0: float,
        elo1: float,
        alpha: float,
        beta: float,
        statistic: Statistic,
    ) -> PairTest:
        """The test after pairs with these raw ``counts`` and ``adjusted`` scores (one LLR fit,
        not one a pair)."""
        test = cls(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, statistic=statistic)
        test.raw = Sprt.resume(counts, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
        for value in adjusted:
            test.adjusted.add(value)
        return test

    def add(self, score: int, adjusted: float) -> Verdict:
        """One pair: the games A won (0, 1 or 2) and its adjusted score per game."""
        self.raw.add(score)
        self.adjusted.add(adjusted)
        return self.decision

    @property
    def decision(self) -> Verdict:
        return self.adjusted.decision if self.statistic == "adjusted" else self.raw.decision

    @property
    def llr(self) -> float:
        return self.adjusted.llr if self.statistic == "adjusted" else self.raw.llr

    @property
    def estimate(self) -> tuple[float, tuple[float, float]]:
        if self.statistic == "adjusted":
            return self.adjusted.estimate
        return elo_estimate(self.raw.count_tuple)

    @property
    def pairs(self) -> int:
        return self.raw.pairs

    @property
    def counts(self) -> list[int]:
        return self.raw.counts

    @property
    def count_tuple(self) -> Counts:
        return self.raw.count_tuple

    @property
    def wins(self) -> int:
        return self.raw.wins

    @property
    def losses(self) -> int:
        return self.raw.losses

    @property
    def mean_adjusted(self) -> float | None:
        """A's mean adjusted score per game so far (None before the first pair)."""
        return self.adjusted.total / self.adjusted.pairs if self.adjusted.pairs else None
