"""Checks that a matching found on a sparse graph is what the complete graph would give.

For the hard and top criteria this is a proof, not a heuristic. Suppose every player is paired,
the bye went to the lowest eligible player (tier 1 is then optimal and fixes the parity of every
boundary), every score-group boundary is crossed by exactly as many pairs as its parity forces
(0 or 1, the minimum: tier 2 is optimal), and no pair skips a group. Then every matching that is
as good on tiers 1-2 crosses exactly the same boundaries, once each, and a pair crossing the
boundaries ``b..c`` has a squared score gap ``(d_b + ... + d_c)² >= d_b² + ... + d_c²``; ours
reaches that lower bound, so nothing does better on tier 3.

A pair that skips a group is *not* proof (two floats across adjacent groups can have a smaller
total squared gap than one across both: 1² + 2² < 3²), so such a pairing is refused here and the
groups it spans are widened, up to the complete graph. The lower tiers are then optimised within
the candidate window; the property tests in ``test_swiss_sparse`` check on random tournaments,
with our own and with foreign histories, that this gives the complete graph's pairing.
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
        for i, j in partner.items():
            if field.group[j] - field.group[i] > 1:
                problems.update(range(field.group[i], field.group[j] + 1))
    return problems
