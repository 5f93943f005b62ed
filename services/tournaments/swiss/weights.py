"""The Swiss edge weight: priority-ordered criteria packed into one integer.

Every criterion ("tier") gives each edge a non-negative value up to a bound (bigger is better).
A tier's multiplier exceeds the largest total that all lower tiers can add up over a whole
matching (``slots`` edges), so a maximum-weight matching optimises the tiers lexicographically:

====  ==============  =======================================================================
tier  name            value of an edge (i above j in pairing order)
====  ==============  =======================================================================
1     clash           1, or 0 when both players have the same absolute side preference and
                      neither is a topscorer (FIDE Dutch C.3, absolute there)
2     bye             bye edge: the score group of the player + 1 (the lowest group with an
                      eligible player is best; who in it is decided by the tiers below)
3     floats          (G-1) - group distance: a player floated across two groups counts twice
4     score_gaps      Dmax² - (points_i - points_j)² (half points)
5     repeat_floats   2 - players floated now who also floated in the previous round (the
                      bye is a float: a bye edge counts its player)
6     mano            3 - the strength of the preference refused when both want the same
                      side (mild 1, strong 2, absolute 3; :mod:`swiss_mano`), else 3
7     rank            CAP - min(CAP, Dutch distance²): same group (pos_j - pos_i - size//2)²,
                      across groups (size_i-1-pos_i)² + pos_j² (float the lowest down and
                      the highest up), bye (size-1-pos)² (the lowest placed); squared so that
                      ties are rare and the optimum is local
8     jitter          a fixed hash of the two initial ranks: makes the optimum unique
====  ==============  =======================================================================

A bye edge counts no float and no score gap: the bye tier has fixed its group, and every
candidate of that group would count the same. FIDE pairs the bye the same way: its score is
the lowest for which the absolute criteria can be met, and the quality criteria, bracket by
bracket, choose its player (so the lowest-placed player only when nothing else differs).

Rematches are not edges at all (hard). Cardinality is maximised first by the matcher
(``max_cardinality=True``), so every player is paired whenever that is possible.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from services.tournaments.swiss.field import Field
from services.tournaments.swiss.mano import ABSOLUTE

TIER_NAMES = ("clash", "bye", "floats", "score_gaps", "repeat_floats", "mano", "rank", "jitter")
MAX_WEIGHT_BITS = 112  # rustworkx computes in i128; stay well clear of overflow
MAX_JITTER_BITS = 24
RANK_CAP = 4096  # squared rank distances are exact up to 64 places, then all equally bad
_MASK64 = (1 << 64) - 1


class PairingTooLarge(ValueError):
    """The tournament is too large for the weight layout to fit in 112 bits."""


@dataclass(frozen=True, slots=True)
class WeightLayout:
    bounds: tuple[int, ...]
    multipliers: tuple[int, ...]
    jitter_bits: int

    def pack(self, values: tuple[int, ...]) -> int:
        return sum(v * m for v, m in zip(values, self.multipliers, strict=True))

    def unpack(self, weight: int) -> tuple[int, ...]:
        """Split the total weight of a matching into per-tier totals (for tests and docs)."""
        out = []
        for m in self.multipliers:
            out.append(weight // m)
            weight %= m
        return tuple(out)


def _multipliers(bounds: tuple[int, ...], slots: int) -> tuple[tuple[int, ...], int]:
    mults: list[int] = []
    m = 1
    for bound in reversed(bounds):
        mults.append(m)
        m *= slots * bound + 1
    mults.reverse()
    max_edge = sum(b * k for b, k in zip(bounds, mults, strict=True))
    return tuple(mults), max_edge


def make_layout(field: Field) -> WeightLayout:
    n = field.size
    slots = (n + 1) // 2
    points = [p.points2 for p in field.players]
    gap = (max(points) - min(points)) if points else 0
    base = (
        1,  # clash
        max(field.group_count, 1),  # bye
        max(field.group_count - 1, 0),  # floats
        gap * gap,  # score gaps
        2,  # repeat floats
        ABSOLUTE,  # mano
        min(RANK_CAP, 2 * field.max_group_size() ** 2),  # rank
    )
    _, max_edge = _multipliers((*base, 0), slots)
    if max_edge.bit_length() > MAX_WEIGHT_BITS:
        raise PairingTooLarge(f"{n} players with a score spread of {gap} half points")
    spare = MAX_WEIGHT_BITS - max_edge.bit_length() - slots.bit_length() - 1
    jitter_bits = max(0, min(MAX_JITTER_BITS, spare))
    bounds = (*base, (1 << jitter_bits) - 1)
    mults, _ = _multipliers(bounds, slots)
    return WeightLayout(bounds=bounds, multipliers=mults, jitter_bits=jitter_bits)


def jitter(rank_a: int, rank_b: int, bits: int) -> int:
    """A deterministic pseudo-random value of the unordered pair (splitmix64 finaliser)."""
    return _jitter(rank_a, rank_b, (1 << bits) - 1)


def _jitter(a: int, b: int, mask: int) -> int:
    lo, hi = (a, b) if a < b else (b, a)
    z = (lo * 0x9E3779B97F4A7C15 + hi * 0xD1B54A32D192ED03 + 1) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return (z ^ (z >> 31)) & mask


def pair_values(field: Field, layout: WeightLayout, i: int, j: int) -> tuple[int, ...]:
    """Tier values of the edge between players ``i`` and ``j`` (indices in pairing order)."""
    if j < i:
        i, j = j, i
    a, b = field.players[i], field.players[j]
    bounds = layout.bounds
    distance = field.group[j] - field.group[i]
    diff = a.points2 - b.points2
    if distance:
        repeat = int(a.floated_last) + int(b.floated_last)
        below = field.group_size(field.group[i]) - 1 - field.pos[i]
        rank_penalty = below * below + field.pos[j] * field.pos[j]
    else:
        repeat = 0
        half = field.group_size(field.group[i]) // 2
        rank_penalty = (field.pos[j] - field.pos[i] - half) ** 2
    conflict = min(a.mano.strength, b.mano.strength) if a.mano.side == b.mano.side else 0
    return (
        0 if field.clash(i, j) else 1,
        0,
        bounds[2] - distance,
        bounds[3] - diff * diff,
        bounds[4] - repeat,
        bounds[5] - conflict,
        bounds[6] - min(bounds[6], rank_penalty),
        jitter(a.rank, b.rank, layout.jitter_bits),
    )


def bye_values(field: Field, layout: WeightLayout, i: int) -> tuple[int, ...]:
    """Tier values of the edge giving the bye to ``i`` (eligible): its group on the bye tier,
    no clash, float or gap; a repeated float if ``i`` floated last round; its distance from
    the bottom of its group on the rank tier."""
    player = field.players[i]
    bounds = layout.bounds
    below = field.group_size(field.group[i]) - 1 - field.pos[i]
    return (
        1,
        field.bye_value[i],
        bounds[2],
        bounds[3],
        bounds[4] - int(player.floated_last),
        bounds[5],
        bounds[6] - min(bounds[6], below * below),
        jitter(player.rank, field.size, layout.jitter_bits),
    )


def pair_weight(field: Field, layout: WeightLayout, i: int, j: int) -> int:
    return layout.pack(pair_values(field, layout, i, j))


def pair_weights(
    field: Field, layout: WeightLayout, edges: Iterable[tuple[int, int]]
) -> list[tuple[int, int, int]]:
    """``(i, j, pair_weight(i, j))`` of every edge (``i < j``), the tiers packed inline: the
    exact graph of a 1,000-player field has 60,000-90,000 edges, and the call per edge was a
    quarter of its pairing time."""
    m = layout.multipliers
    bounds = layout.bounds
    mask = (1 << layout.jitter_bits) - 1
    players = field.players
    group, pos = field.group, field.pos
    points = [p.points2 for p in players]
    floated = [int(p.floated_last) for p in players]
    sides = [p.mano.side for p in players]
    strengths = [p.mano.strength for p in players]
    ranks = [p.rank for p in players]
    c3 = [field.c3_side(i) for i in range(field.size)]
    sizes = [field.group_size(g) for g in range(field.group_count)]
    # a pair's constant part: no clash, and every lower tier at its bound less what it loses
    base = m[0] + sum(b * k for b, k in zip(bounds[2:7], m[2:7], strict=True))
    cap = bounds[6]
    out = []
    for i, j in edges:
        gi = group[i]
        distance = group[j] - gi
        diff = points[i] - points[j]
        if distance:
            repeat = floated[i] + floated[j]
            below = sizes[gi] - 1 - pos[i]
            rank_penalty = below * below + pos[j] * pos[j]
        else:
            repeat = 0
            offset = pos[j] - pos[i] - sizes[gi] // 2
            rank_penalty = offset * offset
        conflict = min(strengths[i], strengths[j]) if sides[i] == sides[j] else 0
        clash = m[0] if c3[i] and c3[i] == c3[j] else 0
        weight = (
            base
            - clash
            - distance * m[2]
            - diff * diff * m[3]
            - repeat * m[4]
            - conflict * m[5]
            - min(cap, rank_penalty) * m[6]
            + _jitter(ranks[i], ranks[j], mask)
        )
        out.append((i, j, weight))
    return out


def bye_weight(field: Field, layout: WeightLayout, i: int) -> int:
    return layout.pack(bye_values(field, layout, i))
