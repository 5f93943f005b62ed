"""Which of a tournament's rounds its page lists in full, so a page stays light.

A small event lists every round's pairings. A large one (a 100-bot Swiss plays 350 matches
in 7 rounds) lists one round, the latest unless the address asks for another
(``/tournaments/{id}?round=N``), with a link to each round: the page's HTML stays under
100 KB (tests/services/web/browser/test_page_weight.py).

A crosstable has a cell per pair of entrants: up to ``CROSS_IN_FULL`` entrants it is on the
tournament's page; a larger one (a 40-bot round robin's is 1,600 cells, 103 KB of HTML) is
served in parts of whole rows, about ``CROSS_CELLS_PER_PART`` cells each, at
``/tournaments/{id}/crosstable?part=N``, the tournament's page linking to each part
(tests/services/web/pages/test_event_pages.py).
"""

from __future__ import annotations

from collections.abc import Sequence

# up to this many pairings in all, every round is listed in full
PAIRINGS_IN_FULL = 120


# up to this many entrants, the crosstable is on the tournament's page
CROSS_IN_FULL = 24
# a part of a larger crosstable has about this many cells (whole rows, at least one)
CROSS_CELLS_PER_PART = 800


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


def cross_parts(entrants: int) -> list[tuple[int, int]]:
    """The parts of a crosstable of ``entrants`` rows, as (first row, end) ranges; none when the
    crosstable is small enough to be on the tournament's page."""
    if entrants <= CROSS_IN_FULL:
        return []
    rows = max(1, CROSS_CELLS_PER_PART // entrants)
    return [(start, min(start + rows, entrants)) for start in range(0, entrants, rows)]
