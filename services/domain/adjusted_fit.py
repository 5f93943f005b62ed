"""The rating fit on luck-adjusted outcomes (docs/luck.md, "Ratings and the ladder"): what the
ladder places and matches bots by, beside the public fit on actual results.

:func:`adjusted_scores` turns rated matches into adjusted outcomes: a match of one game (a
ladder match) scores side a's result minus its luck in that game's chance (the stored
result's ``luck.win``), whose mean is the result's own mean; a longer match, or one without
luck figures, keeps its result (the model values games, not matches).

:func:`adjusted_ratings` fits them. An adjusted score may lie outside [0, 1], where the
Bradley-Terry log-likelihood is no longer bounded for a bot with few games, so the estimate is
the public fit's moved by one Newton step on the adjusted scores: ``beta + C X^T (s_adj -
s)``, with ``C`` the public fit's covariance and ``X`` its design (to first order the
maximum of the adjusted quasi-likelihood, always finite). Its interval is the public one
narrowed by the information the adjusted outcomes carry: their dispersion ``phi`` (Pearson's,
``sum (s_adj - p)^2 / sum p (1 - p)`` over the adjusted games, as in a quasi-binomial model)
weighs each adjusted game ``1 / phi`` times a raw one, so a bot whose games were all adjusted
has its standard error times ``sqrt(phi)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np
from numpy.typing import NDArray

MIN_DISPERSION = 0.05
"""The dispersion is never taken below this (a handful of adjusted games could look exact)."""


class AdjustedRating(msgspec.Struct, frozen=True):
    """One bot's estimate on adjusted outcomes and its 95% interval (Elo, anchored as the
    public fit)."""

    rating: float
    low: float
    high: float


def adjusted_scores(
    scores: Sequence[float], luck: Sequence[float | None], games: Sequence[int]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Side a's adjusted score of each rated match, and which were adjusted: ``luck[i]`` is
    side a's luck in game chance over match ``i`` (None without figures) and ``games[i]`` how
    many games it had; only one-game matches with luck are adjusted."""
    raw = np.asarray(scores, dtype=np.float64)
    taken = [value if count == 1 else None for value, count in zip(luck, games, strict=True)]
    mask = np.array([value is not None for value in taken], dtype=bool)
    correction = np.array([value or 0.0 for value in taken], dtype=np.float64)
    return raw - correction, mask


def dispersion(
    adjusted: NDArray[np.float64], chance: NDArray[np.float64], mask: NDArray[np.bool_]
) -> float:
    """Pearson's dispersion of the adjusted games around their fitted chances (1 without any
    adjusted game), at least :data:`MIN_DISPERSION` and at most 1."""
    if not mask.any():
        return 1.0
    weight = chance[mask] * (1.0 - chance[mask])
    spread = float(np.sum((adjusted[mask] - chance[mask]) ** 2))
    return min(1.0, max(MIN_DISPERSION, spread / max(float(np.sum(weight)), 1e-12)))


def narrowing(
    bots: int,
    members: NDArray[np.intp],
    chance: NDArray[np.float64],
    mask: NDArray[np.bool_],
    phi: float,
) -> NDArray[np.float64]:
    """Per bot, the factor on its standard error: the square root of its games' information
    as raw outcomes over their information with the adjusted ones counted ``1 / phi`` times.
    ``members`` is (games, bots a side x 2): every bot of each game."""
    weight = chance * (1.0 - chance)
    raw = np.zeros(bots)
    weighted = np.zeros(bots)
    scale = np.where(mask, 1.0 / phi, 1.0)
    for column in range(members.shape[1]):
        raw += np.bincount(members[:, column], weights=weight, minlength=bots)
        weighted += np.bincount(members[:, column], weights=weight * scale, minlength=bots)
    ratio = np.divide(raw, weighted, out=np.ones(bots), where=weighted > 0)
    factor: NDArray[np.float64] = np.sqrt(ratio)
    return factor
