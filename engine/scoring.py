"""Pure scoring rules: hand decision (R-4), envido values (R-6), falta, declarations."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.events import Declaration
from engine.rules import Rules

ENVIDO_LEVEL = {"envido": 2, "real_envido": 3}


def hand_decided(results: Sequence[int], mano_team: int) -> int | None:
    """The team that has won the hand after these round results (team, or -1 parda), or None.

    R-4: two rounds won; round 1 won and round 2 parda; round 1 parda and round 2 won; after
    three rounds, more rounds won, else the first round someone won, else (three pardas) mano.
    """
    n = len(results)
    if n < 2:
        return None
    wins0 = results.count(0)
    wins1 = results.count(1)
    if wins0 >= 2:
        return 0
    if wins1 >= 2:
        return 1
    if n == 2:
        first, second = results
        if first >= 0 and second == -1:
            return first
        if first == -1 and second >= 0:
            return second
        return None
    if wins0 != wins1:
        return 0 if wins0 > wins1 else 1
    for result in results:
        if result >= 0:
            return result
    return mano_team


def falta_points(rules: Rules, score: tuple[int, int]) -> int:
    """What a falta envido (querido) is worth, by the ``falta_envido`` option (R-6)."""
    lead = max(score)
    if rules.falta_envido == "to_buenas" and lead < rules.buenas:
        return rules.buenas - lead
    return rules.points_to_win - lead


def envido_value(chain: Sequence[str], querido: bool, falta: int) -> int:
    """Points of an envido chain: querido sums the levels (falta alone if F was sung);
    no querido is what the chain before the last canto was worth, or 1 (R-6)."""
    if not querido:
        return envido_value(chain[:-1], True, falta) if len(chain) > 1 else 1
    if chain and chain[-1] == "falta_envido":
        return falta
    return sum(ENVIDO_LEVEL[word] for word in chain)


def declare(
    seats_from_mano: Sequence[int], points_of: Callable[[int], int]
) -> tuple[tuple[Declaration, ...], int]:
    """Declaration in order from mano: a seat states its points only if they beat the best
    stated so far, otherwise "son buenas" (None). Returns the declarations and the winning
    seat (ties go to the seat more mano, which declared first)."""
    best_seat = -1
    best = -1
    declarations = []
    for seat in seats_from_mano:
        points = points_of(seat)
        if points > best:
            best, best_seat = points, seat
            declarations.append(Declaration(seat, points))
        else:
            declarations.append(Declaration(seat, None))
    return tuple(declarations), best_seat
