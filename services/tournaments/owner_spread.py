"""Individual 2v2: the last step of forming a round (pure). The partnerships and the tables are
two matchings solved one after the other (:mod:`services.tournaments.partnerships`), and the
first can leave the second no way to seat four owners at every table even when another set of
partnerships would (issue 32: eight bots of five owners, two of them at one table). This step
repairs that: it swaps one bot of a table that seats an owner twice with one bot of another
table, keeping each bot's side and its partner's place, whenever the swap

* lowers the number of owners seated twice over both tables,
* makes no partners of one owner (the first rule of every round), and
* makes no partnership that met before (the second).

It stops when no swap helps. Opponents who met before and closeness in the standings, the
tables' lower rules, may get worse: an owner seated twice, which lets one owner's bots decide a
table, is worse than either.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class _Bot(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def owner(self) -> int: ...


B = TypeVar("B", bound=_Bot)


def _shared(table: Sequence[_Bot]) -> int:
    return len(table) - len({bot.owner for bot in table})


def spread_owners(
    tables: list[tuple[tuple[B, B], tuple[B, B]]],
    partnered: dict[frozenset[int], int],
    *,
    passes: int = 4,
) -> list[tuple[tuple[B, B], tuple[B, B]]]:
    """``tables`` (two partnerships each) with owners spread as far as single swaps can
    (module docstring); ``partnered`` counts earlier partnerships of each pair of bots."""
    seats = [[p[0], p[1], q[0], q[1]] for p, q in tables]

    def valid(table: list[B], slot: int) -> bool:
        mate = table[slot ^ 1]
        bot = table[slot]
        return bot.owner != mate.owner and partnered.get(frozenset((bot.id, mate.id)), 0) == 0

    for _ in range(passes):
        improved = False
        for x, first in enumerate(seats):
            if not _shared(first):
                continue
            for y, second in enumerate(seats):
                if x == y or not _shared(first):
                    continue
                before = _shared(first) + _shared(second)
                done = False
                for i in range(4):
                    for j in range(4):
                        first[i], second[j] = second[j], first[i]
                        better = _shared(first) + _shared(second) < before
                        ok = better and valid(first, i) and valid(second, j)
                        if ok:
                            done = improved = True
                            break
                        first[i], second[j] = second[j], first[i]
                    if done:
                        break
        if not improved:
            break
    return [((s[0], s[1]), (s[2], s[3])) for s in seats]
