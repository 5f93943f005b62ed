"""Elo: hand-checked deltas, K and provisional rules, zero-sum, exact recomputation."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.domain.ratings import (
    START,
    RatedMatch,
    apply_match,
    compute_ratings,
    expected_score,
    k_factor,
)


def one(a: str, b: str, result: str = "a") -> RatedMatch:
    return RatedMatch("1v1", (a,), (b,), result)  # type: ignore[arg-type]


def test_first_match_between_newcomers() -> None:
    ratings = compute_ratings([one("x", "y")])["1v1"]
    # E = 0.5, K = 40: 40 * (1 - 0.5) = 20
    assert (ratings["x"].rating, ratings["y"].rating) == (START + 20, START - 20)
    assert ratings["x"].provisional and ratings["x"].matches == 1
    assert ratings["x"].history[0].before == START and ratings["x"].history[0].delta == 20


def test_expected_score_is_logistic_on_a_400_scale() -> None:
    assert expected_score(Fraction(0)) == 5000
    assert expected_score(Fraction(400)) == 9091  # 1 / (1 + 10**-1) = 0.90909...
    assert expected_score(Fraction(-400)) == 909


def test_k_drops_after_thirty_matches_and_provisional_ends_at_ten() -> None:
    assert k_factor(0) == 40 and k_factor(29) == 40 and k_factor(30) == 20
    ratings = compute_ratings([one("x", f"o{k}", "draw") for k in range(10)])["1v1"]
    assert not ratings["x"].provisional
    assert ratings["o0"].provisional


def test_mixed_k_uses_one_match_k_so_the_match_is_zero_sum() -> None:
    veteran = [one("v", f"o{k}", "draw") for k in range(30)]  # v stays at 1500, K now 20
    ratings = compute_ratings([*veteran, one("v", "new")])["1v1"]
    assert ratings["v"].history[-1].before == START  # draws between equals moved nothing
    # match K = (20 + 40) / 2 = 30 -> 30 * (1 - 0.5) = 15 each way
    assert ratings["v"].history[-1].delta == 15 and ratings["new"].history[-1].delta == -15
    assert (ratings["v"].rating, ratings["new"].rating) == (START + 15, START - 15)


def test_individual_two_v_two_rates_pairs_by_their_mean() -> None:
    sequence = [
        RatedMatch("2v2-individual", ("a", "b"), ("c", "d"), "a"),  # equal pairs: +-20
        RatedMatch("2v2-individual", ("a", "c"), ("b", "d"), "a"),  # means 1500 v 1500: +-20
        RatedMatch("2v2-individual", ("a", "b"), ("c", "e"), "draw"),  # means 1520 v 1500
    ]
    ratings = compute_ratings(sequence)
    team = ratings["2v2-individual"]
    # after two matches: a 1540, b 1500, c 1500, d 1460. Third: diff 20, E = 0.52875 -> 5288,
    # K 40: 40 * (0.5 - 0.5288) = -1.15 -> -1 for a and b, +1 for c and e.
    assert [team[x].rating for x in "abcde"] == [1539, 1499, 1501, 1460, 1501]
    assert "1v1" not in ratings  # modes are rated separately


def test_team_two_v_two_rates_the_one_bot_that_plays_both_seats() -> None:
    # the platform's team 2v2: one bot fills both seats of its side, so a side is one bot
    ratings = compute_ratings(
        [RatedMatch("2v2", ("t1",), ("t2",), "a"), RatedMatch("2v2", ("t1",), ("t3",), "b")]
    )
    team = ratings["2v2"]
    assert team["t2"].rating == START - 20 and team["t1"].history[0].delta == 20
    assert team["t1"].rating + team["t2"].rating + team["t3"].rating == 3 * START
    assert team["t3"].rating > START
    assert set(ratings) == {"2v2"}


def test_bad_team_sizes_are_rejected() -> None:
    with pytest.raises(ValueError):
        compute_ratings([RatedMatch("2v2-individual", ("a",), ("b", "c"), "a")])
    with pytest.raises(ValueError):
        compute_ratings([RatedMatch("2v2", ("a", "b"), ("c", "d"), "a")])
    with pytest.raises(ValueError):
        compute_ratings([RatedMatch("1v1", ("a",), ("a",), "a")])


matches = st.lists(
    st.builds(
        lambda mode, bots, result: RatedMatch(
            mode,
            tuple(bots[: 2 if mode == "2v2-individual" else 1]),
            tuple(bots[2 : 4 if mode == "2v2-individual" else 3]),
            result,
        ),
        st.sampled_from(["1v1", "2v2", "2v2-individual"]),
        st.permutations([f"bot{k}" for k in range(6)]),
        st.sampled_from(["a", "b", "draw"]),
    ),
    max_size=80,
)


@settings(max_examples=60, deadline=None)
@given(sequence=matches)
def test_zero_sum_and_exact_recompute(sequence: list[RatedMatch]) -> None:
    incremental: dict = {}  # type: ignore[type-arg]
    for index, match in enumerate(sequence):
        before = {b: incremental.get(match.mode, {}).get(b) for b in (*match.team_a, *match.team_b)}
        incremental = apply_match(incremental, match, index)
        table = incremental[match.mode]
        changes = [
            table[b].rating - (before[b].rating if before[b] else START)
            for b in (*match.team_a, *match.team_b)
        ]
        assert sum(changes) == 0
        assert len(set(changes[: len(match.team_a)])) == 1  # teammates move together
    assert compute_ratings(sequence) == incremental
    assert compute_ratings(sequence) == compute_ratings(list(sequence))
