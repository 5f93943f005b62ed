"""The pure half of the tournament workflow: from stored matches to what the formats of
:mod:`services.tournaments.formats` plan and rank (:func:`played`). No I/O; :mod:`services.flow`
loads the rows and stores the plans.

A bracket match that ended level (same games, same tantos) is decided by
:func:`~services.tournaments.brackets.knockout.knockout_winner`: the better seed goes through (no extra
games are played; the draw stays the match's result for Elo).
"""

from __future__ import annotations

from collections.abc import Sequence

from services.domain import OPEN_STATUSES, side_result
from services.domain.result import StoredResult
from services.tournaments.brackets.knockout import DecidedBy, decided_by, knockout_winner
from services.tournaments.event import Played, SeededEntrant, seed_maps
from services.tournaments.model import PlayedMatch, Round
from services.tournaments.records import MatchRecord


def outcome(match: MatchRecord) -> PlayedMatch:
    """A finished two-sided match as the pure modules' result (side 0 is ``a`` and mano)."""
    assert match.bot1 is not None
    games = match.games_won
    tantos = match.tantos
    result = side_result(match.winner_side)
    return PlayedMatch(
        a=match.bot0,
        b=match.bot1,
        result=result,
        games_a=games[0],
        games_b=games[1],
        tantos_a=tantos[0],
        tantos_b=tantos[1],
        mano=match.bot0,
    )


def history(matches: Sequence[MatchRecord], upto: int | None = None) -> list[Round]:
    """Finished matches grouped into rounds 1..``upto`` (all rounds when None)."""
    last = max((m.round_number or 0 for m in matches), default=0) if upto is None else upto
    rounds: list[Round] = []
    for number in range(1, last + 1):
        finished = [m for m in matches if m.round_number == number and m.finished]
        rounds.append(
            Round(
                matches=tuple(outcome(m) for m in finished if not m.bye and m.bot1 is not None),
                byes=tuple(m.bot0 for m in finished if m.bye),
            )
        )
    return rounds


def complete_rounds(matches: Sequence[MatchRecord]) -> int:
    """How many rounds, from round 1 on, have no match left to play (pending, queued or
    running); a table's standings count only these rounds."""
    open_rounds = {m.round_number for m in matches if m.status in OPEN_STATUSES}
    last = max((m.round_number or 0 for m in matches), default=0)
    return next((n - 1 for n in range(1, last + 1) if n in open_rounds), last)


def played(
    entrants: Sequence[SeededEntrant],
    matches: Sequence[MatchRecord],
    *,
    third_place: bool = False,
    current_round: int = 0,
    rounds_wanted: int | None = None,
) -> Played:
    """The event as every format plans and ranks it: its complete rounds (tables) and its
    decided and created bracket matches (brackets); ``current_round`` is the last round created
    and ``rounds_wanted`` the organiser's round count."""
    return Played(
        tuple(entrants),
        rounds=tuple(history(matches, complete_rounds(matches))),
        bracket_results=bracket_results(entrants, matches),
        third_place=third_place,
        bracket_created=frozenset(m.bracket_match for m in matches if m.bracket_match),
        current_round=current_round,
        current_round_open=any(m.round_number == current_round and not m.finished for m in matches),
        rounds_wanted=rounds_wanted,
    )


def advancing_side(match: MatchRecord, seeds: dict[int, int]) -> int:
    """The side that goes through a finished bracket match (a draw goes to the better seed)."""
    if match.winner_side is not None:
        return match.winner_side
    assert match.bot1 is not None
    decided = knockout_winner(
        match.games_won,
        match.tantos,
        (seeds[match.bot0], seeds[match.bot1]),
    )
    return 0 if decided == "a" else 1


def knockout_decision(bracket_match: str | None, result: StoredResult | None) -> DecidedBy | None:
    """For a bracket match (its ``bracket_match`` id) played to the end (its stored
    ``result``): ``games``, ``tantos`` or ``seed``, what decided who goes through, in
    :func:`advancing_side`'s order; ``None`` for any other match or result."""
    if bracket_match is None or result is None or not result.played_out:
        return None
    return decided_by(result.games_won, result.tantos)


def bracket_results(
    entrants: Sequence[SeededEntrant], matches: Sequence[MatchRecord]
) -> dict[str, int]:
    """Bracket match id -> winning seed, from the finished rows."""
    _, seeds = seed_maps(entrants)
    results: dict[str, int] = {}
    for match in matches:
        if match.bracket_match is None or not match.finished or match.bot1 is None:
            continue
        side = advancing_side(match, seeds)
        results[match.bracket_match] = seeds[match.bots[side]]
    return results
