"""Which rounds a tournament page lists: all of a small event's, one of a large event's."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.web.views.paging import (
    CROSS_CELLS_PER_PART,
    CROSS_IN_FULL,
    PAIRINGS_IN_FULL,
    NoSuchRound,
    cross_parts,
    round_shown,
)
from tests.services.web.conftest import WebData


def test_a_small_event_lists_every_round_unless_one_is_asked_for() -> None:
    assert round_shown([1, 2, 3], 6, None) is None
    assert round_shown([1, 2, 3], PAIRINGS_IN_FULL, None) is None
    assert round_shown([1, 2, 3], 6, 2) == 2


def test_a_large_event_lists_the_latest_round_or_the_one_asked_for() -> None:
    assert round_shown([1, 2, 3], PAIRINGS_IN_FULL + 1, None) == 3
    assert round_shown([1, 2, 3], PAIRINGS_IN_FULL + 1, 1) == 1
    assert round_shown([], PAIRINGS_IN_FULL + 1, None) is None


@given(st.integers(0, 2000))
def test_a_large_crosstable_is_cut_into_parts_of_whole_rows(entrants: int) -> None:
    parts = cross_parts(entrants)
    if entrants <= CROSS_IN_FULL:
        assert parts == []
        return
    rows = [r for first, end in parts for r in range(first, end)]
    assert rows == list(range(entrants))  # every row once, in order
    # each part's cells stay within the budget (a single row may pass it alone)
    assert all(
        (end - first) * entrants <= max(CROSS_CELLS_PER_PART, entrants) for first, end in parts
    )


@given(st.lists(st.integers(1, 50), unique=True), st.integers(0, 500), st.integers(1, 60))
def test_a_round_asked_for_is_shown_or_refused(
    numbers: list[int], pairings: int, asked: int
) -> None:
    numbers.sort()
    if asked in numbers:
        assert round_shown(numbers, pairings, asked) == asked
    else:
        with pytest.raises(NoSuchRound):
            round_shown(numbers, pairings, asked)


@pytest.mark.anyio
async def test_the_round_of_the_address(client: httpx.AsyncClient, web_data: WebData) -> None:
    swiss = web_data.seeded.swiss_id
    whole = (await client.get(f"/tournaments/{swiss}")).text
    assert whole.count("<h3>Round ") == 3 and "round-picker" not in whole
    one = (await client.get(f"/tournaments/{swiss}?round=2")).text
    assert one.count("<h3>Round ") == 1 and "<h3>Round 2 " in one
    assert 'aria-current="page">Round 2</a>' in one
    for query, status in [
        ("round=9", 404),
        ("round=0", 400),
        ("round=abc", 400),
        ("round=1e9", 400),
    ]:
        response = await client.get(f"/tournaments/{swiss}?{query}")
        assert response.status_code == status, query
        assert response.headers["content-type"].startswith("text/html"), query
