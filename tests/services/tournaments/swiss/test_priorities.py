"""The top of FIDE's order, checked by brute force on small fields: first no clash (C.3),
then the bye from the lowest score group that can take it, then the fewest floats."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournaments.swiss.field import Field
from services.tournaments.swiss.pairing import match_field
from tests.services.tournaments.swiss.test_sparse import FOREIGN, field_after

BYE = -1


def pairings(nodes: list[int], field: Field) -> Iterator[list[tuple[int, int]]]:
    """Every rematch-free pairing of ``nodes`` (``BYE`` pairs with an eligible player)."""
    if not nodes:
        yield []
        return
    first, rest = nodes[0], nodes[1:]
    for k, other in enumerate(rest):
        if BYE in (first, other):
            if max(first, other) not in field.bye_value:
                continue
        elif field.played(first, other):
            continue
        for tail in pairings(rest[:k] + rest[k + 1 :], field):
            yield [(first, other), *tail]


def top_tiers(field: Field, pairs: list[tuple[int, int]]) -> tuple[int, int, int]:
    """(clashes, the bye's group counted from the bottom, floats): smaller is better."""
    clashes = floats = 0
    bye_rank = 0
    for i, j in pairs:
        if BYE in (i, j):
            bye_rank = field.group_count - 1 - field.group[max(i, j)]
        else:
            clashes += field.clash(i, j)
            floats += abs(field.group[i] - field.group[j])
    return clashes, bye_rank, floats


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 10), st.integers(1, 5), st.integers(0, 100_000), FOREIGN)
def test_no_clash_then_the_lowest_bye_then_the_fewest_floats(
    size: int, rounds: int, seed: int, foreign: bool
) -> None:
    field = field_after(size, rounds, seed, foreign)
    nodes = list(range(field.size)) + ([BYE] if field.size % 2 else [])
    best = min((top_tiers(field, p) for p in pairings(nodes, field)), default=None)
    if best is None:
        return  # no rematch-free pairing at all
    for found in (match_field(field, sparse=False), match_field(field)):
        pairs = [(i, j) for i, j in found.partner.items() if i < j]
        if found.bye is not None:
            pairs.append((found.bye, BYE))
        assert len(pairs) * 2 == len(nodes)
        assert top_tiers(field, pairs) == best
