"""The ladder's matchmaker: which matches to start now, chosen for what they teach about the
ranking (pure; the beat task feeds it the pool's fit and stores its picks).

Every bot's rating is a Gaussian belief: the fit's estimate ``mu`` and standard error ``sigma``
(Elo). One match between sides A and B adds, to what is known of a bot of side A,
``I = q^2 g^2 p (1 - p) / k^2`` of information (Glicko's approximation of the Bradley-Terry
likelihood the fit uses: ``q = ln 10 / 400``, ``p`` the chance A wins given both beliefs, ``g``
discounting for what is unknown of the other bots, ``k`` bots a side). Its variance goes from
``sigma^2`` to ``1 / (1 / sigma^2 + I)``: the match removes the fraction ``I sigma^2 / (1 + I
sigma^2)`` of it. The value of a match is the sum of those fractions over its bots, each
weighted by what that bot's rating is for:

* a bot still **placing** (interval at least +-100 Elo) weighs ``1 + placing_weight``: new bots
  first until placed;
* a bot that may stand on a **boundary at the top** (between places 1 and 2, 2 and 3, 3 and 4,
  or ``top`` and ``top + 1``) weighs up to ``1 + top_weight``: by ``4 t (1 - t)``, ``t`` the
  chance the bot is above the boundary;
* every other bot weighs 1.

The fraction is largest for a wide interval and an even match against a well-known opponent,
so a new bot meets established bots near its estimate, and the top meets the top. The
opponent's own variance is noise on what the match teaches, counted ``2 m + 1`` times for a
pair that met ``m`` times today: a bot's estimate leans on its opponents' ratings, and the
errors of different opponents average out (``sum_j (n_j / N)^2 var_j`` over ``n_j`` meetings
of ``N``), those of one opponent met again do not. The picks are greedy: first matches of a
bot still placing against a placed one, then matches of two bots still placing (a cold start,
or no placed bot free within reach), then the rest; by value within each; each bot in at most
one, never two bots of one owner, never a pair that met ``pair_per_day`` times today; at most
``slots``.

Cost: 1v1 scores only pairs within ``window`` places of each other in rating order (the rest
are far apart: an uneven match teaches little), so a tick is ``O(n window)`` array work plus a
sort, whatever the number of matches ever played. Individual 2v2 seats a table of four around
the most valuable bot left: its best partners-to-be among its neighbours, every split of them
into two partnerships tried.

scipy is imported by the two functions that use it, not by the module: every API process imports
this module (through ``services.flow``) and never picks a match, and scipy's import is about
0.3 s of CPU in each of the many API and worker processes a platform (and a test run) starts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from services.ladder.links import kept_apart
from services.ladder.model import LadderBot, MatchmakerRules, Pick, PickReason

Q = math.log(10) / 400
"""Log-odds per Elo point."""
_G = 3 * Q * Q / (math.pi * math.pi)
BOUNDARIES = (1, 2, 3)
"""The places at the top whose order the matchmaker works on, beside ``rules.top``."""

Pair = tuple[int, int]
SECOND_SHARE = 0.1
OPPONENT_NOISE = 1.0


def pair_key(a: int, b: int) -> Pair:
    """Two bots as a key of the day's meetings (order does not matter)."""
    return (a, b) if a < b else (b, a)


def may_meet(first: LadderBot, second: LadderBot, met: int, rules: MatchmakerRules) -> bool:
    """Whether two bots that met ``met`` times today may meet again: bots of owners not kept
    apart (one owner, or linked accounts), under the day's limit for a pair (raised while one
    of them is placing in a small pool: its ``pair_limit``)."""
    if kept_apart(first.owner_id, second.owner_id, rules.linked):
        return False
    return met < max(rules.pair_per_day, first.pair_limit, second.pair_limit)


def _g(variance: NDArray[np.float64]) -> NDArray[np.float64]:
    return 1.0 / np.sqrt(1.0 + _G * variance)


def top_weights(bots: Sequence[LadderBot], rules: MatchmakerRules) -> NDArray[np.float64]:
    """Per bot, ``max`` over the top boundaries of ``4 t (1 - t)`` (0 far from all of them)."""
    mu = np.array([b.rating for b in bots], dtype=np.float64)
    sigma = np.array([b.sigma for b in bots], dtype=np.float64)
    from scipy import special  # on use: see the module's docstring

    order = np.sort(mu)[::-1]
    weight = np.zeros(len(bots))
    for place in (*BOUNDARIES, rules.top):
        if place >= len(bots):
            continue
        line = (order[place - 1] + order[place]) / 2
        above = special.ndtr((mu - line) / np.maximum(sigma, 1e-9))
        weight = np.maximum(weight, 4 * above * (1 - above))
    return weight


def _weights(bots: Sequence[LadderBot], rules: MatchmakerRules) -> NDArray[np.float64]:
    placing = np.array([not b.placed for b in bots], dtype=np.float64)
    return 1.0 + rules.placing_weight * placing + rules.top_weight * top_weights(bots, rules)


def _pair_value(first: NDArray[np.float64], second: NDArray[np.float64]) -> NDArray[np.float64]:
    """A match's value from its two bots' weighted gains: the needier bot's, and a tenth of the
    other's. Not their sum: a match counts against both bots' matches, and two new bots meeting
    each other mostly learn their difference, not where they stand in the pool."""
    return np.maximum(first, second) + SECOND_SHARE * np.minimum(first, second)


def _placing_rank(first: NDArray[np.bool_], second: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Which pairs choose first: a bot still placing against a placed one (2), then two bots
    still placing (1: a cold start, or no placed bot left within reach), then the rest (0).
    Two newcomers meeting each other mostly learn their difference, not where they stand, and
    the match counts as one of each one's placement."""
    return (first ^ second).astype(np.int64) * 2 + (first & second).astype(np.int64)


def _met_before(
    bots: Sequence[LadderBot],
    ready: Sequence[int],
    order: NDArray[np.intp],
    met_today: Mapping[Pair, int],
    pairs: int,
    window: int,
) -> NDArray[np.float64]:
    """Per candidate pair (in :func:`pick_1v1`'s order: by offset in rating order, then by
    the lower place), how often its two bots met today. Walks today's meetings, not the
    ``O(n window)`` pairs: the pair of places ``p < p + d`` is candidate
    ``(d - 1) n - (d - 1) d / 2 + p``."""
    met = np.zeros(pairs)
    n = len(ready)
    place = {bots[ready[int(k)]].bot_id: at for at, k in enumerate(order)}
    for (a, b), times in met_today.items():
        pa, pb = place.get(a), place.get(b)
        if pa is None or pb is None:
            continue
        low, d = min(pa, pb), abs(pa - pb)
        if 1 <= d <= min(window, n - 1):
            met[(d - 1) * n - (d - 1) * d // 2 + low] = times
    return met


def _fraction(
    variance: NDArray[np.float64], information: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The fraction of a bot's variance one match removes."""
    gained = information * variance
    return gained / (1.0 + gained)


def _reason(bots: Sequence[LadderBot], ids: Sequence[int], top: NDArray[np.float64]) -> PickReason:
    if any(not bots[k].placed for k in ids):
        return "placing"
    if any(top[k] >= 0.5 for k in ids):
        return "top"
    return "uncertain"


def _detail(
    bots: Sequence[LadderBot], side_a: Sequence[int], side_b: Sequence[int], p: float
) -> str:
    def side(ids: Sequence[int]) -> str:
        return " + ".join(
            f"bot {bots[k].bot_id} ({bots[k].rating:.0f} +-{bots[k].halfwidth:.0f})" for k in ids
        )

    return f"{side(side_a)} vs {side(side_b)}: side a wins with p = {p:.2f}"


def pick_1v1(
    bots: Sequence[LadderBot], met_today: Mapping[Pair, int], rules: MatchmakerRules
) -> list[Pick]:
    """The 1v1 matches to start now, most valuable first (see the module docstring)."""
    ready = [k for k, b in enumerate(bots) if b.available]
    if rules.slots <= 0 or len(ready) < 2:
        return []
    weight = _weights(bots, rules)
    top = top_weights(bots, rules)
    mu = np.array([bots[k].rating for k in ready], dtype=np.float64)
    var = np.array([bots[k].sigma ** 2 for k in ready], dtype=np.float64)
    owner = np.array([bots[k].owner_id for k in ready], dtype=np.int64)
    w = weight[ready]
    order = np.argsort(mu, kind="stable")
    firsts, seconds = [], []
    for offset in range(1, min(rules.window, len(ready) - 1) + 1):
        firsts.append(order[:-offset])
        seconds.append(order[offset:])
    i = np.concatenate(firsts)
    j = np.concatenate(seconds)
    met_before = _met_before(bots, ready, order, met_today, len(i), rules.window)
    keep = owner[i] != owner[j]
    i, j = i[keep], j[keep]
    if len(i) == 0:
        return []
    from scipy import special  # on use: see the module's docstring

    p = special.expit(Q * _g(var[i] + var[j]) * (mu[i] - mu[j]))
    base = 1.0 / (Q * Q * p * (1 - p)) + var[i] + var[j]
    again = OPPONENT_NOISE * (2 * met_before[keep])
    value = _pair_value(
        w[i] * var[i] / (base + again * var[j]), w[j] * var[j] / (base + again * var[i])
    )
    placing = np.array([not bots[k].placed for k in ready])
    picks: list[Pick] = []
    used: set[int] = set()
    for best in np.lexsort((-value, -_placing_rank(placing[i], placing[j]))):
        a, b = int(i[best]), int(j[best])
        if a in used or b in used:
            continue
        first, second = bots[ready[a]], bots[ready[b]]
        if not may_meet(
            first, second, met_today.get(pair_key(first.bot_id, second.bot_id), 0), rules
        ):
            continue
        used.update((a, b))
        ids = (ready[a], ready[b])
        picks.append(
            Pick(
                side_a=(first.bot_id,),
                side_b=(second.bot_id,),
                value=float(value[best]),
                reason=_reason(bots, ids, top),
                detail=_detail(bots, ids[:1], ids[1:], float(p[best])),
            )
        )
        if len(picks) == rules.slots:
            break
    return picks


def _table_value(
    mu: Sequence[float],
    var: Sequence[float],
    w: Sequence[float],
    side_a: tuple[int, int],
    side_b: tuple[int, int],
) -> tuple[float, float]:
    """(value, p) of a table: each side's strength the mean of its two bots, each bot's gain
    as in 1v1 with the partner's and the opponents' uncertainty as noise (plain floats: a tick
    tries a few hundred tables)."""
    var_a = (var[side_a[0]] + var[side_a[1]]) / 4
    var_b = (var[side_b[0]] + var[side_b[1]]) / 4
    diff = (mu[side_a[0]] + mu[side_a[1]] - mu[side_b[0]] - mu[side_b[1]]) / 2
    p = 1.0 / (1.0 + math.exp(-Q * diff / math.sqrt(1.0 + _G * (var_a + var_b))))
    base = 4.0 / (Q * Q * p * (1 - p))  # a bot of a two-bot side: a quarter of the information
    gains = [
        w[k] * var[k] / (base + OPPONENT_NOISE * (var_a + var_b) * 4) for k in (*side_a, *side_b)
    ]
    gains.sort(reverse=True)
    return gains[0] + SECOND_SHARE * sum(gains[1:]), p


def pick_individual(
    bots: Sequence[LadderBot],
    met_today: Mapping[Pair, int],
    rules: MatchmakerRules,
    candidates: int = 7,
) -> list[Pick]:
    """Individual 2v2 tables to start now: around the most valuable bot left, three of its
    ``candidates`` nearest available neighbours of other owners (no two bots of one owner at a
    table, no pair over today's limit), split into the two partnerships worth most."""
    ready = [k for k, b in enumerate(bots) if b.available]
    if rules.slots <= 0 or len(ready) < 4:
        return []
    weight = _weights(bots, rules)
    top = top_weights(bots, rules)
    mu = [b.rating for b in bots]
    var = [b.sigma**2 for b in bots]
    w: list[float] = weight.tolist()
    urgency = [w[k] * var[k] for k in range(len(bots))]
    free = set(ready)
    by_rating = sorted(ready, key=lambda k: (mu[k], k))
    position = {k: n for n, k in enumerate(by_rating)}
    picks: list[Pick] = []
    for anchor in sorted(ready, key=lambda k: (-urgency[k], k)):
        if anchor not in free:
            continue
        near = _neighbours(anchor, by_rating, position, free, bots, candidates)
        best: tuple[float, float, tuple[int, int], tuple[int, int]] | None = None
        for trio in combinations(near, 3):
            four = (anchor, *trio)
            if len({bots[k].owner_id for k in four}) < 4:
                continue
            if not all(
                may_meet(
                    bots[x],
                    bots[y],
                    met_today.get(pair_key(bots[x].bot_id, bots[y].bot_id), 0),
                    rules,
                )
                for x, y in combinations(four, 2)
            ):
                continue
            for mate in trio:
                rest = tuple(k for k in trio if k != mate)
                side_a, side_b = (anchor, mate), (rest[0], rest[1])
                value, p = _table_value(mu, var, w, side_a, side_b)
                if best is None or value > best[0]:
                    best = (value, p, side_a, side_b)
        if best is None:
            continue
        value, p, side_a, side_b = best
        free.difference_update((*side_a, *side_b))
        picks.append(
            Pick(
                side_a=tuple(bots[k].bot_id for k in side_a),
                side_b=tuple(bots[k].bot_id for k in side_b),
                value=value,
                reason=_reason(bots, (*side_a, *side_b), top),
                detail=_detail(bots, side_a, side_b, p),
            )
        )
        if len(picks) == rules.slots or len(free) < 4:
            break
    return picks


def _neighbours(
    anchor: int,
    by_rating: Sequence[int],
    position: Mapping[int, int],
    free: set[int],
    bots: Sequence[LadderBot],
    count: int,
) -> list[int]:
    """The ``count`` free bots nearest ``anchor`` in rating, of owners other than its own."""
    here = position[anchor]
    found: list[int] = []
    low, high = here - 1, here + 1
    owner = bots[anchor].owner_id
    while len(found) < count and (low >= 0 or high < len(by_rating)):
        for k in (low, high):
            if 0 <= k < len(by_rating):
                bot = by_rating[k]
                if bot in free and bots[bot].owner_id != owner:
                    found.append(bot)
        low, high = low - 1, high + 1
    return found[:count]


def pick_matches(
    bots: Sequence[LadderBot],
    met_today: Mapping[Pair, int],
    rules: MatchmakerRules,
    *,
    players: int = 2,
) -> list[Pick]:
    """The matches to start now on a 1v1 (``players`` 2) or individual 2v2 (4) ladder."""
    if players == 2:
        return pick_1v1(bots, met_today, rules)
    return pick_individual(bots, met_today, rules)
