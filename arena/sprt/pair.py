"""One pair of an SPRT (docs/sprt.md): a match of two games with the seats swapped, scored as
the games bot A (entrant 0) won. The local ``truco sprt`` and the platform's tests
(``services.flow.sprt``) score pairs with this one function."""

from __future__ import annotations

from typing import Final

from arena.match.luck import MatchLuck
from arena.match.replay import Replay

GAMES_PER_PAIR: Final = 2


class Unreachable(RuntimeError):
    """A bot could not be reached (a walkover): the test cannot go on."""


def pair_score(replay: Replay) -> int:
    """Games of the pair won by bot A (entrant 0); a forfeit gives the unplayed games to the
    side that did not forfeit. Raises :class:`Unreachable` on a walkover."""
    result = replay.result
    if result.reason == "walkover":
        names = ", ".join(replay.entrants[i].name for i in result.walkover)
        raise Unreachable(f"cannot reach {names}")
    won = sum(1 for game in replay.games if game.winner == 0)
    if result.forfeit == 1:
        won += GAMES_PER_PAIR - len(replay.games)
    return won


def adjusted_pair_score(replay: Replay, luck: MatchLuck | None) -> float:
    """Bot A's luck-adjusted score per game in the pair (docs/luck.md): the games it won
    (:func:`pair_score`) minus its luck in those games' chance (``luck``, side 0's, the
    match's own: :func:`arena.match.luck.match_luck`), over the two games. A game a forfeit
    left unplayed had no deal, hence no luck. Raises :class:`Unreachable` on a walkover."""
    won = pair_score(replay)
    return (won - (luck.win if luck is not None else 0.0)) / GAMES_PER_PAIR
