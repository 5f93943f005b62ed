"""The luck of a game, hand by hand, from its engine events (a replay's, or a game in play).

Each ``hand_started`` event holds the state at the deal (score, mano) and the deal itself, so
a hand's luck is a function of those alone: whatever was played before, the same deal at the
same state has the same luck. The seña draws of the hand (R-9) add their own term
(:func:`arena.luck.hand.sena_luck`, zero in model v1).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import msgspec

from arena.luck.hand import deal_luck, sena_luck
from arena.luck.model import LuckModel
from engine.events import (
    ActionTaken,
    EnvidoSettled,
    FlorSettled,
    GameEnded,
    HandEnded,
    HandStarted,
)
from engine.rules import Rules


class HandLuck(msgspec.Struct, frozen=True, kw_only=True):
    """One hand from team 0's side: the points each team scored in it, and the luck of its
    deal (and señas) in tantos and in the chance of winning the game. Team 1's luck is the
    opposite. ``adjusted`` is the hand's point difference minus its luck in tantos."""

    hand: int
    mano: int
    points: tuple[int, int]
    tantos: float
    win: float

    @property
    def adjusted(self) -> float:
        return self.points[0] - self.points[1] - self.tantos


class GameLuck(msgspec.Struct, frozen=True, kw_only=True):
    """One game from team 0's side: its hands, the final score, whether team 0 won, and the
    luck summed over the hands."""

    hands: tuple[HandLuck, ...]
    score: tuple[int, int]
    won: bool | None  # None: the game did not end (a forfeit)

    @property
    def tantos(self) -> float:
        return sum(h.tantos for h in self.hands)

    @property
    def win(self) -> float:
        return sum(h.win for h in self.hands)

    @property
    def adjusted_tantos(self) -> float:
        """The final point difference minus the luck in tantos."""
        return self.score[0] - self.score[1] - self.tantos

    @property
    def adjusted_win(self) -> float | None:
        """1 for a game won, 0 for one lost, minus the luck in game chance: an unbiased
        estimate of team 0's chance of winning with less of the cards in it."""
        return None if self.won is None else float(self.won) - self.win


def game_luck(model: LuckModel, rules: Rules, events: Iterable[object]) -> GameLuck:
    """The luck of one game from its events in order (anything not an engine event, such as
    a replay's decision records, is skipped)."""
    hands: list[HandLuck] = []
    start: HandStarted | None = None
    tantos = win = 0.0
    score = (0, 0)
    won: bool | None = None
    for event in events:
        kind = type(event)  # by identity: most events are actions, checked first and cheaply
        if kind is ActionTaken:
            if start is not None and event.sena is not None:  # type: ignore[attr-defined]
                action = cast(ActionTaken, event)
                team = action.seat % 2
                seen = sum(1 for seat in action.sena_seen_by if seat % 2 != team)
                extra = sena_luck(model, rules, start.score, start.mano, team, seen)
                tantos, win = tantos + extra.tantos, win + extra.win
        elif kind is HandStarted:
            start = cast(HandStarted, event)
            score = start.score
            luck = deal_luck(model, rules, start.score, start.mano, start.deal)
            tantos, win = luck.tantos, luck.win
        elif kind is HandEnded:
            if start is not None:
                score = cast(HandEnded, event).score
                hands.append(_hand(start, score, tantos, win))
                start = None
        elif kind is EnvidoSettled or kind is FlorSettled:
            score = cast(EnvidoSettled | FlorSettled, event).score
        elif kind is GameEnded:
            ended = cast(GameEnded, event)
            score, won = ended.score, ended.winner == 0
    if start is not None:  # a hand cut short by a forfeit: it was dealt, so its luck counts
        hands.append(_hand(start, score, tantos, win))
    return GameLuck(hands=tuple(hands), score=score, won=won)


def _hand(start: HandStarted, score: tuple[int, int], tantos: float, win: float) -> HandLuck:
    points = (score[0] - start.score[0], score[1] - start.score[1])
    return HandLuck(hand=start.hand, mano=start.mano, points=points, tantos=tantos, win=win)
