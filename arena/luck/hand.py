"""The luck of one deal: what the cards were worth to each team, against their exchange.

At a deal the state is fixed (rules, score, mano) and the cards are drawn. The model values
the deal ``v(state, deal)`` and the same deal with the teams' hands exchanged ``v(state,
σ(deal))``: σ gives the mano's hand to the seat after it and back, and (in 2v2) swaps the hands
of their partners the same way. The deck is shuffled uniformly, so a deal and its exchange are
equally likely, and

    luck(state, deal) = ½·[v(state, deal) − v(state, σ(deal))]

has mean zero over the deals of any state, exactly, whatever the model: ``luck(σ(d)) =
−luck(d)`` pairs every deal with one that cancels it. It is computed twice, on the hand's
expected point difference (tantos) and on the chance of winning the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, TypeVar

from arena.luck.hands import HandInfo, hand_info
from arena.luck.model import LuckModel
from engine.cards import Card
from engine.rules import Rules

T = TypeVar("T")


class DealLuck(NamedTuple):
    """A deal's luck for team 0 (team 1's is the opposite): in tantos, and in the chance of
    winning the game."""

    tantos: float
    win: float


def exchange(ordered: tuple[T, ...]) -> tuple[T, ...]:
    """σ on hands by positions from the mano: those at 0 and 1 exchanged, and at 2 and 3."""
    if len(ordered) == 2:
        return ordered[1], ordered[0]
    return ordered[1], ordered[0], ordered[3], ordered[2]


def exchanged_deal(deal: Sequence[T], mano: int) -> tuple[T, ...]:
    """σ on a deal by seats: the mano's hand and the next seat's exchanged, and (2v2) those of
    their partners."""
    players = len(deal)
    ordered = exchange(tuple(deal[(mano + p) % players] for p in range(players)))
    return tuple(ordered[(seat - mano) % players] for seat in range(players))


def deal_luck_of(
    model: LuckModel,
    rules: Rules,
    score: Sequence[int],
    mano: int,
    infos: tuple[HandInfo, ...],
) -> DealLuck:
    """The luck of a deal given as hand descriptions by seat (``infos[seat]``)."""
    tables = model.tables(rules)
    ordered = infos[mano:] + infos[:mano]  # by positions from the mano
    team = mano % 2
    win_row = tables.win[score[team]][score[1 - team]]
    diff_row = tables.diff[score[team]][score[1 - team]]
    k, above = tables.at(tables.value(ordered, rules.flor))
    j, above_x = tables.at(tables.value(exchange(ordered), rules.flor))
    # each side's value first, then their difference: luck(σ(d)) is exactly −luck(d)
    below, below_x = 1.0 - above, 1.0 - above_x
    tantos = (
        (below * diff_row[k] + above * diff_row[k + 1])
        - (below_x * diff_row[j] + above_x * diff_row[j + 1])
    ) / 2.0
    win = (
        (below * win_row[k] + above * win_row[k + 1])
        - (below_x * win_row[j] + above_x * win_row[j + 1])
    ) / 2.0
    return DealLuck(tantos, win) if team == 0 else DealLuck(-tantos, -win)


def deal_luck(
    model: LuckModel,
    rules: Rules,
    score: Sequence[int],
    mano: int,
    deal: Sequence[Sequence[Card]],
) -> DealLuck:
    """The luck for team 0 of ``deal`` (cards by seat) dealt at ``score`` with ``mano``."""
    return deal_luck_of(model, rules, score, mano, tuple(map(hand_info, deal)))


def sena_luck(
    model: LuckModel, rules: Rules, score: Sequence[int], mano: int, team: int, seen: int
) -> DealLuck:
    """The luck of one seña's visibility draws (R-9) for team 0: the seña of a seat of ``team``
    was seen by ``seen`` of the two opponents, each with chance ``p`` =
    ``rules.sena_seen_by_opponents``. With ``c`` the model's cost of a seen seña, the term is
    ``−c·(seen − 2p)`` for the seña's team: mean zero for any ``c``. Model v1 has ``c = 0``
    (the built-in bots make no señas, so nothing could be fitted): the term is zero, and the
    luck of a seña seen stays in the result."""
    cost = model.sena_value
    if not cost:
        return DealLuck(0.0, 0.0)
    own = -cost * (seen - 2.0 * rules.sena_seen_by_opponents)  # for the seña's team
    mano_team = mano % 2
    a, b = score[mano_team], score[1 - mano_team]
    tantos = own if team == mano_team else -own  # for the mano's team
    win = tantos * model.tables(rules).leverage[a][b]
    return DealLuck(tantos, win) if mano_team == 0 else DealLuck(-tantos, -win)
