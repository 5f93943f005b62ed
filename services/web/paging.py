"""Which of a tournament's rounds its page lists in full, so a page stays light.

A small event lists every round's pairings. A large one (a 100-bot Swiss plays 350 matches
in 7 rounds) lists one round, the latest unless the address asks for another
(``/tournaments/{id}?round=N``), with a link to each round: the page's HTML stays under
100 KB (tests/web/test_page_weight.py).
"""

from __future__ import annotations

from collections.abc import Sequence

# up to this many pairings in all, every round is listed in full
PAIRINGS_IN_FULL = 120


class NoSuchRound(LookupError):
    """The address asks for a round the tournament does not have."""


def round_shown(numbers: Sequence[int], pairings: int, requested: int | None) -> int | None:
    """The one round to list (None: list them all). ``numbers`` are the rounds' numbers in
    order, ``pairings`` their pairings in all, ``requested`` the ``round`` of the address."""
    if requested is not None and requested not in numbers:
        raise NoSuchRound(f"no round {requested}")
    if pairings <= PAIRINGS_IN_FULL and requested is None:
        return None
    if requested is not None:
        return requested
    return numbers[-1] if numbers else None
