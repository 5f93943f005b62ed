"""Who goes through a knockout match that cannot end level.

Order: more games won; then more tantos; then the better seed. The platform plays no extra
games to break a level match: the match's result (a draw, for Elo) stays as played.
"""

from __future__ import annotations

from typing import Literal

Side = Literal["a", "b"]
DecidedBy = Literal["games", "tantos", "seed"]


def decided_by(games: tuple[int, int], tantos: tuple[int, int]) -> DecidedBy:
    """What decides a knockout match played to the end with these totals (side a, side b)."""
    if games[0] != games[1]:
        return "games"
    if tantos[0] != tantos[1]:
        return "tantos"
    return "seed"


def knockout_winner(
    games: tuple[int, int], tantos: tuple[int, int], seeds: tuple[int, int]
) -> Side:
    """The side that goes through, in :func:`decided_by`'s order; ``seeds`` are the seed
    numbers (1 is best). Equal seeds are a caller error."""
    match decided_by(games, tantos):
        case "games":
            return "a" if games[0] > games[1] else "b"
        case "tantos":
            return "a" if tantos[0] > tantos[1] else "b"
    if seeds[0] == seeds[1]:
        raise ValueError(f"both sides have seed {seeds[0]}")
    return "a" if seeds[0] < seeds[1] else "b"
