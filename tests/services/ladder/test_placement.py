"""What a ladder promises a bot in any pool (services/ladder/placement.py): the pair limit that
scales to a small pool, the state that says a bot needs more opponents and how many, the
estimate that holds still once a bot has played 10 matches, and linked owners kept apart."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.ladder.links import owner_pair
from services.ladder.placement import (
    BAND,
    Candidate,
    bound,
    first_estimates,
    held,
    pair_limit,
    raw_estimate,
    standings,
)


@given(
    first=st.integers(min_value=11, max_value=5000),
    course=st.lists(
        st.tuples(st.integers(min_value=10, max_value=20000), st.integers(0, 10**6)), max_size=50
    ),
)
def test_once_kept_the_estimate_moves_by_at_most_the_band(
    first: int, course: list[tuple[int, int]]
) -> None:
    """Whatever a bot's later matches show, the figure shown stays within half and twice its
    value at the 10th match, or the bot is shown as needing opponents (None)."""
    for matches, raw in course:
        shown = held(raw, matches, first)
        if shown is None:
            assert matches >= first * BAND
        else:
            assert first / BAND <= shown <= first * BAND or shown == matches + 1
            assert shown > matches


def test_the_pair_limit_scales_to_the_pool() -> None:
    assert pair_limit(46, 100, 2, per_day=3, cap=16) == 3  # a large pool: as before
    assert pair_limit(46, 10, 2, per_day=3, cap=16) == 5  # ten opponents: five meetings each
    assert pair_limit(46, 3, 2, per_day=3, cap=16) == 16  # three: the most, 16
    assert pair_limit(184, 12, 4, per_day=3, cap=16) == 16  # 2v2: three others at each table


def candidates(*owners: int, matches: int = 0, halfwidth: float | None = None) -> list[Candidate]:
    return [Candidate(k + 1, owner, matches, halfwidth) for k, owner in enumerate(owners)]


def test_a_lone_bot_and_a_pool_of_too_few_owners_need_opponents() -> None:
    (alone,) = standings(candidates(1), {}, players=2, per_day=3, cap=16)
    assert alone.state == "needs_opponents" and alone.opponents == 0
    assert alone.needed == 3  # 46 matches, 16 meetings a pair: three bots of other owners
    three = standings(candidates(1, 1, 2, 3), {}, players=4, per_day=3, cap=16)
    assert {s.state for s in three} == {"needs_opponents"}  # a table seats four owners
    assert [s.opponents for s in three] == [2, 2, 3, 3]
    four = standings(candidates(1, 2, 3, 4), {}, players=4, per_day=3, cap=16)
    assert {s.state for s in four} == {"waiting"}


def test_a_bot_that_met_every_opponent_as_often_as_allowed_needs_opponents() -> None:
    pool = candidates(1, 2, 3, matches=20, halfwidth=180.0)
    found = standings(pool, {}, players=2, per_day=3, cap=16)
    assert [s.state for s in found] == ["placing"] * 3
    limit = found[0].pair_limit
    assert limit == 16  # two opponents each: the most meetings
    met = {(1, 2): limit, (1, 3): limit}
    found = standings(pool, met, players=2, per_day=3, cap=16)
    assert found[0].state == "needs_opponents"
    assert found[0].opponents == 2 and found[0].needed is not None and found[0].needed > 2
    assert found[1].state == "placing"  # bots 2 and 3 may still meet each other


def test_linked_owners_are_no_opponents() -> None:
    pool = candidates(1, 2, 3, 4)
    linked = frozenset({owner_pair(1, 2)})
    found = standings(pool, {}, players=2, per_day=3, cap=16, linked=linked)
    assert [s.opponents for s in found] == [2, 2, 3, 3]


def test_the_first_estimate_is_the_information_bound() -> None:
    assert raw_estimate(0, None, 2) == bound(2) == 46
    assert bound(4) > 3 * bound(2)
    assert raw_estimate(20, 200.0, 2) == 80  # the interval narrows as 1 / sqrt(matches)
    assert raw_estimate(20, 90.0, 2) == 20  # placed


def test_the_estimate_counts_the_matches_played_since_the_fit() -> None:
    """An interval fitted at 20 rated matches (+-200: four times the information needed, 60
    more) is not extrapolated over 30 ladder matches: 10 of them came after the fit."""
    assert raw_estimate(30, 200.0, 2, fit_games=20, rated_games=30) == 30 + 50
    assert raw_estimate(30, 200.0, 2) == 30 + 90  # without the counts: as if fitted now


def test_before_its_first_fit_a_bot_may_meet_each_opponent_for_the_bound_only() -> None:
    """A pool that plays faster than the fit runs (every 30 s) does not spend every meeting
    of the day before its bots are fitted: until then the limit spreads the bound (46)."""
    pool = candidates(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, matches=120)
    (first, *_) = standings(pool, {}, players=2, per_day=3, cap=16)
    assert first.pair_limit == 6  # ceil(46 / 9), not ceil(121 / 9)


def test_the_first_estimate_is_kept_from_a_fit_of_ten_matches_at_least() -> None:
    """The house bots' fit of two warm-up games is no yardstick for the band."""
    young = Candidate(1, 1, 14, 336.0, fit_games=2, rated_games=16)
    grown = Candidate(2, 2, 14, 180.0, fit_games=12, rated_games=14)
    found = standings([young, grown], {}, players=2, per_day=3, cap=16)
    assert first_estimates([young, grown], found) == {2: found[1].raw_about}
