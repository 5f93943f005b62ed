"""Tournament formats: one object per format, found by its name in :data:`FORMATS`.

A format owns how its standings are ranked. The table formats (Swiss, round robin) rank by
match points, then by their own tiebreaks in their own order, over the complete rounds; the
bracket formats (single and double elimination) rank by how far each bot went. The API and the
web page both take their standings from :meth:`Format.standings` (through
:func:`services.flow.standings`), so one event is never ranked two ways.

Everything here is pure: the workflow turns its stored matches into :class:`Played` first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from services.tournaments.brackets import (
    BYE,
    Bracket,
    champion,
    double_elimination,
    resolve,
    single_elimination,
)
from services.tournaments.model import Player, Round
from services.tournaments.standings import Tiebreak, compute_standings


class UnknownFormat(ValueError):
    """No format of that name is registered."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A bot in a started event: its seed (1 = best), whether it has left, and its owner (an
    account: individual 2v2 keeps one owner's bots apart)."""

    bot_id: int
    seed: int
    withdrawn: bool = False
    owner: int = 0


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of the standings; ``tiebreaks`` holds the values named by the format's
    :attr:`Format.columns` after the first (``points``)."""

    rank: int
    bot_id: int
    points: float
    tiebreaks: dict[str, float]
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class Played:
    """What a started event has played, in the pure modules' terms.

    ``rounds`` are the complete rounds (no match still to play), for the table formats;
    ``bracket_results`` maps each decided bracket match id to its winning seed.
    """

    entrants: tuple[Entrant, ...]
    rounds: tuple[Round, ...] = ()
    bracket_results: Mapping[str, int] = field(default_factory=dict)
    third_place: bool = False


class Format(Protocol):
    """What every tournament format provides for its standings."""

    @property
    def name(self) -> str:
        """The stored and API name (``"swiss"``)."""
        ...

    @property
    def title(self) -> str:
        """The name people read (``"Swiss"``)."""
        ...

    @property
    def is_bracket(self) -> bool:
        """Whether the event is drawn as a bracket (else as rounds of a table)."""
        ...

    @property
    def columns(self) -> tuple[str, ...]:
        """The standings' columns in ranking order: the first is ``points``, the others are
        keys of :attr:`StandingRow.tiebreaks`."""
        ...

    def standings(self, played: Played) -> list[StandingRow]:
        """The standings of ``played``, best first."""
        ...


def seeded_players(entrants: Sequence[Entrant]) -> list[Player]:
    """Pure-module players whose initial ranking is the seed order."""
    return [Player(id=e.bot_id, rating=-float(e.seed)) for e in entrants]


def seed_maps(entrants: Sequence[Entrant]) -> tuple[dict[int, int], dict[int, int]]:
    """(seed -> bot, bot -> seed)."""
    return {e.seed: e.bot_id for e in entrants}, {e.bot_id: e.seed for e in entrants}


@dataclass(frozen=True, slots=True)
class TableFormat:
    """Swiss and round robin: match points, then ``tiebreaks`` in order, then seed."""

    name: str
    title: str
    tiebreaks: tuple[Tiebreak, ...]
    is_bracket: ClassVar[bool] = False

    @property
    def columns(self) -> tuple[str, ...]:
        return (Tiebreak.MATCH_POINTS.value, *(k.value for k in self.tiebreaks))

    def standings(self, played: Played) -> list[StandingRow]:
        order = (Tiebreak.MATCH_POINTS, *self.tiebreaks)
        withdrawn = {e.bot_id for e in played.entrants if e.withdrawn}
        rows = compute_standings(seeded_players(played.entrants), played.rounds, order)
        return [
            StandingRow(
                rank=row.place,
                bot_id=int(row.id),
                points=row.values[Tiebreak.MATCH_POINTS],
                tiebreaks={k: v for k, v in row.values.items() if k != Tiebreak.MATCH_POINTS},
                withdrawn=int(row.id) in withdrawn,
            )
            for row in rows
        ]


@dataclass(frozen=True, slots=True)
class BracketFormat:
    """Single or double elimination: champion first, then the final's loser, the third-place
    match's winner and loser, then everyone else by how late they were knocked out (later is
    better), then seed. ``points`` counts matches won (byes not included)."""

    name: str
    title: str
    double: bool
    is_bracket: ClassVar[bool] = True
    columns: ClassVar[tuple[str, ...]] = ("wins", "losses", "seed")

    def make_bracket(self, entrants: int, *, third_place: bool = False) -> Bracket:
        if self.double:
            return double_elimination(entrants, reset=True)
        return single_elimination(entrants, third_place=third_place)

    def standings(self, played: Played) -> list[StandingRow]:
        bracket = self.make_bracket(len(played.entrants), third_place=played.third_place)
        by_seed, seeds = seed_maps(played.entrants)
        results = dict(played.bracket_results)
        state = resolve(bracket, results)
        order = {m.id: k for k, m in enumerate(bracket.matches)}
        wins = dict.fromkeys(seeds, 0)
        losses = dict.fromkeys(seeds, 0)
        out_at: dict[int, int] = {}  # bot -> order of the match that knocked it out
        lives = 2 if self.double else 1
        for code, r in state.items():
            if r.void or r.winner is None or r.loser is None or r.loser == BYE:
                continue
            winner, loser = by_seed[r.winner], by_seed[r.loser]
            wins[winner] += 1
            losses[loser] += 1
            if code != "3P" and losses[loser] >= lives:
                out_at[loser] = max(out_at.get(loser, -1), order[code])
        top: list[int] = []
        champ = champion(bracket, results)
        if champ is not None:
            top.append(by_seed[champ])
            final = state["GF2"] if self.double and not state["GF2"].void else None
            final = final or state["GF" if self.double else bracket.final]
            if final.loser is not None and final.loser != BYE:
                top.append(by_seed[final.loser])
            third = state.get("3P")
            if third is not None and third.winner is not None and third.loser not in (None, BYE):
                assert third.loser is not None
                top += [by_seed[third.winner], by_seed[third.loser]]
        rest = sorted(
            (bot for bot in seeds if bot not in top),
            key=lambda bot: (-out_at.get(bot, len(order)), seeds[bot]),
        )
        withdrawn = {e.bot_id for e in played.entrants if e.withdrawn}
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


SWISS = TableFormat("swiss", "Swiss", tuple(Tiebreak)[1:])
ROUND_ROBIN = TableFormat(
    "round_robin",
    "Round robin",
    (
        Tiebreak.DIRECT_ENCOUNTER,
        Tiebreak.SONNEBORN_BERGER,
        Tiebreak.GAME_POINTS,
        Tiebreak.TANTOS_DIFFERENCE,
    ),
)
SINGLE_ELIMINATION = BracketFormat("single_elimination", "Single elimination", double=False)
DOUBLE_ELIMINATION = BracketFormat("double_elimination", "Double elimination", double=True)

FORMATS: Mapping[str, Format] = {
    f.name: f for f in (SWISS, SINGLE_ELIMINATION, DOUBLE_ELIMINATION, ROUND_ROBIN)
}


def get_format(name: str) -> Format:
    """The registered format called ``name``; :class:`UnknownFormat` otherwise."""
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownFormat(f"unknown tournament format {name!r}") from None


def bracket_format(name: str) -> BracketFormat:
    """The registered bracket format called ``name``; :class:`UnknownFormat` otherwise."""
    found = get_format(name)
    if not isinstance(found, BracketFormat):
        raise UnknownFormat(f"{name!r} is not a bracket format")
    return found
