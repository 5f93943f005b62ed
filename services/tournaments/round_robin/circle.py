"""Round robin by the circle method, single or double, with mano alternating.

The first player is fixed and the others rotate one place per round; with an odd count a
fixed resting slot is added instead and whoever meets it rests. Mano: the fixed player is mano in even rounds; on
every other board the player at the odd position of the circle is mano. Rotating players move
one position a round, so their mano alternates except once per cycle, and every player's mano
count is within one of their not-mano count (equal with an odd count of players). The second cycle of a double round robin repeats
the first with mano swapped in every match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

import msgspec

T = TypeVar("T")


class Fixture(msgspec.Struct, Generic[T], frozen=True):
    round: int  # 1-based
    mano: T  # plays first in the match's first game
    other: T


def round_robin(players: Sequence[T], *, double: bool = False) -> list[list[Fixture[T]]]:
    """Rounds of fixtures; each pair meets once (twice with ``double``, mano swapped)."""
    if len(players) < 2:
        return []
    slots: list[int | None] = list(range(len(players)))
    if len(slots) % 2:
        slots.insert(0, None)  # the resting slot is the fixed one: everyone else alternates
    n = len(slots)
    rounds: list[list[Fixture[T]]] = []
    rotating = slots[1:]
    for r in range(n - 1):
        order = [slots[0], *rotating]
        fixtures: list[Fixture[T]] = []
        for board in range(n // 2):
            x, y = order[board], order[n - 1 - board]
            if x is None or y is None:
                continue
            x_is_mano = r % 2 == 0 if board == 0 else board % 2 == 1
            mano, other = (x, y) if x_is_mano else (y, x)
            fixtures.append(Fixture(round=r + 1, mano=players[mano], other=players[other]))
        rounds.append(fixtures)
        rotating = [rotating[-1], *rotating[:-1]]
    if double:
        first = len(rounds)
        rounds += [
            [Fixture(round=first + k + 1, mano=f.other, other=f.mano) for f in fixtures]
            for k, fixtures in enumerate(rounds[:first])
        ]
    return rounds
