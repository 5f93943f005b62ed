"""The bracket formats, single and double elimination (:mod:`services.tournaments.brackets.bracket`).

The seeds' slots are filled from the entrants' seeds. A match is created the moment both its
entrants are known; its round is its depth (1 + the deepest match it waits for). Standings:
champion first, then the final's loser, the third-place match's winner and loser, then everyone
else by how late they were knocked out (later is better), then seed; ``points`` counts matches
won (byes not included).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from services.tournaments.brackets.bracket import (
    BYE,
    Bracket,
    champion,
    double_elimination,
    playable,
    resolve,
    single_elimination,
)
from services.tournaments.event import Plan, Planned, Played, StandingRow, seed_maps

COLUMN_OF_KIND = {
    "winners": "main",
    "losers": "losers",
    "third_place": "main",
    "grand_final": "final",
    "reset": "final",
}
"""The page column (stored as the match's ``bracket``) of each kind of bracket match."""


def depths(bracket: Bracket) -> dict[str, int]:
    """The round number of each bracket match: 1 + the deepest match it waits for."""
    found: dict[str, int] = {}
    for match in bracket.matches:
        sources = [s.winner_of or s.loser_of for s in (match.a, match.b)]
        found[match.id] = 1 + max((found[s] for s in sources if s is not None), default=0)
    return found


def finished_depths(bracket: Bracket, results: Mapping[str, int]) -> frozenset[int]:
    """Round numbers whose every bracket match is decided (played, bye or not needed)."""
    level = depths(bracket)
    open_levels = {level[code] for code, r in resolve(bracket, results).items() if r.winner is None}
    return frozenset(set(level.values()) - open_levels)


@dataclass(frozen=True, slots=True)
class BracketFormat:
    """Single (``double=False``) or double elimination."""

    name: str
    title: str
    double: bool
    is_bracket: ClassVar[bool] = True
    individual: ClassVar[bool] = False
    offers_trf: ClassVar[bool] = False
    columns: ClassVar[tuple[str, ...]] = ("wins", "losses", "seed")

    def make_bracket(self, entrants: int, *, third_place: bool = False) -> Bracket:
        if self.double:
            return double_elimination(entrants, reset=True)
        return single_elimination(entrants, third_place=third_place)

    def settle_rounds(self, wanted: int | None, entrants: int) -> int | None:
        """The bracket fixes the round count; the organiser's is kept as given (ignored)."""
        return wanted

    def plan_next(self, played: Played) -> Plan:
        """Mark the decided depths done; the end once there is a champion; else every ready
        match that has no row yet."""
        bracket = self.make_bracket(len(played.entrants), third_place=played.third_place)
        results = played.bracket_results
        done = finished_depths(bracket, results)
        if champion(bracket, results) is not None:
            return Plan(done_rounds=done, finished=True)
        by_seed, _ = seed_maps(played.entrants)
        level = depths(bracket)
        kinds = {m.id: m.bracket for m in bracket.matches}
        order = {m.id: k for k, m in enumerate(bracket.matches)}
        planned = tuple(
            Planned(
                level[code],
                (by_seed[a], by_seed[b]),
                order[code],
                COLUMN_OF_KIND[kinds[code]],
                code,
            )
            for code, a, b in playable(bracket, results)
            if code not in played.bracket_created
        )
        return Plan(planned, done)

    def champion(self, played: Played) -> int | None:
        """The winning bot, once there is one."""
        bracket = self.make_bracket(len(played.entrants), third_place=played.third_place)
        seed = champion(bracket, played.bracket_results)
        return None if seed is None else seed_maps(played.entrants)[0][seed]

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


SINGLE_ELIMINATION = BracketFormat("single_elimination", "Single elimination", double=False)
DOUBLE_ELIMINATION = BracketFormat("double_elimination", "Double elimination", double=True)
