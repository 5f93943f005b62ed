"""The players of one Swiss round in pairing order, split into score groups, with indices.

Pairing order is match points descending, then initial rank. Score group 0 is the top group.
Everything downstream (weights, candidate graph, certificate) works on these indices.

Two FIDE Dutch notions live here because every tier reads them: which pairs are *clashes*
(C.3: two players with the same absolute side preference, neither a topscorer, where a
topscorer is a player with more than half the points possible when the final round is paired,
A.7) and which score group the bye comes from (the lowest group with a player eligible for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.tournaments.swiss.mano import ABSOLUTE, same_absolute_preference
from services.tournaments.swiss.state import PlayerState


@dataclass(frozen=True, slots=True)
class Field:
    players: tuple[PlayerState, ...]  # pairing order
    group: tuple[int, ...]  # score group of each player
    pos: tuple[int, ...]  # position inside its score group (0 = best)
    starts: tuple[int, ...]  # first index of each group, plus a final sentinel n
    opponents: tuple[frozenset[int], ...]  # indices of past opponents
    bye_value: dict[int, int]  # eligible index -> its score group + 1 (the lower, the more)
    topscorers: frozenset[int]  # exempt from C.3: only when pairing the final round

    @property
    def size(self) -> int:
        return len(self.players)

    @property
    def group_count(self) -> int:
        return len(self.starts) - 1

    def group_size(self, g: int) -> int:
        return self.starts[g + 1] - self.starts[g]

    def max_group_size(self) -> int:
        return max((self.group_size(g) for g in range(self.group_count)), default=0)

    def played(self, i: int, j: int) -> bool:
        return j in self.opponents[i]

    def clash(self, i: int, j: int) -> bool:
        """Whether pairing ``i`` and ``j`` breaks FIDE Dutch C.3."""
        if i in self.topscorers or j in self.topscorers:
            return False
        return same_absolute_preference(self.players[i].mano, self.players[j].mano)

    def c3_side(self, i: int) -> int:
        """The side C.3 ties ``i`` to: +1 must be mano, -1 must not be (an absolute preference
        and no topscorer's exemption), 0 free."""
        mano = self.players[i].mano
        if mano.strength != ABSOLUTE or i in self.topscorers:
            return 0
        return mano.side

    def bye_group(self) -> int | None:
        """The score group the bye rule wants: the lowest with a player who has had no bye."""
        return max(self.bye_value.values(), default=0) - 1 if self.bye_value else None


def make_field(states: Sequence[PlayerState], *, final_after: int | None = None) -> Field:
    """The field of the next round; ``final_after`` is the number of rounds played when the
    round to pair is the event's last (then players above half of those points are
    topscorers), else None."""
    players = tuple(sorted(states, key=lambda s: (-s.points2, s.rank)))
    index = {p.id: i for i, p in enumerate(players)}
    group: list[int] = []
    pos: list[int] = []
    starts: list[int] = []
    for i, player in enumerate(players):
        if i == 0 or player.points2 != players[i - 1].points2:
            starts.append(i)
        group.append(len(starts) - 1)
        pos.append(i - starts[-1])
    starts.append(len(players))
    eligible = [i for i, p in enumerate(players) if not p.had_bye]
    return Field(
        players=players,
        group=tuple(group),
        pos=tuple(pos),
        starts=tuple(starts),
        opponents=tuple(frozenset(index[o] for o in p.opponents) for p in players),
        bye_value={i: group[i] + 1 for i in eligible},
        topscorers=frozenset(
            ()
            if final_after is None
            else (i for i, p in enumerate(players) if p.points2 > final_after)
        ),
    )
