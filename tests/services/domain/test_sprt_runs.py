"""The platform's SPRT state on plain data (services/domain/sprt_runs.py): the outcome agrees with
the local test fed the same pairs, the number of pairs in play never exceeds the concurrency
or the game limit, and the LLR's path ends where the test stands."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.sprt.stats import Sprt, pairs_if_all_won
from services.domain.sprt_runs import (
    SprtParams,
    counts_of,
    history,
    outcome,
    pairs_to_start,
    sprt_of,
)

PARAMS = SprtParams(elo0=0, elo1=50, alpha=0.05, beta=0.05, max_games=400, concurrency=2)
scores_lists = st.lists(st.integers(min_value=0, max_value=2), max_size=300)


@given(scores_lists)
def test_the_outcome_is_the_local_tests_verdict_on_the_same_pairs(scores: list[int]) -> None:
    local = Sprt(elo0=PARAMS.elo0, elo1=PARAMS.elo1, alpha=PARAMS.alpha, beta=PARAMS.beta)
    for score in scores:
        local.add(score)
    stats = sprt_of(PARAMS, scores)
    assert stats.count_tuple == counts_of(scores) == local.count_tuple
    assert stats.llr == local.llr and stats.wins == local.wins
    expected = local.decision
    if expected == "continue":
        assert outcome(PARAMS, scores) == (
            "inconclusive" if len(scores) >= PARAMS.max_pairs else None
        )
    else:
        assert outcome(PARAMS, scores) == expected


def test_h1_comes_exactly_when_the_all_won_bound_says() -> None:
    needed = pairs_if_all_won(0, 50, 0.05, 0.05)
    assert outcome(PARAMS, [2] * (needed - 1)) is None
    assert outcome(PARAMS, [2] * needed) == "H1"
    assert outcome(PARAMS, [0] * needed) == "H0"


@given(
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=2, max_value=60),
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=8),
)
def test_pairs_in_play_stay_within_concurrency_and_the_game_limit(
    concurrency: int, max_games: int, started: int, open_pairs: int
) -> None:
    params = SprtParams(
        elo0=0, elo1=10, alpha=0.05, beta=0.05, max_games=max_games, concurrency=concurrency
    )
    started = min(started, params.max_pairs)
    new = pairs_to_start(params, started=started, open_pairs=open_pairs)
    assert new >= 0
    assert open_pairs + new <= max(concurrency, open_pairs)
    assert started + new <= params.max_pairs
    if open_pairs < concurrency and started < params.max_pairs:
        assert new >= 1  # a test below its concurrency with pairs left always goes on


@given(scores_lists, st.integers(min_value=1, max_value=50))
def test_the_path_starts_at_zero_and_ends_at_the_current_llr(
    scores: list[int], points: int
) -> None:
    path = history(PARAMS, scores, points)
    assert path[0] == (0, 0.0)
    assert path[-1] == (2 * len(scores), sprt_of(PARAMS, scores).llr)
    if len(scores) <= points:
        assert len(path) == len(scores) + 1  # every pair
    else:
        assert len(path) <= points + 1
    games = [g for g, _ in path]
    assert games == sorted(set(games))


def test_the_apis_path_is_computed_once_per_test_state() -> None:
    from services.api.routes.sprt_tests import llr_path

    scores = (2, 1, 2, 0, 2)
    first = llr_path(PARAMS, scores)
    assert llr_path(PARAMS, scores) is first  # a repeated read is a lookup
    assert [games for games, _ in first] == [0, 2, 4, 6, 8, 10]
    longer = llr_path(PARAMS, (*scores, 2))  # one more pair: a new state, a new path
    assert longer[:-1] == first and longer[-1][0] == 12
