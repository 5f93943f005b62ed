"""Independent parts of a Swiss field: score groups that no optimal pairing joins.

:mod:`services.tournaments.swiss.certificate` proves that a certified pairing crosses each
score-group boundary exactly as often as it must (its parity, or the surplus of players who
need the same side, C.3), and that every pairing as good on tiers 1-3 (no clash, the bye's
group, floats) crosses the same boundaries. A boundary that needs no crossing is therefore
crossed by no optimal pairing: the groups on either side of it can be paired apart, each part a
much smaller matching (a blossom matching costs far more than linear time in the field's size).

:func:`solve_parts` does that and returns the union only if the certificate accepts it. The
union is then exactly the pairing of the whole sparse graph: that graph's optimum is as good on
tiers 1-4 (the union is optimal among all pairings) so it crosses only the same boundaries,
so it is a union of part pairings, none better than each part's optimum: the two have the
same weight on every tier. Where the jitter tier separates every optimum (its 24 bits, up to
a few thousand players) they are the same pairing; in larger fields the weight layout leaves
the jitter only a few bits, ties remain, and the parts may pick another pairing of exactly
the same weight (10,000 players after one round: the same weight, 20,342,552 on the rank tier
both ways, and another choice among the tied ones). Otherwise (a part cannot be paired inside
itself, a clash, a boundary crossed more often than needed, the bye in another group) it
returns None and the caller solves the whole field as before.

Measured (10,000 players, ``bench tournaments``-style histories, this machine): round 2 4.9 s
by parts against 21.8 s whole (3 parts), round 3 3.8 against 15.6 s (5 parts), round 6 16.1
against 21.7 s (3 parts, one of 9,436). Round 1 is one group and one part: no change.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.tournaments.swiss.certificate import needed_crossings, uncertified_groups
from services.tournaments.swiss.field import Field
from services.tournaments.swiss.matcher import matching
from services.tournaments.swiss.weights import WeightLayout, bye_weight, pair_weights

MIN_PART = 64
"""Parts smaller than this are merged with the next: a matching that small costs nothing."""


def independent_parts(field: Field, min_part: int = MIN_PART) -> list[tuple[int, int]]:
    """Index ranges ``[lo, hi)`` of the field, split at every boundary that no optimal pairing
    crosses (:func:`needed_crossings` 0, the bye where the certificate wants it), parts under
    ``min_part`` players merged with the next (the last with the one before)."""
    bye_group = field.bye_group() if field.size % 2 else None
    needed = needed_crossings(field, bye_group)
    cuts = [field.starts[b + 1] for b, k in enumerate(needed) if k == 0]
    parts: list[tuple[int, int]] = []
    lo = 0
    for cut in [*cuts, field.size]:
        if cut - lo >= min_part or cut == field.size:
            parts.append((lo, cut))
            lo = cut
    if len(parts) > 1 and parts[-1][1] - parts[-1][0] < min_part:
        last = parts.pop()
        parts[-1] = (parts[-1][0], last[1])
    return parts


def _solve_part(
    field: Field, layout: WeightLayout, lo: int, hi: int, edges: Sequence[tuple[int, int]]
) -> tuple[dict[int, int], int | None, int]:
    """(partners, bye, weight) of the maximum-cardinality, maximum-weight matching of the
    players ``lo..hi-1`` over ``edges`` (inside that range), with bye edges if it is odd."""
    size = hi - lo
    weighted = [(i - lo, j - lo, w) for i, j, w in pair_weights(field, layout, edges)]
    if size % 2:
        eligible = sorted(i for i in field.bye_value if lo <= i < hi)
        weighted.extend((i - lo, size, bye_weight(field, layout, i)) for i in eligible)
    found, bye, weight = matching(size, weighted)
    return {i + lo: j + lo for i, j in found.items()}, (None if bye is None else bye + lo), weight


def solve_parts(
    field: Field,
    layout: WeightLayout,
    parts: Sequence[tuple[int, int]],
    edges: Sequence[tuple[int, int]],
) -> tuple[dict[int, int], int | None, int, int] | None:
    """(partners, bye, weight, edges used) of the field paired part by part, or None when the
    certificate refuses the union (then only the whole field's matching will do)."""
    partner: dict[int, int] = {}
    bye: int | None = None
    weight = used = 0
    cursor = 0
    ordered = sorted(edges)
    for lo, hi in parts:
        inside: list[tuple[int, int]] = []
        while cursor < len(ordered) and ordered[cursor][0] < hi:
            i, j = ordered[cursor]
            if j < hi:  # an edge that leaves the part: no optimal pairing uses it
                inside.append((i, j))
            cursor += 1
        found, part_bye, part_weight = _solve_part(field, layout, lo, hi, inside)
        partner.update(found)
        bye = part_bye if part_bye is not None else bye
        weight += part_weight
        used += len(inside)
    if uncertified_groups(field, partner, bye):
        return None
    return partner, bye, weight, used
