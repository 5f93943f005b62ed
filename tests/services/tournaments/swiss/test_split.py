"""Pairing a Swiss field part by part gives exactly the whole field's pairing, or declines."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournaments.swiss.certificate import needed_crossings
from services.tournaments.swiss.graph import DEFAULT_WINDOW, sparse_edges
from services.tournaments.swiss.pairing import match_field, solve
from services.tournaments.swiss.split import independent_parts, solve_parts
from services.tournaments.swiss.weights import make_layout
from tests.services.tournaments.swiss.test_sparse import FOREIGN, field_after


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 120), st.integers(1, 8), st.integers(0, 100_000), FOREIGN, st.integers(1, 12))
def test_part_by_part_is_the_whole_fields_pairing_whenever_it_answers(
    size: int, rounds: int, seed: int, foreign: bool, min_part: int
) -> None:
    field = field_after(size, rounds, seed, foreign)
    parts = independent_parts(field, min_part)
    # the parts tile the field, and cut only at group boundaries that need no crossing
    assert parts[0][0] == 0 and parts[-1][1] == field.size
    assert all(a[1] == b[0] for a, b in itertools.pairwise(parts))
    bye_group = field.bye_group() if field.size % 2 else None
    zero = {field.starts[b + 1] for b, p in enumerate(needed_crossings(field, bye_group)) if p == 0}
    assert all(hi in zero for _, hi in parts[:-1])
    layout = make_layout(field)
    groups = field.group_count
    edges = sparse_edges(field, [DEFAULT_WINDOW] * groups, [1] * groups)
    split = solve_parts(field, layout, parts, edges)
    if split is None:
        return
    partner, split_bye, weight, _ = split
    whole = solve(field, layout, edges)
    assert partner == whole.partner
    assert split_bye == whole.bye
    assert weight == whole.weight
    # and match_field, which tries the parts first, still gives the complete graph's pairing
    assert match_field(field).partner == match_field(field, sparse=False).partner


def test_real_sized_fields_fall_apart_and_are_paired_by_parts() -> None:
    """A boundary of parity 0 (an even number of players above it) splits the field: after
    one round that is one chance in two per boundary; after four, most fields have several."""
    split_fields = 0
    for seed in range(6):
        field = field_after(600, 1 + seed % 4, seed, False)
        parts = independent_parts(field)
        if len(parts) < 2:
            continue
        split_fields += 1
        layout = make_layout(field)
        groups = field.group_count
        edges = sparse_edges(field, [DEFAULT_WINDOW] * groups, [1] * groups)
        split = solve_parts(field, layout, parts, edges)
        assert split is not None, parts
        whole = solve(field, layout, edges)
        assert (split[0], split[1], split[2]) == (whole.partner, whole.bye, whole.weight)
        assert split[3] < whole.edges  # the edges across the cuts were never needed
        by_parts, whole_field = match_field(field), match_field(field, split=False)
        assert (by_parts.partner, by_parts.bye) == (whole_field.partner, whole_field.bye)
    assert split_fields >= 3
