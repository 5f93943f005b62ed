"""Who goes through a knockout match that cannot end level.

Order: more games won; then more tantos; then, if an extra pair of games has not
been played yet, ask for it (:data:`PLAY_EXTRA_PAIR`); after it, the better seed goes through.
"""

from __future__ import annotations

from typing import Final, Literal

Side = Literal["a", "b"]
DecidedBy = Literal["games", "tantos", "seed"]
PlayExtra = Literal["play_extra_pair"]
PLAY_EXTRA_PAIR: Final[PlayExtra] = "play_extra_pair"


def knockout_winner(
    games: tuple[int, int],
    tantos: tuple[int, int],
    seeds: tuple[int, int],
    *,
    extra_pair_played: bool = False,
) -> Side | PlayExtra:
    """``"a"``/``"b"`` for the side that goes through, or :data:`PLAY_EXTRA_PAIR`.

    ``games`` and ``tantos`` are (side a, side b) totals including any extra pair already
    played; ``seeds`` are the seed numbers (1 is best). Equal seeds are a caller error.
    """
    if games[0] != games[1]:
        return "a" if games[0] > games[1] else "b"
    if tantos[0] != tantos[1]:
        return "a" if tantos[0] > tantos[1] else "b"
    if not extra_pair_played:
        return PLAY_EXTRA_PAIR
    if seeds[0] == seeds[1]:
        raise ValueError(f"both sides have seed {seeds[0]}")
    return "a" if seeds[0] < seeds[1] else "b"


def decided_by(games: tuple[int, int], tantos: tuple[int, int]) -> DecidedBy:
    """What decided a knockout match played to the end with these totals, in the order of
    :func:`knockout_winner` (no extra pair is played on the platform: level on both, the
    better seed goes through)."""
    if games[0] != games[1]:
        return "games"
    if tantos[0] != tantos[1]:
        return "tantos"
    return "seed"
