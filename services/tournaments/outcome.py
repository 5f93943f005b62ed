"""A finished match's result as people read it: who won, by what score, and why.

One pure function (:func:`match_outcome`) turns a match's sides and stored result into a typed
:class:`MatchOutcome` that the API returns (``outcome`` of a match and of a round's match), the
CLI prints (its ``phrase``) and the pages word through their catalogues (its fields). The rules
it keeps, wherever a result is shown:

* the winner comes first, with the winner's score first ("house-heuristic wins 2-0 against
  house-random", never "wins 0-2"); a match with no winner keeps the match's side order;
* the reason is said whenever the match was not a plain win on games: level on games and
  decided on tantos, a draw (and in a bracket: the better seed goes through,
  :mod:`services.tournaments.brackets.knockout`), a forfeit, a walkover, a withdrawal;
* in individual 2v2 a side is a partnership of two bots ("alice & carol win ..."), and
  ``partners`` says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

import msgspec

from services.domain.result import StoredResult
from services.tournaments.brackets.knockout import decided_by as knockout_decided_by

DecidedBy = Literal["games", "tantos", "seed", "draw", "forfeit", "walkover", "withdrawn", "bye"]
"""Why the match ended as it did: ``games`` (more games won), ``tantos`` (level on games, more
tantos), ``draw`` (level on both), ``seed`` (a bracket match level on both: the better seed goes
through), ``forfeit`` (a side reached the fault limit), ``walkover`` (a side could not be
reached), ``withdrawn`` (a side's bot left the event), ``bye`` (no opponent)."""

FINISHED = ("done", "forfeit")  # services.domain.FINISHED_STATUSES: a match with a result


class Seat(Protocol):
    """A bot of a match as the API (``MatchEntrant``) and the pages (``Entrant``) hold it."""

    @property
    def bot_id(self) -> int | None: ...

    @property
    def name(self) -> str: ...

    @property
    def side(self) -> int: ...


class OutcomeSide(msgspec.Struct, frozen=True, kw_only=True):
    """One side of the match: its number in the match (0 or 1), its bots and their names (two
    in individual 2v2, partners), the games it won and the tantos it scored."""

    side: int
    bots: tuple[int | None, ...]
    names: tuple[str, ...]
    games: int
    tantos: int


class MatchOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """A finished match's result: ``sides`` winner first (with no winner: side 0 first; a bye
    has one side), ``decided_by`` why, ``partners`` true when a side is two bots partnering
    (individual 2v2), and ``phrase``, the result in English."""

    winner_side: int | None
    sides: tuple[OutcomeSide, ...]
    decided_by: DecidedBy
    partners: bool
    phrase: str


def _side(seats: Sequence[Seat], side: int, games: int, tantos: int) -> OutcomeSide:
    mine = [seat for seat in seats if seat.side == side]
    return OutcomeSide(
        side=side,
        bots=tuple(seat.bot_id for seat in mine),
        names=tuple(seat.name for seat in mine),
        games=games,
        tantos=tantos,
    )


def _decided(
    result: StoredResult | None, winner_side: int | None, bracket: bool
) -> DecidedBy | None:
    if result is None:
        return "games" if winner_side is not None else "draw"
    reason = result.reason
    if reason == "error":
        return None
    if bracket and result.played_out:
        return knockout_decided_by(result.games_won, result.tantos)
    if reason in ("games", "tantos", "draw", "forfeit", "walkover", "withdrawn"):
        return reason
    return None


def match_outcome(
    *,
    status: str,
    bye: bool,
    seats: Sequence[Seat],
    winner_side: int | None,
    result: StoredResult | None,
    bracket_match: str | None = None,
) -> MatchOutcome | None:
    """The outcome of a finished match (``status`` done or forfeit) or a bye; None for a
    match not over, cancelled, or given up on (no result to tell)."""
    if bye:
        only = (_side(seats, 0, 0, 0),)
        phrase = phrase_of(only, 0, "bye", partners=False)
        return MatchOutcome(
            winner_side=0, sides=only, decided_by="bye", partners=False, phrase=phrase
        )
    if status not in FINISHED:
        return None
    decided = _decided(result, winner_side, bracket_match is not None)
    if decided is None:
        return None
    games = result.games_won if result is not None else (0, 0)
    tantos = result.tantos if result is not None else (0, 0)
    both = [_side(seats, side, games[side], tantos[side]) for side in (0, 1)]
    if winner_side == 1:
        both.reverse()
    sides = (both[0], both[1])
    partners = any(len(side.bots) > 1 for side in sides)
    return MatchOutcome(
        winner_side=winner_side,
        sides=sides,
        decided_by=decided,
        partners=partners,
        phrase=phrase_of(sides, winner_side, decided, partners=partners),
    )


def side_name(side: OutcomeSide) -> str:
    """A side as one name: its bot, or its partners joined by " & "."""
    return " & ".join(side.names) or f"side {side.side}"


def phrase_of(
    sides: Sequence[OutcomeSide], winner_side: int | None, decided: DecidedBy, *, partners: bool
) -> str:
    """The outcome in English, winner first with the winner's score first."""
    first = side_name(sides[0])
    if decided == "bye":
        return f"{first} {'have' if partners else 'has'} a bye"
    second = side_name(sides[1])
    games = f"{sides[0].games}-{sides[1].games}"
    tantos = f"{sides[0].tantos}-{sides[1].tantos}"
    if winner_side is None:
        versus = f"{first} vs {second}"
        match decided:
            case "seed":
                return f"{versus}: draw {games}, tantos {tantos}; the better seed goes through"
            case "walkover":
                return f"{versus}: no winner, neither side could be reached"
            case "withdrawn":
                return f"{versus}: no winner, both withdrew from the event"
            case _:
                return f"{versus}: draw {games} (tantos {tantos})"
    wins = "win" if partners else "wins"
    match decided:
        case "tantos":
            return f"{first} {wins} on tantos {tantos} against {second} (games {games})"
        case "forfeit":
            return f"{first} {wins} by forfeit against {second} (games {games})"
        case "walkover":
            return f"{first} {wins} by walkover: {second} could not be reached"
        case "withdrawn":
            return f"{first} {wins}: {second} withdrew from the event"
        case _:
            return f"{first} {wins} {games} against {second}"
