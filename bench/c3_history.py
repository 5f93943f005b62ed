"""The history of the C.3 shape (issue 34), generated directly: rounds paired like a Dutch Swiss
without its optimisation, so that 10,000 players cost seconds, not five calls of ``pair_round``.

Each round the players are taken in score order (then initial rank); each score group, with the
players floated down from the group above at its head, is split in halves and its upper half
S1 meets its lower half S2 board by board (the first player of S2 not met yet and not of the
same absolute side preference: C.3, as ``pair_round`` keeps it); whoever finds no partner
floats down. What is left at the bottom is paired greedily, breaking an earlier pair when
needed, so that no two players ever meet twice. Results are random (45% / 45% / 10% draws) and
every match is written with its higher-ranked player (initial rank) first and no ``mano``, so
that player was mano: a top-half player is mano game after game and most players end with an
absolute side preference (the bench prints the share), which is what makes C.3 forbid many pairs.
An odd field gives the bye to the lowest player in score order without one.
"""

from __future__ import annotations

import random
from itertools import groupby

from services.domain import SideResult
from services.tournaments.model import PlayedMatch, Player, PlayerId, Round
from services.tournaments.swiss.mano import (
    ManoPreference,
    mano_preference,
    same_absolute_preference,
)


class _Round:
    """One round being paired: who met whom so far, each player's side preference, the pairs
    made, by initial rank."""

    def __init__(
        self,
        rank: dict[PlayerId, int],
        met: dict[PlayerId, set[PlayerId]],
        preference: dict[PlayerId, ManoPreference],
    ) -> None:
        self.rank = rank
        self.met = met
        self.preference = preference
        self.pairs: list[tuple[PlayerId, PlayerId]] = []

    def may_meet(self, a: PlayerId, b: PlayerId) -> bool:
        """Not met yet, and not both with the same absolute side preference (C.3)."""
        return b not in self.met[a] and not same_absolute_preference(
            self.preference[a], self.preference[b]
        )

    def meet(self, a: PlayerId, b: PlayerId) -> None:
        self.pairs.append((a, b) if self.rank[a] < self.rank[b] else (b, a))

    def group(self, members: list[PlayerId]) -> list[PlayerId]:
        """Pair S1 against S2; the players left unpaired, in order (they float down)."""
        half = len(members) // 2
        upper, lower = members[:half], members[half:]
        floated: list[PlayerId] = []
        for a in upper:
            k = next((k for k, b in enumerate(lower) if self.may_meet(a, b)), None)
            if k is None:
                floated.append(a)
            else:
                self.meet(a, lower.pop(k))
        return floated + lower

    def rest(self, left: list[PlayerId]) -> None:
        """Pair the players left at the bottom, taking an earlier pair apart when one has no
        partner left among them (C.3 kept where it can be)."""
        while left:
            a = left.pop(0)
            k = next((k for k, b in enumerate(left) if self.may_meet(a, b)), None)
            if k is None:
                k = next((k for k, b in enumerate(left) if b not in self.met[a]), None)
            if k is not None:
                self.meet(a, left.pop(k))
                continue
            for index in range(len(self.pairs) - 1, -1, -1):
                x, y = self.pairs[index]
                if x not in self.met[a]:
                    del self.pairs[index]
                    self.meet(a, x)
                    left.append(y)
                    break
            else:
                raise RuntimeError(f"no rematch-free partner for {a!r}")


def take_bye(
    order: list[PlayerId], had_bye: set[PlayerId], points: dict[PlayerId, int]
) -> tuple[PlayerId, ...]:
    """An odd field's bye to the lowest player in ``order`` without one (taken out of
    ``order``, two half points); () for an even field."""
    if len(order) % 2 == 0:
        return ()
    bye = next(pid for pid in reversed(order) if pid not in had_bye)
    order.remove(bye)
    had_bye.add(bye)
    points[bye] += 2
    return (bye,)


def c3_history(players: list[Player], rounds: int, seed: int) -> list[Round]:
    """``rounds`` rounds of ``players`` (best initial rank first) in the C.3 shape."""
    rng = random.Random(seed)
    rank = {p.id: k for k, p in enumerate(players)}
    points: dict[PlayerId, int] = {p.id: 0 for p in players}
    met: dict[PlayerId, set[PlayerId]] = {p.id: set() for p in players}
    had_bye: set[PlayerId] = set()
    sides: dict[PlayerId, tuple[bool, ...]] = {p.id: () for p in players}  # True: was mano
    history: list[Round] = []
    for _ in range(rounds):
        order = sorted(points, key=lambda pid: (-points[pid], rank[pid]))
        byes = take_bye(order, had_bye, points)
        preference = {pid: mano_preference(side) for pid, side in sides.items()}
        pairing = _Round(rank, met, preference)
        floated: list[PlayerId] = []
        for _score, group in groupby(order, key=points.__getitem__):
            floated = pairing.group(floated + list(group))
        pairing.rest(floated)
        matches = []
        for a, b in pairing.pairs:
            met[a].add(b)
            met[b].add(a)
            sides[a] += (True,)
            sides[b] += (False,)
            result: SideResult = rng.choices(("a", "b", "draw"), weights=(45, 45, 10))[0]
            match = PlayedMatch(a=a, b=b, result=result)
            points[a] += match.points2(a)
            points[b] += match.points2(b)
            matches.append(match)
        history.append(Round(matches=tuple(matches), byes=byes))
    return history
