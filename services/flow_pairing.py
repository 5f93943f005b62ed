"""The pure half of the tournament workflow: from stored entries and matches to the next
matches and the standings. No I/O; :mod:`services.flow` loads the rows and stores the plans.

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
from collections.abc import Sequence
from dataclasses import dataclass

from services.db.matches import MatchRow
from services.tournaments.brackets import (
    BYE,
    Bracket,
    champion,
    double_elimination,
    playable,
    resolve,
    single_elimination,
)
from services.tournaments.knockout import knockout_winner
from services.tournaments.model import MatchResult, Outcome, Player, Round
from services.tournaments.roundrobin import Fixture, round_robin
from services.tournaments.standings import Tiebreak, compute_standings
from services.tournaments.swiss import NoValidPairing, match_field, pairing_from
from services.tournaments.swiss_field import make_field
from services.tournaments.swiss_state import build_states

SWISS = "swiss"
ROUND_ROBIN = "round_robin"
SINGLE = "single_elimination"
DOUBLE = "double_elimination"
ELIMINATION = (SINGLE, DOUBLE)

ROUND_ROBIN_TIEBREAKS = (
    Tiebreak.MATCH_POINTS,
    Tiebreak.DIRECT_ENCOUNTER,
    Tiebreak.SONNEBORN_BERGER,
    Tiebreak.GAME_POINTS,
    Tiebreak.TANTOS_DIFFERENCE,
)
_BRACKET_COLUMN = {
    "winners": "main",
    "losers": "losers",
    "third_place": "main",
    "grand_final": "final",
    "reset": "final",
}


@dataclass(frozen=True, slots=True)
class Entrant:
    """A bot in a started event: its seed (1 = best) and whether it has left."""

    bot_id: int
    seed: int
    withdrawn: bool = False


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


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int
    bot_id: int
    points: float
    tiebreaks: dict[str, float]
    withdrawn: bool


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


def players(entrants: Sequence[Entrant]) -> list[Player]:
    """Pure-module players whose initial ranking is the seed order."""
    return [Player(id=e.bot_id, rating=-float(e.seed)) for e in entrants]


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
        for state in build_states(players(entrants), history(matches, number - 1))
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


def table_standings(
    entrants: Sequence[Entrant], matches: Sequence[MatchRow], format: str
) -> list[StandingRow]:
    order = ROUND_ROBIN_TIEBREAKS if format == ROUND_ROBIN else tuple(Tiebreak)
    withdrawn = {e.bot_id for e in entrants if e.withdrawn}
    rows = compute_standings(players(entrants), history(matches), order)
    return [
        StandingRow(
            rank=row.place,
            bot_id=_bot(row.id),
            points=row.values[Tiebreak.MATCH_POINTS],
            tiebreaks={k: v for k, v in row.values.items() if k != Tiebreak.MATCH_POINTS},
            withdrawn=_bot(row.id) in withdrawn,
        )
        for row in rows
    ]


# --- elimination ----------------------------------------------------------------------------


def make_bracket(format: str, entrants: int, *, third_place: bool = False) -> Bracket:
    if format == SINGLE:
        return single_elimination(entrants, third_place=third_place)
    return double_elimination(entrants, reset=True)


def depths(bracket: Bracket) -> dict[str, int]:
    """The round number of each bracket match: 1 + the deepest match it waits for."""
    found: dict[str, int] = {}
    for match in bracket.matches:
        sources = [s.winner_of or s.loser_of for s in (match.a, match.b)]
        found[match.id] = 1 + max((found[s] for s in sources if s is not None), default=0)
    return found


def seed_maps(entrants: Sequence[Entrant]) -> tuple[dict[int, int], dict[int, int]]:
    """(seed -> bot, bot -> seed)."""
    return {e.seed: e.bot_id for e in entrants}, {e.bot_id: e.seed for e in entrants}


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


def bracket_standings(
    bracket: Bracket, entrants: Sequence[Entrant], matches: Sequence[MatchRow]
) -> list[StandingRow]:
    """Champion first, then the final's loser, the third-place match's winner and loser,
    then everyone else by how late they were knocked out (later is better), then seed.
    ``points`` counts matches won (byes not included)."""
    by_seed, seeds = seed_maps(entrants)
    results = bracket_results(entrants, matches)
    state = resolve(bracket, results)
    order = {m.id: k for k, m in enumerate(bracket.matches)}
    wins = {e.bot_id: 0 for e in entrants}
    losses = {e.bot_id: 0 for e in entrants}
    out_at: dict[int, int] = {}  # bot -> order of the match that knocked it out
    lives = 1 if bracket.kind == "single" else 2
    for code, r in state.items():
        if r.void or r.winner is None or r.loser in (None, BYE):
            continue
        assert r.loser is not None
        winner, loser = by_seed[r.winner], by_seed[r.loser]
        wins[winner] += 1
        losses[loser] += 1
        if code != "3P" and losses[loser] >= lives:
            out_at[loser] = max(out_at.get(loser, -1), order[code])
    top: list[int] = []
    champ = champion(bracket, results)
    if champ is not None:
        top.append(by_seed[champ])
        final = state["GF2"] if bracket.kind == "double" and not state["GF2"].void else None
        final = final or state[bracket.final if bracket.kind == "single" else "GF"]
        if final.loser not in (None, BYE):
            assert final.loser is not None
            top.append(by_seed[final.loser])
        third = state.get("3P")
        if third is not None and third.winner is not None and third.loser not in (None, BYE):
            assert third.loser is not None
            top += [by_seed[third.winner], by_seed[third.loser]]
    rest = sorted(
        (bot for bot in seeds if bot not in top),
        key=lambda bot: (-out_at.get(bot, len(order)), seeds[bot]),
    )
    withdrawn = {e.bot_id for e in entrants if e.withdrawn}
    return [
        StandingRow(
            rank=k + 1,
            bot_id=bot,
            points=float(wins[bot]),
            tiebreaks={"losses": float(losses[bot]), "seed": float(seeds[bot])},
            withdrawn=bot in withdrawn,
        )
        for k, bot in enumerate(top + rest)
    ]
