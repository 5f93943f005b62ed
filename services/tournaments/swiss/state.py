"""Per-player Swiss history (score, opponents, bye, floats, mano preference) derived from rounds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.tournaments.model import Player, PlayerId, Round, initial_order, validate
from services.tournaments.swiss.mano import ManoPreference, mano_preference


@dataclass(frozen=True, slots=True)
class PlayerState:
    """What the pairing needs to know about one player before the next round."""

    id: PlayerId
    rank: int  # initial rank, 0 = highest rating
    points2: int  # match points in half points (win 2, draw 1, bye 2)
    opponents: frozenset[PlayerId]
    had_bye: bool
    floated_last: bool  # last round: paired outside its score group, or got the bye
    mano: ManoPreference


def build_states(players: Sequence[Player], rounds: Sequence[Round]) -> list[PlayerState]:
    """Replay ``rounds`` and return one state per player, in initial-rank order."""
    validate(list(players), list(rounds))
    ordered = initial_order(list(players))
    points = {p.id: 0 for p in ordered}
    opponents: dict[PlayerId, set[PlayerId]] = {p.id: set() for p in ordered}
    byes: set[PlayerId] = set()
    floated: set[PlayerId] = set()
    sides: dict[PlayerId, list[bool]] = {p.id: [] for p in ordered}
    for round_ in rounds:
        before = dict(points)
        floated = set()
        for match in round_.matches:
            opponents[match.a].add(match.b)
            opponents[match.b].add(match.a)
            if before[match.a] != before[match.b]:
                floated.update((match.a, match.b))
            for pid in (match.a, match.b):
                points[pid] += match.points2(pid)
                sides[pid].append(pid == match.mano_id)
        for pid in round_.byes:
            points[pid] += 2
            byes.add(pid)
            floated.add(pid)
    return [
        PlayerState(
            id=p.id,
            rank=rank,
            points2=points[p.id],
            opponents=frozenset(opponents[p.id]),
            had_bye=p.id in byes,
            floated_last=p.id in floated,
            mano=mano_preference(tuple(sides[p.id])),
        )
        for rank, p in enumerate(ordered)
    ]
