"""Checks that a matching found on a sparse graph is what the complete graph would give.

For the hard and top criteria this is a proof, not a heuristic. Every boundary between score
groups has a number of crossings that no pairing can go below (:func:`needed_crossings`, for
the pairings that are at their best on tiers 1-2: no clash, and the bye in the lowest score
group with an eligible player, ``gL``):

* its parity: the players above it, the bye player set aside when ``gL`` is above it, are
  odd or even in number whoever in ``gL`` gets the bye;
* its *surplus*: a player with an absolute side preference (and no topscorer's exemption)
  meets only players without that same preference, so if, above the boundary, ``a`` players
  must be mano and only ``b`` must not be and ``f`` are free (any other preference, a
  topscorer, or the bye's empty seat when ``gL`` is above), at least ``a - b - f`` of them
  cross it; the same below it, and for the other side. This is how C.3 forces floats: two
  players at the top who both must not be mano, say, cross the boundary below them twice.

The lower bound is the larger of the two, raised by one if its parity is not the boundary's.
Suppose every player is paired, no pair is a clash, the bye went to ``gL``, every boundary is
crossed exactly as often as its lower bound (tier 3, floats, is then optimal) and no pair skips
a group. Then every matching that is as good on tiers 1-3 crosses every boundary exactly as
often, and a pair crossing the boundaries ``b..c`` has a squared score gap
``(d_b + ... + d_c)² >= d_b² + ... + d_c²``; ours reaches the lower bound ``sum(n_b d_b²)``,
so nothing does better on tier 4.

A pair that skips a group is *not* proof (two floats across adjacent groups can have a smaller
total squared gap than one across both: 1² + 2² < 3²), so such a pairing is refused here and the
groups it spans are widened, up to the complete graph; so is a clash (none may be avoidable)
and a boundary crossed more often than its bound (rematches can force that). The lower tiers
are then optimised within the candidate window; the property tests in ``tests/services/tournaments/swiss/test_sparse.py``
check on random tournaments, with our own and with foreign histories, that this gives the
complete graph's pairing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from services.tournaments.swiss.field import Field


def crossings(field: Field, partner: Mapping[int, int]) -> list[int]:
    """How many pairs cross each boundary between score group ``b`` and ``b + 1``."""
    counts = [0] * max(field.group_count - 1, 0)
    for i, j in partner.items():
        if i < j:
            for b in range(field.group[i], field.group[j]):
                counts[b] += 1
    return counts


@dataclass(frozen=True, slots=True)
class Sides:
    """The players on one side of a boundary by the side C.3 ties them to (the bye's empty
    seat, when the bye is on this side, counts as a free player: anyone may take it)."""

    must: int  # must be mano
    must_not: int  # must not be mano
    free: int

    @property
    def surplus(self) -> int:
        """Players of one absolute side that the other side and the free ones cannot take."""
        return abs(self.must - self.must_not) - self.free

    @property
    def surplus_side(self) -> int:
        """The side in surplus (+1 must be mano, -1 must not), 0 when neither is."""
        return 0 if self.surplus <= 0 else (1 if self.must > self.must_not else -1)


def boundary_sides(field: Field, bye_group: int | None) -> list[tuple[Sides, Sides]]:
    """For each boundary between score groups ``b`` and ``b + 1``: the players above it and
    below it by C.3 side, with the bye in ``bye_group`` (None: an even field)."""
    odd = field.size % 2 == 1 and bye_group is not None
    must, must_not, free = [0], [0], [0]  # prefix counts
    for i in range(field.size):
        side = field.c3_side(i)
        must.append(must[-1] + (side > 0))
        must_not.append(must_not[-1] + (side < 0))
        free.append(free[-1] + (side == 0))
    n = field.size
    out = []
    for b in range(field.group_count - 1):
        cut = field.starts[b + 1]
        # the bye is a pair with an empty seat, a free partner, in the bye's group
        seat_above = int(odd and bye_group is not None and bye_group <= b)
        seat_below = int(odd) - seat_above
        above = Sides(must[cut], must_not[cut], free[cut] + seat_above)
        below = Sides(
            must[n] - must[cut], must_not[n] - must_not[cut], free[n] - free[cut] + seat_below
        )
        out.append((above, below))
    return out


def needed_crossings(field: Field, bye_group: int | None) -> list[int]:
    """The fewest pairs that cross each boundary in any pairing with no clash and the bye in
    ``bye_group`` (None: an even field): the parity, or the surplus of one absolute side."""
    out = []
    for above, below in boundary_sides(field, bye_group):
        parity = (above.must + above.must_not + above.free) % 2
        surplus = max(0, above.surplus, below.surplus)
        out.append(max(parity, surplus + (surplus - parity) % 2))
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
            zip(crossings(field, partner), needed_crossings(field, bye_group), strict=True)
        ):
            if got > need:
                problems.update((b, b + 1))
        for i, j in partner.items():
            if field.group[j] - field.group[i] > 1:
                problems.update(range(field.group[i], field.group[j] + 1))
    return problems


def forced_clash(field: Field) -> bool:
    """Whether every pairing breaks C.3 somewhere (or leaves a player out): more players of one
    absolute side than the other side, the free players and the bye's seat can take. The
    certificate accepts no such pairing, so only the complete graph will do."""
    sides = [field.c3_side(i) for i in range(field.size)]
    whole = Sides(sides.count(1), sides.count(-1), sides.count(0) + field.size % 2)
    return whole.surplus > 0


def c3_forces_floats(field: Field) -> bool:
    """Whether C.3 forces more than one pair across some boundary (then the sparse graph's few
    cross edges rarely hold the surplus side's legal partners)."""
    bye_group = field.bye_group() if field.size % 2 else None
    return any(k > 1 for k in needed_crossings(field, bye_group))


def has_clash(field: Field, partner: Mapping[int, int], bye: int | None) -> bool:
    """Whether a player is left unpaired or a pair breaks C.3: the candidate graph lacked the
    legal partners that C.3 leaves (see :func:`services.tournaments.swiss.graph.sparse_edges`)."""
    if len(partner) + (bye is not None) < field.size:
        return True
    return any(i < j and field.clash(i, j) for i, j in partner.items())
