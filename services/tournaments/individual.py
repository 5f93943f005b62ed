"""The pure half of individual 2v2 events: next round's tables and the standings per bot.

In individual 2v2 every bot enters alone; each round the event seats the bots still in at
tables of four (:mod:`services.tournaments.partnerships`): two partnerships facing each other,
with partners and opponents from different owners and no repeated partner while others remain.
A table is a match with four entrants in slot order ``(a1, b1, a2, b2)`` (side = slot % 2).
The bots that sit a round out (when the field is not a multiple of four) get a bye: a
one-entrant match won by its side 0, as in Swiss.

* **Swiss**: ``rounds`` rounds (default :func:`services.tournaments.swiss.format.default_swiss_rounds`);
  tables are formed among bots of similar score.
* **Round robin**: enough rounds for every bot to partner every other once
  (:func:`~services.tournaments.partnerships.round_robin_rounds`); round ``k`` prefers the
  ``k``-th round of the circle method as its partnerships, so with a field that is a multiple
  of four, all owners different and nobody withdrawn, every pair of bots partners exactly once.

Each bot scores its side's result (1 a win, 0.5 a draw, 1 a bye). Standings per bot: points,
then (Swiss) Buchholz, the sum over its matches of the mean points of the two opponents it
faced, then games won by its side, then the tantos difference of its side, then seed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from services.tournaments.event import Plan, Planned, Played, SeededEntrant, StandingRow
from services.tournaments.partnerships import Candidate, Table, form_round
from services.tournaments.partnerships import round_robin_rounds as individual_rr_rounds
from services.tournaments.records import MatchRecord
from services.tournaments.round_robin.format import round_robin_rounds
from services.tournaments.table_format import TableFormat, plan_table

MIN_ENTRANTS = 4


def _tables(matches: Sequence[MatchRecord]) -> list[Table]:
    return [
        (m.seats[0], m.seats[1], m.seats[2], m.seats[3])
        for m in matches
        if len(m.seats) == 4 and m.status != "cancelled"
    ]


def _points2(matches: Sequence[MatchRecord]) -> Counter[int]:
    """Half points per bot from the finished matches (2 a win or bye, 1 a draw)."""
    points: Counter[int] = Counter()
    for match in matches:
        if not match.finished:
            continue
        for slot, bot in enumerate(match.bots):
            if match.winner_side is None:
                points[bot] += 1
            elif match.winner_side == slot % 2:
                points[bot] += 2
    return points


def total_rounds(format: TableFormat, entrants: int, wanted: int | None) -> int:
    """A fixed schedule: enough rounds for every bot to partner every other once; else the
    format's own count."""
    if format.fixed_schedule:
        return individual_rr_rounds(entrants)
    return format.total_rounds(wanted, entrants)


def plan_next(format: TableFormat, played: Played, matches: Sequence[MatchRecord]) -> Plan:
    """The format's round-by-round step with tables of four (at least :data:`MIN_ENTRANTS`
    bots still in)."""
    total = total_rounds(format, len(played.entrants), played.rounds_wanted)
    return plan_table(
        played,
        total,
        lambda number: plan_round(format, played.entrants, matches, number),
        min_entrants=MIN_ENTRANTS,
    )


def plan_round(
    format: TableFormat,
    entrants: Sequence[SeededEntrant],
    matches: Sequence[MatchRecord],
    number: int,
) -> list[Planned]:
    """Round ``number``: a four-bot match per table, a bye per bot sitting out."""
    points = _points2(matches)
    byes = Counter(m.bot0 for m in matches if m.bye)
    field = [
        Candidate(e.bot_id, e.owner, points[e.bot_id], e.seed, byes[e.bot_id])
        for e in entrants
        if not e.withdrawn
    ]
    preferred: list[tuple[int, int]] = []
    if format.fixed_schedule:
        schedule = round_robin_rounds(entrants)
        if schedule:
            preferred = [(f.mano, f.other) for f in schedule[(number - 1) % len(schedule)]]
    formed = form_round(
        field, _tables(matches), swiss=not format.fixed_schedule, preferred=preferred
    )
    plan = [Planned(number, table, board) for board, table in enumerate(formed.tables)]
    plan += [Planned(number, (bot,), len(plan) + k) for k, bot in enumerate(formed.byes)]
    return plan


def tiebreak_names(format: TableFormat) -> tuple[str, ...]:
    """The tiebreaks after points, in ranking order: Buchholz (Swiss only), the games won by
    the bot's sides, the tantos difference of its sides."""
    buchholz = () if format.fixed_schedule else ("buchholz",)
    return (*buchholz, "game_points", "tantos_difference")


def standings(
    format: TableFormat, entrants: Sequence[SeededEntrant], matches: Sequence[MatchRecord]
) -> list[StandingRow]:
    """Per bot: points (its side's results), then the tiebreaks of the module docstring."""
    points2 = _points2(matches)
    games: Counter[int] = Counter()
    tantos: Counter[int] = Counter()
    opponents: dict[int, list[tuple[int, int]]] = {e.bot_id: [] for e in entrants}
    for match in matches:
        if not match.finished or len(match.seats) != 4:
            continue
        won = match.games_won
        scored = match.tantos
        for slot, bot in enumerate(match.seats):
            side = slot % 2
            games[bot] += won[side]
            tantos[bot] += scored[side] - scored[1 - side]
            opponents.setdefault(bot, []).append((match.seats[1 - side], match.seats[3 - side]))
    buchholz = {
        bot: sum(points2[x] + points2[y] for x, y in faced) / 4 for bot, faced in opponents.items()
    }
    values: dict[str, dict[int, float]] = {
        "buchholz": buchholz,
        "game_points": {b: float(v) for b, v in games.items()},
        "tantos_difference": {b: float(v) for b, v in tantos.items()},
    }
    keys = [(name, values[name]) for name in tiebreak_names(format)]
    ordered = sorted(
        entrants,
        key=lambda e: (
            -points2[e.bot_id],
            *(-values.get(e.bot_id, 0.0) for _, values in keys),
            e.seed,
        ),
    )
    return [
        StandingRow(
            rank=k + 1,
            bot_id=e.bot_id,
            points=points2[e.bot_id] / 2,
            tiebreaks={name: values.get(e.bot_id, 0.0) for name, values in keys},
            withdrawn=e.withdrawn,
        )
        for k, e in enumerate(ordered)
    ]
