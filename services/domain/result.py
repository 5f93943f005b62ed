"""A match's stored result (``match_results.result``), one typed document written and read
everywhere: by the workflow when a match is played (:func:`played_result`), when a bot left
its event before a match was played (:func:`withdrawn_result`), by the sweeper when it gives up
on a match (:func:`given_up_result`); read back by the API, the pages, the export, the
pairing's knockout decision and ``truco verify``.

Per-side pairs (``games_won``, ``tantos``, ``faults``, each game's ``score``) are by side: side
0 is the match's first entrant (and entrants 0 and 2 in 2v2), side 1 the second. Older rows
may lack ``causes`` (``None``); ``withdrawn`` and ``error`` are only in the documents of a
match decided without play. ``luck`` (docs/luck.md) is the luck of a played match's cards, per
hand, per game and over the match, by the luck model it names; matches stored before it was
computed have none.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from arena.match.luck import MatchLuck, match_luck
from arena.match.replay import Cause, Replay
from services.domain import GAVE_UP

ResultReason = Literal["games", "tantos", "draw", "forfeit", "walkover", "withdrawn", "error"]
"""Why the match ended as it did: played out (``games``, ``tantos``, ``draw``), a fault limit
reached (``forfeit``), a bot unreachable at the start (``walkover``), a bot withdrawn from the
event before the match was played (``withdrawn``), or given up by the sweeper (``error``)."""

WITHDRAWN: Literal["withdrawn"] = "withdrawn"
PLAYED_OUT = ("games", "tantos", "draw")
"""The reasons of a match played to its last game (not a forfeit, walkover or bye)."""


class GameOutcome(msgspec.Struct, frozen=True):
    """One game: its score by side and the side that won it (None: not finished)."""

    score: tuple[int, int]
    winner: int | None


class StoredResult(msgspec.Struct, frozen=True, omit_defaults=True):
    """What ``match_results.result`` keeps (see the module's docstring)."""

    games: tuple[GameOutcome, ...]
    games_won: tuple[int, int]
    tantos: tuple[int, int]
    reason: ResultReason
    forfeit: int | None  # the side that forfeited, if one did
    walkover: tuple[int, ...]  # entrants that could not be reached
    faults: tuple[int, int]
    causes: tuple[Cause, ...] | None = None  # of a walkover or forfeit (None in older rows)
    withdrawn: tuple[int, ...] | None = None  # sides whose bots left the event
    error: str | None = None  # why the sweeper gave up
    luck: MatchLuck | None = None  # of a played match (None in older rows and walkovers)

    @property
    def played_out(self) -> bool:
        return self.reason in PLAYED_OUT


def played_result(replay: Replay, *, luck: bool = True) -> StoredResult:
    """The result of a match the workers played (or found unreachable), from its replay, with
    its luck by the current model unless ``luck`` is False."""
    games = []
    for game in replay.games:
        score = [0, 0]
        for team, entrant in enumerate(game.teams):
            score[entrant] = game.score[team]
        games.append(GameOutcome(score=(score[0], score[1]), winner=game.winner))
    result = replay.result
    return StoredResult(
        games=tuple(games),
        games_won=result.games_won,
        tantos=result.tantos,
        reason=result.reason,
        forfeit=result.forfeit,
        walkover=tuple(result.walkover),
        faults=result.faults,
        causes=tuple(result.causes),
        luck=match_luck(replay) if luck else None,
    )


def withdrawn_result(lost: list[int]) -> StoredResult:
    """A match decided without play because the bots of the sides ``lost`` left the event
    (both sides: no forfeiting side, a draw)."""
    return StoredResult(
        games=(),
        games_won=(0, 0),
        tantos=(0, 0),
        reason=WITHDRAWN,
        forfeit=lost[0] if len(lost) == 1 else None,
        walkover=(),
        faults=(0, 0),
        withdrawn=tuple(lost),
    )


def given_up_result(detail: str) -> StoredResult:
    """A match the sweeper gave up on (too many attempts): nobody forfeits, nobody wins."""
    return StoredResult(
        games=(),
        games_won=(0, 0),
        tantos=(0, 0),
        reason=GAVE_UP,
        forfeit=None,
        walkover=(),
        faults=(0, 0),
        error=detail,
    )


def stored_result(document: object) -> StoredResult:
    """A ``match_results.result`` as read from the database (plain JSON values)."""
    return msgspec.convert(document, StoredResult)
