"""Swiss standings with tiebreaks in a configurable order.

Unplayed rounds follow FIDE's "virtual opponent" rule (Handbook C.02, 13.15.2 in the 2009-2022
tie-break regulations): a player without an opponent in round R (the bye, or absent) is deemed
to have played a virtual opponent who starts that round with the player's own score, gets the
opposite of the player's result in round R and draws every later round, so after ``n`` rounds
    Svon = S_before_R + (1 - S_R) + 0.5 · (n - R).
Opponents' own unplayed rounds count as draws when their score is used for Buchholz/SB.
The bye scores as a win (1 match point) but adds no games and no tantos.

Direct encounter is computed inside each group tied on every earlier key: the points each
player scored against the others of the group; it applies only when all of them met each
other (otherwise it is 0 for the whole group, so it breaks nothing).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from enum import StrEnum
from itertools import combinations, groupby

import msgspec

from services.tournaments.model import Player, PlayerId, Round, initial_order, validate


class Tiebreak(StrEnum):
    MATCH_POINTS = "match_points"
    BUCHHOLZ_CUT1 = "buchholz_cut1"
    BUCHHOLZ = "buchholz"
    SONNEBORN_BERGER = "sonneborn_berger"
    DIRECT_ENCOUNTER = "direct_encounter"
    GAME_POINTS = "game_points"
    TANTOS_DIFFERENCE = "tantos_difference"


DEFAULT_TIEBREAKS: tuple[Tiebreak, ...] = tuple(Tiebreak)


class Standing(msgspec.Struct, frozen=True):
    place: int
    id: PlayerId
    values: dict[str, float]


class _Card(msgspec.Struct):
    """One player's round-by-round record, in half points."""

    results2: list[int]  # per round: 2 win / 1 draw / 0 loss (bye = 2, absent = 0)
    opponents: list[PlayerId | None]  # None = unplayed (bye or absent)
    games: int = 0
    tantos_for: int = 0
    tantos_against: int = 0


def _cards(players: Sequence[Player], rounds: Sequence[Round]) -> dict[PlayerId, _Card]:
    cards = {p.id: _Card(results2=[], opponents=[]) for p in players}
    for round_ in rounds:
        seen: set[PlayerId] = set()
        for match in round_.matches:
            for pid in (match.a, match.b):
                card = cards[pid]
                card.results2.append(match.points2(pid))
                card.opponents.append(match.opponent(pid))
                won, _ = match.games(pid)
                tantos_for, tantos_against = match.tantos(pid)
                card.games += won
                card.tantos_for += tantos_for
                card.tantos_against += tantos_against
                seen.add(pid)
        for pid in round_.byes:
            cards[pid].results2.append(2)
            cards[pid].opponents.append(None)
            seen.add(pid)
        for pid, card in cards.items():
            if pid not in seen:
                card.results2.append(0)
                card.opponents.append(None)
    return cards


def _opponent_scores(cards: dict[PlayerId, _Card]) -> dict[PlayerId, list[tuple[int, int]]]:
    """Per player and round: (opponent's tie-break score in half points, own result in half)."""
    adjusted = {
        pid: sum(r if o is not None else 1 for r, o in zip(c.results2, c.opponents, strict=True))
        for pid, c in cards.items()
    }
    out: dict[PlayerId, list[tuple[int, int]]] = {}
    for pid, card in cards.items():
        rows = []
        n = len(card.results2)
        for r, (result, opp) in enumerate(zip(card.results2, card.opponents, strict=True)):
            if opp is None:
                before = sum(card.results2[:r])
                virtual = before + (2 - result) + (n - r - 1)
                rows.append((virtual, result))
            else:
                rows.append((adjusted[opp], result))
        out[pid] = rows
    return out


def _plain_values(cards: dict[PlayerId, _Card]) -> dict[PlayerId, dict[str, float]]:
    scores = _opponent_scores(cards)
    values: dict[PlayerId, dict[str, float]] = {}
    for pid, card in cards.items():
        opp = [s for s, _ in scores[pid]]
        buchholz2 = sum(opp)
        cut2 = buchholz2 - min(opp) if opp else 0
        sb4 = sum(s * r for s, r in scores[pid])
        values[pid] = {
            Tiebreak.MATCH_POINTS: sum(card.results2) / 2,
            Tiebreak.BUCHHOLZ_CUT1: cut2 / 2,
            Tiebreak.BUCHHOLZ: buchholz2 / 2,
            Tiebreak.SONNEBORN_BERGER: sb4 / 4,
            Tiebreak.DIRECT_ENCOUNTER: 0.0,
            Tiebreak.GAME_POINTS: float(card.games),
            Tiebreak.TANTOS_DIFFERENCE: float(card.tantos_for - card.tantos_against),
        }
    return values


def _direct_encounter(group: list[PlayerId], rounds: Sequence[Round]) -> dict[PlayerId, float]:
    members = set(group)
    points2: dict[PlayerId, int] = defaultdict(int)
    met: set[frozenset[PlayerId]] = set()
    for round_ in rounds:
        for match in round_.matches:
            if match.a in members and match.b in members:
                met.add(frozenset((match.a, match.b)))
                points2[match.a] += match.points2(match.a)
                points2[match.b] += match.points2(match.b)
    if any(frozenset(pair) not in met for pair in combinations(group, 2)):
        return {pid: 0.0 for pid in group}
    return {pid: points2[pid] / 2 for pid in group}


def compute_standings(
    players: Sequence[Player],
    rounds: Sequence[Round],
    order: Sequence[Tiebreak | str] = DEFAULT_TIEBREAKS,
) -> list[Standing]:
    """Standings, best first. Remaining ties keep the initial ranking (rating order)."""
    validate(list(players), list(rounds))
    keys = [Tiebreak(k) for k in order]
    values = _plain_values(_cards(players, rounds))
    ranked = [p.id for p in initial_order(list(players))]
    # Sort key by key so that direct encounter sees the groups tied on the earlier keys.
    blocks: list[list[PlayerId]] = [ranked]
    for key in keys:
        next_blocks: list[list[PlayerId]] = []
        for block in blocks:
            if key is Tiebreak.DIRECT_ENCOUNTER and len(block) > 1:
                for pid, value in _direct_encounter(block, rounds).items():
                    values[pid][key] = value
            block = sorted(block, key=lambda pid: -values[pid][key])
            for _, same in groupby(block, key=lambda pid: values[pid][key]):
                next_blocks.append(list(same))
        blocks = next_blocks
    final = [pid for block in blocks for pid in block]
    names = [k.value for k in DEFAULT_TIEBREAKS]
    return [
        Standing(place=k + 1, id=pid, values={name: values[pid][name] for name in names})
        for k, pid in enumerate(final)
    ]
