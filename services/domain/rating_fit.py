"""Ratings that say how sure they are: Bradley-Terry on the Elo scale, fitted by maximum
likelihood over every rated match of a pool, with 95% intervals and the likelihood of
superiority (LOS) of each leaderboard entry over the one below it. Pure: plain data in, plain
data out (numpy and scipy do the arithmetic); docs/ratings.md explains it for a newcomer.

The model. Bot ``i`` has a strength ``r_i`` on the Elo scale; a side's strength is the mean of
its bots (one bot in 1v1 and team 2v2, two in individual 2v2, as :mod:`services.domain.ratings` rates
them) and side a beats side b with probability ``1 / (1 + 10 ** ((R_b - R_a) / 400))``. A match
scores 1, 0.5 (draw) or 0 for side a and adds ``s log p + (1 - s) log (1 - p)`` to the
log-likelihood (a draw is half a win and half a loss, as Ordo and CCRL count it).

The prior: every bot also has ONE virtual draw against a virtual opponent fixed at the centre
of the fit's scale (BayesElo gives two). It keeps every estimate finite (a bot that won all its
n games still gets a rating, about ``400 log10(2n - 1)`` above opponents it beat, and a wide
interval), ties together pools that split into groups that never met, and weighs as much as
one game: with tens of games a bot its pull is a few Elo. Strictly the estimate is the
maximum of likelihood x prior (a penalised maximum likelihood). The published numbers are then
shifted to the anchor (below), so the scale's own zero never shows.

Intervals. The observed Fisher information ``H`` (the Hessian of minus the log-posterior at the
estimate) is inverted exactly: a dense Cholesky factor and its triangular inverse, about
2 n^3 / 3 operations on n^2 numbers (double precision below SINGLE_PRECISION_FROM bots, single
from there: 400 MB and about half a minute at 10,000 bots, see docs/ratings.md). The ratings are anchored so
that their mean over the fitted bots equals the mean of those bots' Elo ratings: what is
reported is ``r_i - mean(r) + mean(Elo)``, whose variance is
``(e_i - 1/n)^T H^-1 (e_i - 1/n)``, and the interval is the estimate +- 1.96 standard errors.

LOS of ``i`` over ``j`` (the next entry below): ``Phi((r_i - r_j) / sd(r_i - r_j))`` with
``Var(r_i - r_j) = C_ii + C_jj - 2 C_ij`` (C = H^-1); the anchoring cancels out.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any

import msgspec
import numpy as np
from numpy.typing import NDArray
from scipy import linalg, optimize, sparse, special
from threadpoolctl import ThreadpoolController

from services.domain.adjusted_fit import AdjustedRating, dispersion, narrowing
from services.domain.ratings import BotId

ELO_PER_LOGIT = 400 / math.log(10)
"""One unit of log-odds in Elo points (about 173.7)."""
Z95 = float(special.ndtri(0.975))
PRIOR_DRAWS = 1.0
"""Virtual draws per bot against the centre of the scale (see the module docstring)."""
SINGLE_PRECISION_FROM = 2000
"""From this many bots the information matrix is factorised in single precision: half the
memory and time; the Cholesky error depends on the diagonally scaled matrix's condition, and a
test compares both precisions on an uneven pool."""
THREADED_FROM = 2000
"""Below this many bots the fit's BLAS runs on one thread: a small pool's factorisation takes a
millisecond, and OpenBLAS's threads waiting on each other cost up to 10-50 times that on a busy
machine (measured: 200 bots 1.3-1.6 ms on one thread, 10-25 ms on two; 1,000 bots 37 ms against
126-302 ms); from a few thousand bots both cores pay off."""
_GRADIENT_TOLERANCE = 1e-6  # in games: the fit stops when no bot is further off than this


class Game(msgspec.Struct, frozen=True):
    """One rated match: the bots of each side and side a's score (1 win, 0.5 draw, 0 loss)."""

    side_a: tuple[BotId, ...]
    side_b: tuple[BotId, ...]
    score: float


class FitError(ValueError):
    """Games that cannot be fitted together (malformed, or sides of different sizes)."""


@dataclass(frozen=True, slots=True)
class GameTable:
    """Games as arrays: ``side_a``/``side_b`` are (games, bots a side) indices into ``bots``."""

    bots: tuple[BotId, ...]
    side_a: NDArray[np.intp]
    side_b: NDArray[np.intp]
    score: NDArray[np.float64]

    @property
    def size(self) -> int:
        return len(self.score)

    @classmethod
    def from_games(cls, games: Iterable[Game]) -> GameTable:
        """Index the bots (in order of first appearance) and check every game."""
        index: dict[BotId, int] = {}
        side_a: list[list[int]] = []
        side_b: list[list[int]] = []
        scores: list[float] = []
        width: int | None = None
        for game in games:
            if game.score not in (0.0, 0.5, 1.0):
                raise FitError(f"a score is 1, 0.5 or 0, got {game.score!r}")
            if width is None:
                width = len(game.side_a)
            if not width or len(game.side_a) != width or len(game.side_b) != width:
                raise FitError(f"every side of a pool has the same number of bots: {game!r}")
            seen = [*game.side_a, *game.side_b]
            if len(set(seen)) != len(seen):
                raise FitError(f"a bot appears twice in {game!r}")
            side_a.append([index.setdefault(b, len(index)) for b in game.side_a])
            side_b.append([index.setdefault(b, len(index)) for b in game.side_b])
            scores.append(game.score)
        shape = (len(scores), width or 1)
        return cls(
            bots=tuple(index),
            side_a=np.array(side_a, dtype=np.intp).reshape(shape),
            side_b=np.array(side_b, dtype=np.intp).reshape(shape),
            score=np.array(scores, dtype=np.float64),
        )


class FittedRating(msgspec.Struct, frozen=True):
    """One bot's fit: the estimate and its 95% interval (Elo scale, anchored), and the LOS
    over ``next_bot`` (the entry below it in the order given; None when there is none, or
    when that bot played no rated game)."""

    rating: float
    low: float
    high: float
    games: int
    next_bot: BotId | None = None
    los_next: float | None = None
    adjusted: AdjustedRating | None = None  # on luck-adjusted outcomes, when asked for
    ladder_next: BotId | None = None
    """The bot right below it in its ladder's table (the ladder's bots in this fit's order),
    and the LOS over that one: a ladder's LOS is against its own table, not the leaderboard's
    Elo order (issue 32)."""
    ladder_los: float | None = None


class _Problem:
    """Minus the log-posterior in log-odds units, its gradient and Hessian-vector product.

    ``design`` is the (games x bots) matrix of the margins: +1/k for side a's bots, -1/k for
    side b's, so the margins are ``design @ beta`` in log-odds."""

    def __init__(self, table: GameTable) -> None:
        self.n = n = len(table.bots)
        self.score = table.score
        games, k = table.side_a.shape
        rows = np.repeat(np.arange(games), 2 * k)
        cols = np.concatenate([table.side_a, table.side_b], axis=1).ravel()
        signs = np.tile(np.repeat([1.0 / k, -1.0 / k], k), games)
        self.design = sparse.csr_array((signs, (rows, cols)), shape=(games, n))
        self.transposed = self.design.T.tocsr()
        self._at: tuple[NDArray[Any], NDArray[Any], NDArray[Any]] | None = None

    def value_and_gradient(self, beta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        x = self.design @ beta
        s = self.score
        value = float(np.sum(s * np.logaddexp(0.0, -x) + (1 - s) * np.logaddexp(0.0, x)))
        value += PRIOR_DRAWS * float(
            np.sum(0.5 * np.logaddexp(0.0, -beta) + 0.5 * np.logaddexp(0.0, beta))
        )
        gradient = self.transposed @ (special.expit(x) - s)
        return value, gradient + PRIOR_DRAWS * (special.expit(beta) - 0.5)

    def curvature(self, beta: NDArray[np.float64]) -> tuple[NDArray[Any], NDArray[Any]]:
        """The weight p(1 - p) of every game and of every bot's virtual draw (the last one
        kept: conjugate gradients ask for many products at one point)."""
        if self._at is None or not np.array_equal(self._at[0], beta):
            p, q = special.expit(self.design @ beta), special.expit(beta)
            self._at = (beta.copy(), p * (1 - p), PRIOR_DRAWS * q * (1 - q))
        return self._at[1], self._at[2]

    def hessian_times(self, beta: NDArray[np.float64], v: NDArray[np.float64]) -> Any:
        games, prior = self.curvature(beta)
        return self.transposed @ (games * (self.design @ v)) + prior * v

    def hessian(self, beta: NDArray[np.float64], dtype: type[np.floating[Any]]) -> NDArray[Any]:
        """The dense Hessian ``design^T diag(w) design + diag(prior)``, Fortran-ordered."""
        games, prior = self.curvature(beta)
        weighted = self.transposed @ sparse.diags_array(games)
        h: NDArray[Any] = (weighted @ self.design).astype(dtype).toarray(order="F")
        h[np.diag_indices(self.n)] += prior.astype(dtype)
        return h


def _estimate(problem: _Problem, start: NDArray[np.float64]) -> NDArray[np.float64]:
    """The maximum of the posterior (strictly convex: Newton with conjugate gradients)."""
    result = optimize.minimize(
        problem.value_and_gradient,
        start,
        jac=True,
        hessp=problem.hessian_times,
        method="trust-krylov",
        options={"gtol": _GRADIENT_TOLERANCE, "maxiter": 200},
    )
    beta: NDArray[np.float64] = result.x
    if np.max(np.abs(problem.value_and_gradient(beta)[1]), initial=0.0) > 1e3 * _GRADIENT_TOLERANCE:
        raise FitError(f"the fit did not converge: {result.message}")
    return beta


def _inverse_factor(h: NDArray[Any]) -> NDArray[Any]:
    """``L^-1`` with ``H = L L^T`` (so ``H^-1 = L^-T L^-1``), in place of ``h`` (Fortran
    order) and in its precision."""
    potrf, trtri = linalg.lapack.get_lapack_funcs(("potrf", "trtri"), (h,))
    factor, info = potrf(h, lower=1, clean=1, overwrite_a=1)
    if info != 0:
        raise FitError(f"the information matrix is not positive definite (potrf: {info})")
    inverse, info = trtri(factor, lower=1, overwrite_c=1)
    if info != 0:
        raise FitError(f"the information matrix cannot be inverted (trtri: {info})")
    result: NDArray[Any] = inverse
    return result


_BLOCK = 512  # columns at a time, so no full-size copy in double precision is ever made


def _covariance_terms(inverse: NDArray[Any]) -> tuple[NDArray[np.float64], Any, float]:
    """From ``inverse`` = L^-1: diag(C), C 1 and 1^T C 1 (C = inverse^T inverse), summed in
    double precision a block of columns at a time."""
    n = inverse.shape[0]
    diagonal = np.empty(n)
    sums = np.zeros(n)  # inverse @ 1
    for start in range(0, n, _BLOCK):
        block = inverse[:, start : start + _BLOCK].astype(np.float64)
        diagonal[start : start + _BLOCK] = np.einsum("ki,ki->i", block, block)
        sums += block.sum(axis=1)
    row_sums = np.empty(n)  # C 1 = inverse^T (inverse @ 1)
    for start in range(0, n, _BLOCK):
        row_sums[start : start + _BLOCK] = sums @ inverse[:, start : start + _BLOCK].astype(
            np.float64
        )
    return diagonal, row_sums, float(sums @ sums)


def games_per_bot(table: GameTable) -> NDArray[np.intp]:
    counts = np.zeros(len(table.bots), dtype=np.intp)
    for side in (table.side_a, table.side_b):
        for column in range(side.shape[1]):
            counts += np.bincount(side[:, column], minlength=len(table.bots))
    return counts


def fit_ratings(
    table: GameTable,
    elo: Mapping[BotId, float],
    order: Sequence[BotId] = (),
    *,
    ladder: Collection[BotId] = (),
    single_from: int = SINGLE_PRECISION_FROM,
    adjusted: tuple[NDArray[np.float64], NDArray[np.bool_]] | None = None,
) -> dict[BotId, FittedRating]:
    """The fit of every bot that played in ``table``.

    ``elo`` gives every such bot's Elo rating: it anchors the scale (mean fit = mean Elo over
    the fitted bots) and starts the search. ``order`` is the leaderboard, best first: each bot
    in it gets the LOS over the bot after it. ``ladder``: the bots on the pool's ladder, whose
    table is in this fit's order (rating, best first; then bot id): each fitted one gets the
    LOS over the fitted one after it there. Bots without games are absent from the result.
    From ``single_from`` bots on, the information matrix is inverted in single precision.
    ``adjusted`` (every game's luck-adjusted score and which were adjusted:
    :func:`services.domain.adjusted_fit.adjusted_scores`) adds each bot's estimate on those
    outcomes (:mod:`services.domain.adjusted_fit`).
    """
    n = len(table.bots)
    if n == 0:
        return {}
    missing = [b for b in table.bots if b not in elo]
    if missing:
        raise FitError(f"no Elo rating for bot(s) {missing[:5]!r}")
    with _blas_threads(n):
        return _fit(table, elo, order, ladder, n >= single_from, adjusted)


@cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()


def _blas_threads(n: int) -> Any:
    """One BLAS thread for a fit of ``n`` < :data:`THREADED_FROM` bots, else as configured."""
    return _controller().limit(limits=1 if n < THREADED_FROM else None, user_api="blas")


def _fit(
    table: GameTable,
    elo: Mapping[BotId, float],
    order: Sequence[BotId],
    ladder: Collection[BotId],
    single: bool,
    adjusted: tuple[NDArray[np.float64], NDArray[np.bool_]] | None,
) -> dict[BotId, FittedRating]:
    n = len(table.bots)
    current = np.array([elo[b] for b in table.bots], dtype=np.float64)
    anchor = float(current.mean())
    problem = _Problem(table)
    beta = _estimate(problem, (current - anchor) / ELO_PER_LOGIT)

    precision = np.float32 if single else np.float64
    inverse = _inverse_factor(problem.hessian(beta, precision))  # C = inverse^T inverse
    diagonal, row_sums, total = _covariance_terms(inverse)
    variance = diagonal - 2 * row_sums / n + total / n**2
    error = np.sqrt(np.maximum(variance, 0.0)) * ELO_PER_LOGIT * Z95
    rating = (beta - beta.mean()) * ELO_PER_LOGIT + anchor
    counts = games_per_bot(table)
    on_luck = (
        None
        if adjusted is None
        else _adjusted(problem, table, beta, inverse, adjusted, error, anchor)
    )

    position = {bot: k for k, bot in enumerate(table.bots)}

    def los_below(ordered: Sequence[BotId]) -> dict[BotId, tuple[BotId, float | None]]:
        below: dict[BotId, tuple[BotId, float | None]] = {}
        for upper, lower in pairwise(ordered):
            i, j = position.get(upper), position.get(lower)
            if i is None:
                continue
            if j is None:
                below[upper] = (lower, None)
                continue
            covariance = float(np.dot(inverse[:, i], inverse[:, j].astype(np.float64)))
            spread = diagonal[i] + diagonal[j] - 2 * covariance
            gap = (beta[i] - beta[j]) / math.sqrt(max(spread, 1e-300))
            below[upper] = (lower, float(special.ndtr(gap)))
        return below

    board = los_below(order)
    on_ladder = sorted(
        (bot for bot in ladder if bot in position), key=lambda b: (-rating[position[b]], b)
    )
    table_below = los_below(on_ladder)
    return {
        bot: FittedRating(
            rating=float(rating[k]),
            low=float(rating[k] - error[k]),
            high=float(rating[k] + error[k]),
            games=int(counts[k]),
            next_bot=board.get(bot, (None, None))[0],
            los_next=board.get(bot, (None, None))[1],
            ladder_next=table_below.get(bot, (None, None))[0],
            ladder_los=table_below.get(bot, (None, None))[1],
            adjusted=None if on_luck is None else on_luck[k],
        )
        for k, bot in enumerate(table.bots)
    }


def _adjusted(
    problem: _Problem,
    table: GameTable,
    beta: NDArray[np.float64],
    inverse: NDArray[Any],
    adjusted: tuple[NDArray[np.float64], NDArray[np.bool_]],
    error: NDArray[np.float64],
    anchor: float,
) -> list[AdjustedRating]:
    """Every bot's estimate on adjusted outcomes: one Newton step from the public estimate,
    its interval narrowed by the adjusted games' dispersion (:mod:`services.domain.adjusted_fit`)."""
    scores, mask = adjusted
    step = problem.transposed @ (scores - table.score)  # X^T (s_adj - s)
    moved = inverse @ step.astype(inverse.dtype)
    shift = np.asarray(inverse.T @ moved, dtype=np.float64)  # C X^T (s_adj - s)
    beta_adj = beta + shift
    chance = np.asarray(special.expit(problem.design @ beta_adj), dtype=np.float64)
    phi = dispersion(scores, chance, mask)
    members = np.concatenate([table.side_a, table.side_b], axis=1)
    factor = narrowing(len(table.bots), members, chance, mask, phi)
    rating = (beta_adj - beta_adj.mean()) * ELO_PER_LOGIT + anchor
    half = error * factor
    return [
        AdjustedRating(float(r), float(r - h), float(r + h))
        for r, h in zip(rating, half, strict=True)
    ]
