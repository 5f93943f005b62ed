"""Checks that a matching found on a sparse graph is what the complete graph would give.

For the hard and top criteria this is a proof, not a heuristic. Suppose every player is paired,
no pair is a clash (tier 1, FIDE's C.3, is then at its best), the bye went to the lowest score
group with an eligible player (tier 2 is then at its best, and that group fixes the parity of
every boundary: the number of players above it, the bye player set aside, is even or odd
whoever in the group gets the bye), every score-group boundary is crossed by exactly as many
pairs as its parity forces (0 or 1, the minimum: tier 3 is optimal), and no pair skips a group.
Then every matching that is as good on tiers 1-3 crosses exactly the same boundaries, once
each, and a pair crossing the boundaries ``b..c`` has a squared score gap
``(d_b + ... + d_c)² >= d_b² + ... + d_c²``; ours reaches that lower bound, so nothing does
better on tier 4.

A pair that skips a group is *not* proof (two floats across adjacent groups can have a smaller
total squared gap than one across both: 1² + 2² < 3²), so such a pairing is refused here and the
groups it spans are widened, up to the complete graph. So is a clash, and a boundary crossed
more often than its parity: C.3 can force extra floats (a group whose players all need the same
side must float some of them), and no bound here says how many; the groups concerned are
widened, which for the small groups where that happens costs little. The lower tiers are then
optimised within the candidate window; the property tests in ``test_swiss_sparse`` check on
random tournaments, with our own and with foreign histories, that this gives the complete
graph's pairing.
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


def parities(field: Field, bye_group: int | None) -> list[int]:
    """The fewest pairs that must cross each boundary: players above it, less the bye player
    when the bye comes from a group above it, mod 2."""
    out = []
    for b in range(field.group_count - 1):
        above = field.starts[b + 1] - (1 if bye_group is not None and bye_group <= b else 0)
        out.append(above % 2)
    return out


def uncertified_groups(field: Field, partner: Mapping[int, int], bye: int | None) -> set[int]:
    """Score groups whose pairing is not proven optimal (empty set: certified)."""
    problems: set[int] = set()
    unpaired = [i for i in range(field.size) if i not in partner and i != bye]
    problems.update(field.group[i] for i in unpaired)
    for i, j in partner.items():
        if i < j and field.clash(i, j):
            problems.update(range(field.group[i], field.group[j] + 1))
    wanted = field.bye_group() if field.size % 2 else None
    if wanted is not None and (bye is None or field.group[bye] != wanted):
        problems.add(wanted)
        if bye is not None:
            problems.update(range(field.group[bye], wanted + 1))
    if not unpaired:
        bye_group = None if bye is None else field.group[bye]
        for b, (got, need) in enumerate(
            zip(crossings(field, partner), parities(field, bye_group), strict=True)
        ):
            if got > need:
                problems.update((b, b + 1))
        for i, j in partner.items():
            if field.group[j] - field.group[i] > 1:
                problems.update(range(field.group[i], field.group[j] + 1))
    return problems
