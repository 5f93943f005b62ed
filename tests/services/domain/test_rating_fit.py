"""The Bradley-Terry fit: checked against an independent plain-Python posterior, sparse pools
(undefeated, winless, lonely and absent bots) never crash and get wide intervals, LOS."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.domain.rating_fit import (
    ELO_PER_LOGIT,
    PRIOR_DRAWS,
    Z95,
    FitError,
    FittedRating,
    Game,
    GameTable,
    fit_ratings,
)
from services.domain.ratings import BotId


def flat(bots: list[BotId], rating: float = 1500.0) -> dict[BotId, float]:
    return dict.fromkeys(bots, rating)


def fit(games: list[Game], order: list[BotId] | None = None) -> dict[BotId, FittedRating]:
    table = GameTable.from_games(games)
    return fit_ratings(table, flat(list(table.bots)), order or [])


def log_posterior(games: list[Game], strength: dict[str, float], centre: float) -> float:
    """The model written out again, in plain Python and Elo units (test oracle): every bot
    has a virtual draw against an opponent fixed at ``centre``."""

    def p(diff: float) -> float:
        return 1 / (1 + 10 ** (-diff / 400))

    total = 0.0
    for g in games:
        side_a = [strength[str(b)] for b in g.side_a]
        side_b = [strength[str(b)] for b in g.side_b]
        diff = sum(side_a) / len(side_a) - sum(side_b) / len(side_b)
        total += g.score * math.log(p(diff)) + (1 - g.score) * math.log(1 - p(diff))
    for value in strength.values():
        q = p(value - centre)
        total += PRIOR_DRAWS * (0.5 * math.log(q) + 0.5 * math.log(1 - q))
    return total


def test_two_bots_match_an_independent_posterior() -> None:
    games = [Game(("a",), ("b",), 1.0)] * 7 + [Game(("a",), ("b",), 0.0)] * 3
    games += [Game(("b",), ("a",), 0.5)] * 2
    result = fit(games)
    a, b = result["a"], result["b"]
    assert a.rating + b.rating == pytest.approx(3000)  # anchored: the mean is the Elo mean
    # two bots: their expected scores against the virtual opponent average one half when it
    # sits at their mean, so here the fit's centre is the anchor. The estimate maximises the
    # oracle's posterior: any move lowers it
    best = log_posterior(games, {"a": a.rating, "b": b.rating}, 1500)
    for da, db in ((-1, 0), (1, 0), (0, -1), (0, 1), (1, -1), (-1, 1), (1, 1)):
        moved = {"a": a.rating + da, "b": b.rating + db}
        assert log_posterior(games, moved, 1500) < best
    # the interval comes from the curvature: d^2/dg^2 of the posterior along the gap g, where
    # r_a - mean = g / 2, so Var(r_a - mean) = 1 / (4 * curvature) (Elo units)
    h = 0.5
    around = [
        log_posterior(games, {"a": a.rating + d / 2, "b": b.rating - d / 2}, 1500)
        for d in (-h, 0.0, h)
    ]
    curvature = -(around[0] - 2 * around[1] + around[2]) / h**2
    half_width = Z95 * math.sqrt(1 / (4 * curvature))
    assert a.high - a.rating == pytest.approx(half_width, rel=1e-3)
    assert a.rating - a.low == pytest.approx(half_width, rel=1e-3)
    # 8 wins in 12 against 4 losses: a well above b, by less than the raw 400 log10(2) = 120
    assert 60 < a.rating - b.rating < 121
    assert a.games == b.games == 12


def test_two_equal_records_tie_at_the_anchor_with_los_one_half() -> None:
    games = [Game((1,), (2,), 1.0), Game((2,), (1,), 1.0)]
    result = fit_ratings(GameTable.from_games(games), {1: 1600.0, 2: 1400.0}, [1, 2])
    assert result[1].rating == pytest.approx(1500) == result[2].rating
    assert result[1].los_next == pytest.approx(0.5) and result[1].next_bot == 2
    assert result[2].los_next is None and result[2].next_bot is None


def test_los_follows_the_order_given_and_skips_bots_without_games() -> None:
    games = [Game(("x",), ("y",), 1.0)] * 30 + [Game(("x",), ("y",), 0.0)] * 10
    result = fit(games, order=["y", "x", "ghost"])
    assert set(result) == {"x", "y"}  # a bot with no games has no entry
    assert result["y"].next_bot == "x" and result["y"].los_next is not None
    assert result["y"].los_next < 0.01  # y is listed above x but lost 30 of 40
    assert result["x"].next_bot == "ghost" and result["x"].los_next is None


def test_no_games_no_entries() -> None:
    assert fit_ratings(GameTable.from_games([]), {}, ["a", "b"]) == {}


@pytest.mark.parametrize(
    ("games", "message"),
    [
        ([Game(("a",), ("b",), 0.7)], "score"),
        ([Game(("a",), ("b",), math.nan)], "score"),
        ([Game(("a",), ("b",), 1.0), Game(("a", "c"), ("b", "d"), 1.0)], "same number"),
        ([Game((), (), 1.0)], "same number"),
        ([Game(("a", "b"), ("b", "c"), 1.0)], "twice"),
    ],
)
def test_malformed_games_are_refused(games: list[Game], message: str) -> None:
    with pytest.raises(FitError, match=message):
        GameTable.from_games(games)


def test_a_bot_without_an_elo_rating_is_refused() -> None:
    table = GameTable.from_games([Game(("a",), ("b",), 1.0)])
    with pytest.raises(FitError, match="no Elo rating"):
        fit_ratings(table, {"a": 1500.0})


# --- sparse pools, as hypothesis draws them -------------------------------------------------

SCORES = st.sampled_from([0.0, 0.5, 1.0])


@st.composite
def pools(draw: st.DrawFn) -> tuple[int, list[Game], list[BotId]]:
    """Up to 9 bots (some never play), up to 25 games, one or two bots a side."""
    k = draw(st.sampled_from([1, 2]))
    bots = draw(st.integers(2 * k, 9))
    games = []
    for _ in range(draw(st.integers(0, 25))):
        seats = draw(st.permutations(range(bots)))[: 2 * k]
        games.append(Game(tuple(seats[:k]), tuple(seats[k:]), draw(SCORES)))
    order: list[BotId] = list(draw(st.permutations(range(bots))))
    return k, games, order


@settings(max_examples=150, deadline=None)
@given(pools(), st.floats(800, 2500))
def test_any_pool_fits_with_finite_wide_enough_intervals(
    pool: tuple[int, list[Game], list[BotId]], level: float
) -> None:
    k, games, order = pool
    table = GameTable.from_games(games)
    elo: dict[BotId, float] = {bot: level + 10 * int(bot) for bot in order}
    result = fit_ratings(table, elo, order)
    played = {b for g in games for b in (*g.side_a, *g.side_b)}
    assert set(result) == played
    if not played:
        return
    n = len(played)
    assert np.mean([r.rating for r in result.values()]) == pytest.approx(
        np.mean([elo[b] for b in played]), abs=1e-6
    )
    for bot, entry in result.items():
        assert all(map(math.isfinite, (entry.low, entry.rating, entry.high)))
        assert entry.low < entry.rating < entry.high
        # the information a bot's games and virtual draw carry is at most 1/4 each (per k^2):
        # Cauchy-Schwarz then bounds the variance of (r_i - mean) below, whatever the data
        information = 0.25 * (entry.games / k**2 + PRIOR_DRAWS)
        floor = Z95 * ELO_PER_LOGIT * (1 - 1 / n) / math.sqrt(information)
        assert entry.high - entry.rating >= floor * (1 - 1e-6)
        place = order.index(bot)
        below = order[place + 1] if place + 1 < len(order) else None
        assert entry.next_bot == below
        if below in played:
            assert entry.los_next is not None and 0.0 <= entry.los_next <= 1.0
        else:
            assert entry.los_next is None


@st.composite
def one_sided(draw: st.DrawFn) -> tuple[list[Game], int]:
    """1v1 games among up to 6 bots in which bot 0 wins (or loses) every game it plays."""
    games = []
    for _ in range(draw(st.integers(1, 20))):
        a, b = draw(st.permutations(range(6)))[:2]
        games.append(Game((a,), (b,), draw(SCORES)))
    for _ in range(draw(st.integers(1, 8))):
        games.append(Game((0,), (draw(st.integers(1, 5)),), 1.0))
    sign = draw(st.sampled_from([1, -1]))
    fixed = []
    for g in games:
        if 0 in (*g.side_a, *g.side_b):
            won = g.side_a == (0,)
            g = Game(g.side_a, g.side_b, 1.0 if won == (sign == 1) else 0.0)
        fixed.append(g)
    return fixed, sign


@settings(max_examples=100, deadline=None)
@given(one_sided())
def test_an_undefeated_bot_is_above_everyone_it_beat_and_winless_below(
    case: tuple[list[Game], int],
) -> None:
    # with at most one virtual draw, each win pulls harder than the prior can pull back
    games, sign = case
    result = fit(games)
    opponents = {b for g in games if 0 in (*g.side_a, *g.side_b) for b in (*g.side_a, *g.side_b)}
    for other in opponents - {0}:
        assert sign * (result[0].rating - result[other].rating) > 0
    # finite however lopsided: no further than 400 log10(2 * games) from the field
    assert abs(result[0].rating - 1500) < 400 * math.log10(2 * len(games)) + 400


@settings(max_examples=60, deadline=None)
@given(pools())
def test_the_fit_does_not_depend_on_labels_or_which_side_is_a(
    pool: tuple[int, list[Game], list[BotId]],
) -> None:
    _, games, _ = pool
    mirrored = [Game(g.side_b, g.side_a, 1.0 - g.score) for g in reversed(games)]
    first, second = fit(games), fit(mirrored)
    assert set(first) == set(second)
    for bot in first:
        assert second[bot].rating == pytest.approx(first[bot].rating, abs=1e-3)
        assert second[bot].high == pytest.approx(first[bot].high, abs=1e-3)


def test_single_precision_agrees_with_double_on_an_uneven_pool() -> None:
    """A house bot in every third game, newcomers with one game, one undefeated bot."""
    rng = np.random.default_rng(5)
    n = 300
    strength = rng.normal(0, 250, n)
    games = []
    for g in range(6000):
        a, b = (0, int(rng.integers(1, n))) if g % 3 == 0 else rng.choice(n - 20, 2, False)
        p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
        games.append(Game((int(a),), (int(b),), float(rng.random() < p)))
    games += [Game((n - 20 + j,), (int(rng.integers(0, n - 20)),), 0.0) for j in range(19)]
    games += [Game((n - 1,), (j,), 1.0) for j in range(1, 5)]
    table = GameTable.from_games(games)
    elo = {b: 1500.0 for b in table.bots}
    order = sorted(table.bots, key=lambda b: -float(strength[int(b)]))
    double = fit_ratings(table, elo, order, single_from=10**9)
    single = fit_ratings(table, elo, order, single_from=0)
    for bot, entry in double.items():
        assert single[bot].rating == entry.rating  # the estimate is always double precision
        assert single[bot].low == pytest.approx(entry.low, abs=0.05)
        assert single[bot].high == pytest.approx(entry.high, abs=0.05)
        assert single[bot].los_next == pytest.approx(entry.los_next, abs=1e-4)
