"""The pure half of the tournament workflow: from stored entries and matches to the next
matches, and to what the formats of :mod:`services.tournaments.formats` rank (:func:`played`).
No I/O; :mod:`services.flow` loads the rows and stores the plans.

Formats:

* **Swiss**: ``pair_round`` of :mod:`services.tournaments.swiss` over the whole history, but only
  bots still in the event are paired (withdrawn bots keep their results for the standings and
  their opponents' tiebreaks). Side 0 of a match is its mano (plays first in the first game).
  The bye is a one-entrant match won by side 0.
* **Round robin**: the circle method (:mod:`services.tournaments.roundrobin`) over the bots in
  seed order; round ``k`` is the ``k``-th list of fixtures. The bot that rests in a round with
  an odd field scores nothing (everyone rests once).
* **Single / double elimination**: :mod:`services.tournaments.brackets`; the seeds' slots are
  filled from the entries' seeds. A match is created the moment both its entrants are known.
  A bracket match that ended level (same games, same tantos) is decided by
  ``knockout_winner(..., extra_pair_played=True)``: the better seed goes through (no extra
  pair of games is played; the draw stays the match's result for Elo).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.db.matches import OPEN_STATUSES, MatchRow
from services.tournaments.brackets import Bracket, champion, playable, resolve
from services.tournaments.formats import Entrant as Entrant  # the workflow's name for it
from services.tournaments.formats import (
    Played,
    bracket_format,
    get_format,
    seeded_players,
)
from services.tournaments.formats import seed_maps as seed_maps
from services.tournaments.knockout import DecidedBy, decided_by, knockout_winner
from services.tournaments.model import MatchResult, Outcome, Round
from services.tournaments.roundrobin import Fixture, round_robin
from services.tournaments.swiss import NoValidPairing, match_field, pairing_from
from services.tournaments.swiss_field import make_field
from services.tournaments.swiss_state import build_states

SWISS = "swiss"
ROUND_ROBIN = "round_robin"
SINGLE = "single_elimination"
DOUBLE = "double_elimination"
ELIMINATION = (SINGLE, DOUBLE)

_BRACKET_COLUMN = {
    "winners": "main",
    "losers": "losers",
    "third_place": "main",
    "grand_final": "final",
    "reset": "final",
}


@dataclass(frozen=True, slots=True)
class Planned:
    """A match to create: its round, its bots by side (one bot for a bye), its place."""

    round: int
    bots: tuple[int, ...]
    board: int
    bracket: str = "main"
    bracket_match: str | None = None

    @property
    def bye(self) -> bool:
        return len(self.bots) == 1


def default_swiss_rounds(entrants: int) -> int:
    """``ceil(log2(n)) + 1`` rounds, capped so small fields can always be paired without a
    rematch: n - 1 with an even field (4 bots: 3 rounds), n - 2 with an odd one of 5 or more
    (5 bots: 3 rounds; 4 rounds of 5 can leave no rematch-free pairing), 3 with 3 bots. At
    least 1. A round that cannot be paired without a rematch ends the event early anyway."""
    if entrants < 2:
        return 1
    wanted = math.ceil(math.log2(entrants)) + 1
    most = entrants - 1 if entrants % 2 == 0 else entrants if entrants == 3 else entrants - 2
    return max(1, min(wanted, most))


# --- Swiss and round robin --------------------------------------------------------------------


def outcome(match: MatchRow) -> MatchResult:
    """A finished two-sided match as the pure modules' result (side 0 is ``a`` and mano)."""
    assert match.bot1 is not None
    games = match.pair_of("games_won")
    tantos = match.pair_of("tantos")
    result: Outcome = (
        "draw" if match.winner_side is None else ("a" if match.winner_side == 0 else "b")
    )
    return MatchResult(
        a=match.bot0,
        b=match.bot1,
        result=result,
        games_a=games[0],
        games_b=games[1],
        tantos_a=tantos[0],
        tantos_b=tantos[1],
        mano=match.bot0,
    )


def history(matches: Sequence[MatchRow], upto: int | None = None) -> list[Round]:
    """Finished matches grouped into rounds 1..``upto`` (all rounds when None)."""
    last = max((m.round_number or 0 for m in matches), default=0) if upto is None else upto
    rounds: list[Round] = []
    for number in range(1, last + 1):
        played = [m for m in matches if m.round_number == number and m.finished]
        rounds.append(
            Round(
                matches=tuple(outcome(m) for m in played if not m.bye and m.bot1 is not None),
                byes=tuple(m.bot0 for m in played if m.bye),
            )
        )
    return rounds


def pair_swiss(
    entrants: Sequence[Entrant], matches: Sequence[MatchRow], number: int
) -> list[Planned]:
    """Round ``number`` of a Swiss: pairs of the bots still in, plus the bye if odd.

    Raises :class:`NoValidPairing` when no rematch-free pairing exists (the event then ends).
    """
    active = {e.bot_id for e in entrants if not e.withdrawn}
    if len(active) < 2:
        raise NoValidPairing("fewer than two bots are left")
    states = [
        dataclasses.replace(state, opponents=state.opponents & active)
        for state in build_states(seeded_players(entrants), history(matches, number - 1))
        if state.id in active
    ]
    field = make_field(states)
    if field.size % 2 and not field.bye_value:
        raise NoValidPairing("the field is odd and every bot still in has had the bye")
    pairing = pairing_from(field, match_field(field))
    planned = [
        Planned(number, (_bot(pair.mano), _bot(pair.b if pair.mano == pair.a else pair.a)), board)
        for board, pair in enumerate(pairing.pairs)
    ]
    if pairing.bye is not None:
        planned.append(Planned(number, (_bot(pairing.bye),), len(planned)))
    return planned


def _bot(player_id: int | str) -> int:
    return int(player_id)


def round_robin_rounds(entrants: Sequence[Entrant]) -> list[list[Fixture[int]]]:
    return round_robin([e.bot_id for e in sorted(entrants, key=lambda e: e.seed)])


def plan_round_robin(entrants: Sequence[Entrant], number: int) -> list[Planned]:
    fixtures = round_robin_rounds(entrants)[number - 1]
    return [Planned(number, (f.mano, f.other), board) for board, f in enumerate(fixtures)]


def complete_rounds(matches: Sequence[MatchRow]) -> int:
    """How many rounds, from round 1 on, have no match left to play (pending, queued or
    running); a table's standings count only these rounds."""
    open_rounds = {m.round_number for m in matches if m.status in OPEN_STATUSES}
    last = max((m.round_number or 0 for m in matches), default=0)
    return next((n - 1 for n in range(1, last + 1) if n in open_rounds), last)


def played(
    format: str, entrants: Sequence[Entrant], matches: Sequence[MatchRow], *, third_place: bool
) -> Played:
    """The event as its format ranks it: complete rounds for a table, decided bracket
    matches for a bracket."""
    if get_format(format).is_bracket:
        results = bracket_results(entrants, matches)
        return Played(tuple(entrants), bracket_results=results, third_place=third_place)
    return Played(tuple(entrants), rounds=tuple(history(matches, complete_rounds(matches))))


# --- elimination ----------------------------------------------------------------------------


def make_bracket(format: str, entrants: int, *, third_place: bool = False) -> Bracket:
    return bracket_format(format).make_bracket(entrants, third_place=third_place)


def depths(bracket: Bracket) -> dict[str, int]:
    """The round number of each bracket match: 1 + the deepest match it waits for."""
    found: dict[str, int] = {}
    for match in bracket.matches:
        sources = [s.winner_of or s.loser_of for s in (match.a, match.b)]
        found[match.id] = 1 + max((found[s] for s in sources if s is not None), default=0)
    return found


def advancing_side(match: MatchRow, seeds: dict[int, int]) -> int:
    """The side that goes through a finished bracket match (a draw goes to the better seed)."""
    if match.winner_side is not None:
        return match.winner_side
    assert match.bot1 is not None
    decided = knockout_winner(
        match.pair_of("games_won"),
        match.pair_of("tantos"),
        (seeds[match.bot0], seeds[match.bot1]),
        extra_pair_played=True,
    )
    return 0 if decided == "a" else 1


PLAYED_OUT = ("games", "tantos", "draw")
"""Result reasons of a match played to its last game (not a forfeit, walkover or bye)."""


def knockout_decision(
    bracket_match: str | None, result: Mapping[str, Any] | None
) -> DecidedBy | None:
    """For a bracket match (its ``bracket_match`` id) played to the end (its stored
    ``result``): ``games``, ``tantos`` or ``seed``, what decided who goes through, in
    :func:`advancing_side`'s order; ``None`` for any other match or result."""
    if bracket_match is None or not result or result.get("reason") not in PLAYED_OUT:
        return None
    games, tantos = result.get("games_won"), result.get("tantos")
    if not (isinstance(games, list) and len(games) == 2):
        return None
    if not (isinstance(tantos, list) and len(tantos) == 2):
        return None
    return decided_by((int(games[0]), int(games[1])), (int(tantos[0]), int(tantos[1])))


def bracket_results(entrants: Sequence[Entrant], matches: Sequence[MatchRow]) -> dict[str, int]:
    """Bracket match id -> winning seed, from the finished rows."""
    _, seeds = seed_maps(entrants)
    results: dict[str, int] = {}
    for match in matches:
        if match.bracket_match is None or not match.finished or match.bot1 is None:
            continue
        side = advancing_side(match, seeds)
        results[match.bracket_match] = seeds[match.bots[side]]
    return results


def plan_bracket(
    bracket: Bracket, entrants: Sequence[Entrant], matches: Sequence[MatchRow]
) -> list[Planned]:
    """The bracket matches that are ready to play and have no row yet."""
    by_seed, _ = seed_maps(entrants)
    created = {m.bracket_match for m in matches if m.bracket_match is not None}
    level = depths(bracket)
    kinds = {m.id: m.bracket for m in bracket.matches}
    order = {m.id: k for k, m in enumerate(bracket.matches)}
    return [
        Planned(
            level[code],
            (by_seed[a], by_seed[b]),
            order[code],
            _BRACKET_COLUMN[kinds[code]],
            code,
        )
        for code, a, b in playable(bracket, bracket_results(entrants, matches))
        if code not in created
    ]


def bracket_champion(
    bracket: Bracket, entrants: Sequence[Entrant], matches: Sequence[MatchRow]
) -> int | None:
    seed = champion(bracket, bracket_results(entrants, matches))
    return None if seed is None else seed_maps(entrants)[0][seed]


def finished_depths(
    bracket: Bracket, entrants: Sequence[Entrant], matches: Sequence[MatchRow]
) -> set[int]:
    """Round numbers whose every bracket match is decided (played, bye or not needed)."""
    state = resolve(bracket, bracket_results(entrants, matches))
    level = depths(bracket)
    open_levels = {level[code] for code, r in state.items() if r.winner is None}
    return set(level.values()) - open_levels
