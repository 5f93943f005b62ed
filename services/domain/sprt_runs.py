"""An SPRT test on the platform as plain data (docs/sprt.md, "On the platform").

A test's state is its parameters and the pair scores stored so far, in the order they were
stored (``sprt_tests.scores``). Everything shown or decided follows from them through the pure
model of :mod:`arena.sprt.stats`: the counts, the LLR against its bounds, the verdict, the Elo
estimate, the LLR's path for the page, and how many pairs to start next.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

import msgspec

from arena.sprt.pair import GAMES_PER_PAIR
from arena.sprt.stats import Counts, Sprt

Outcome = Literal["H0", "H1", "inconclusive"]
SprtStatus = Literal["running", "finished", "cancelled", "failed"]
"""A test plays while ``running``; it is ``finished`` with an outcome, ``cancelled`` by its
owner, or ``failed`` when a bot could not be reached."""

HISTORY_POINTS: Final = 240
"""At most this many points of the LLR's path (the page draws them; the API returns them)."""
MAX_CONCURRENCY: Final = 4
"""The most pairs a test may keep in play at once (its ``concurrency``); the quotas on running
tests (:mod:`services.flow.sprt_quota`) count on it."""


class SprtParams(msgspec.Struct, frozen=True, kw_only=True):
    """What decides a test: the hypotheses (Elo), the error rates, the game limit and how many
    pairs it may have in play at once."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    concurrency: int

    @property
    def max_pairs(self) -> int:
        """Pairs the test may play: ``max_games`` rounded down to whole pairs."""
        return self.max_games // GAMES_PER_PAIR


def counts_of(scores: Sequence[int]) -> Counts:
    """Pairs that scored 0, 1 and 2 games for bot A."""
    return scores.count(0), scores.count(1), scores.count(2)


def sprt_of(params: SprtParams, scores: Sequence[int]) -> Sprt:
    """The test's statistics after ``scores``."""
    return Sprt.resume(
        counts_of(scores),
        elo0=params.elo0,
        elo1=params.elo1,
        alpha=params.alpha,
        beta=params.beta,
    )


def outcome(params: SprtParams, scores: Sequence[int]) -> Outcome | None:
    """The test's result after ``scores``: a verdict once the LLR reaches a bound,
    ``inconclusive`` once every allowed pair is in without one, else None (go on)."""
    verdict = sprt_of(params, scores).decision
    if verdict != "continue":
        return verdict
    if len(scores) >= params.max_pairs:
        return "inconclusive"
    return None


def pairs_to_start(params: SprtParams, *, started: int, open_pairs: int) -> int:
    """New pairs to create so that ``concurrency`` are in play, never past ``max_pairs``."""
    return max(0, min(params.concurrency - open_pairs, params.max_pairs - started))


def history(
    params: SprtParams, scores: Sequence[int], points: int = HISTORY_POINTS
) -> list[tuple[int, float]]:
    """The LLR's path as ``(games, llr)``, from ``(0, 0.0)`` to the last pair: every pair when
    there are at most ``points``, else ``points`` evenly spaced ones (always the last)."""
    n = len(scores)
    if n <= points:
        marks = list(range(n + 1))
    else:
        marks = sorted({round(k * n / points) for k in range(points + 1)})
    path = []
    counts = [0, 0, 0]
    done = 0
    for mark in marks:
        for score in scores[done:mark]:
            counts[score] += 1
        done = mark
        test = Sprt.resume(
            (counts[0], counts[1], counts[2]),
            elo0=params.elo0,
            elo1=params.elo1,
            alpha=params.alpha,
            beta=params.beta,
        )
        path.append((GAMES_PER_PAIR * mark, test.llr))
    return path
