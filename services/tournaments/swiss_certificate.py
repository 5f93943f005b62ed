"""Checks that a matching found on a sparse graph is what the complete graph would give.

For the hard and top criteria this is a proof, not a heuristic: if every player is paired, the
bye went to the lowest eligible player, and every score-group boundary is crossed by exactly as
many pairs as its parity forces (the minimum possible), then no matching of the complete graph
does better on tiers 1-3, and any complete-graph matching using an edge that skips a group is
strictly worse on tier 3. The lower tiers are then optimised within the candidate window; the
property test ``test_swiss_sparse`` checks on random tournaments that this gives the very same
pairing as the complete graph.
"""

from __future__ import annotations

from collections.abc import Mapping

from services.tournaments.swiss_field import Field


def crossings(field: Field, partner: Mapping[int, int]) -> list[int]:
    """How many pairs cross each boundary between score group ``b`` and ``b + 1``."""
    counts = [0] * max(field.group_count - 1, 0)
    for i, j in partner.items():
        if i < j:
            for b in range(field.group[i], field.group[j]):
                counts[b] += 1
    return counts


def parities(field: Field, bye: int | None) -> list[int]:
    """The fewest pairs that must cross each boundary: players above it, mod 2."""
    out = []
    for b in range(field.group_count - 1):
        above = field.starts[b + 1] - (1 if bye is not None and bye < field.starts[b + 1] else 0)
        out.append(above % 2)
    return out


def uncertified_groups(field: Field, partner: Mapping[int, int], bye: int | None) -> set[int]:
    """Score groups whose pairing is not proven optimal (empty set: certified)."""
    problems: set[int] = set()
    unpaired = [i for i in range(field.size) if i not in partner and i != bye]
    problems.update(field.group[i] for i in unpaired)
    if field.size % 2 == 1:
        wanted = field.lowest_bye_candidate()
        if wanted is not None and bye != wanted:
            problems.add(field.group[wanted])
            if bye is not None:
                problems.update(range(field.group[bye], field.group[wanted] + 1))
    if not unpaired:
        for b, (got, need) in enumerate(
            zip(crossings(field, partner), parities(field, bye), strict=True)
        ):
            if got > need:
                problems.update((b, b + 1))
    return problems
