"""The players of one Swiss round in pairing order, split into score groups, with indices.

Pairing order is match points descending, then initial rank. Score group 0 is the top group.
Everything downstream (weights, candidate graph, certificate) works on these indices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.tournaments.swiss_state import PlayerState


@dataclass(frozen=True, slots=True)
class Field:
    players: tuple[PlayerState, ...]  # pairing order
    group: tuple[int, ...]  # score group of each player
    pos: tuple[int, ...]  # position inside its score group (0 = best)
    starts: tuple[int, ...]  # first index of each group, plus a final sentinel n
    opponents: tuple[frozenset[int], ...]  # indices of past opponents
    bye_value: dict[int, int]  # index -> 1 (best-placed eligible) .. E (lowest eligible)

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

    def lowest_bye_candidate(self) -> int | None:
        """The index that the bye rule wants: the lowest-placed player without a bye."""
        return max(self.bye_value, key=self.bye_value.__getitem__, default=None)


def make_field(states: Sequence[PlayerState]) -> Field:
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
        bye_value={i: k + 1 for k, i in enumerate(eligible)},
    )
