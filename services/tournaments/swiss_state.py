"""Per-player Swiss history (score, opponents, bye, floats, mano balance) derived from rounds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.tournaments.model import Player, PlayerId, Round, initial_order, validate


@dataclass(frozen=True, slots=True)
class PlayerState:
    """What the pairing needs to know about one player before the next round."""

    id: PlayerId
    rank: int  # initial rank, 0 = highest rating
    points2: int  # match points in half points (win 2, draw 1, bye 2)
    opponents: frozenset[PlayerId]
    had_bye: bool
    floated_last: bool  # last round: paired outside its score group, or got the bye
    mano_pref: int  # +1 wants to be mano, -1 wants not to be, 0 no preference


def mano_preference(mano: int, not_mano: int, last_was_mano: bool | None) -> int:
    """Balance first (fewer times mano → wants mano); when balanced, alternate with last round."""
    if mano != not_mano:
        return 1 if mano < not_mano else -1
    if last_was_mano is None:
        return 0
    return -1 if last_was_mano else 1


def build_states(players: Sequence[Player], rounds: Sequence[Round]) -> list[PlayerState]:
    """Replay ``rounds`` and return one state per player, in initial-rank order."""
    validate(list(players), list(rounds))
    ordered = initial_order(list(players))
    points = {p.id: 0 for p in ordered}
    opponents: dict[PlayerId, set[PlayerId]] = {p.id: set() for p in ordered}
    byes: set[PlayerId] = set()
    floated: set[PlayerId] = set()
    mano_count = {p.id: 0 for p in ordered}
    hand_count = {p.id: 0 for p in ordered}
    last_mano: dict[PlayerId, bool] = {}
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
                is_mano = pid == match.mano_id
                last_mano[pid] = is_mano
                if is_mano:
                    mano_count[pid] += 1
                else:
                    hand_count[pid] += 1
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
            mano_pref=mano_preference(mano_count[p.id], hand_count[p.id], last_mano.get(p.id)),
        )
        for rank, p in enumerate(ordered)
    ]
