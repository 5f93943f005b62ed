"""What a person's seat has seen of their match, event by event, as it happens (docs/play.md).

Kept by whoever plays the session (:mod:`services.play.session`), written to Redis item by
item, read from there by every API process.

The runner's progress hook (:data:`arena.match.runner.Progress`) hands every decision and the
events it caused to :meth:`PlayLog.record`, which keeps them as the person's seat sees them
(``engine.observe``, R-9 and R-11): a deal holds the person's own three cards and nothing of
another seat's, a seña stays only where it reached the person. The page's table narrates the
log (the bot's move, its truco, the envido points declared, the cards shown at a hand's end),
so nothing happens off screen, even a hand that ends without the person being asked to act.

The items are numbered over the whole match; a client asks for those from a number on
(``?since=``) and drops any it holds already. Each game's seating (who sits where, and who is
the person, their partner, a rival) is kept beside them.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from arena.game.truco import TRUCO
from arena.match.replay import Decision
from arena.match.runner import seat_entrants
from arena.wire.faults import FaultKind
from engine.events import Event, HandStarted
from engine.observe import Seat
from engine.state import State
from services.play.items import PlayLogItem, PlaySeat, PlaySeating, Role


def person_seat(game_index: int, entrants: int, players: int) -> int:
    """The seat of entrant 0 (the person) in game ``game_index``."""
    return seat_entrants(game_index, entrants, players).index(0)


class DealSeen(msgspec.Struct, frozen=True, tag_field="type", tag="hand_started"):
    """A hand's deal as the person sees it: their own cards, the others' as nulls."""

    hand: int
    mano: int
    score: list[int]
    deal: list[list[str | None]]


class DecisionSeen(
    msgspec.Struct, frozen=True, tag_field="type", tag="decision", omit_defaults=True
):
    """Who decided, how fast, and the fault if the answer was the fallback."""

    seat: int
    latency_ms: float
    fault: FaultKind | None = None


def _deal_seen(event: HandStarted, seat: int) -> DealSeen:
    return DealSeen(
        hand=event.hand,
        mano=event.mano,
        score=list(event.score),
        deal=[
            list(cards) if s == seat else [None] * len(cards) for s, cards in enumerate(event.deal)
        ],
    )


class PlayLog:
    """The person's log of a match whose entrants are ``names`` in slot order (the person
    first; 1v1: the bot; 2v2: the bot, the partner, the bot again), ``players`` a table."""

    def __init__(self, names: Sequence[str], players: int) -> None:
        self.names = tuple(names)
        self.players = players
        self.items: list[PlayLogItem] = []
        self.seating: list[PlaySeating] = []
        self.game_starts: list[int] = []
        self.to_act: int | None = None

    def seat_of_person(self, game_index: int) -> int:
        return person_seat(game_index, len(self.names), self.players)

    def _seating(self, game_index: int) -> PlaySeating:
        entrants = seat_entrants(game_index, len(self.names), self.players)
        you = entrants.index(0)
        seats = []
        for seat, entrant in enumerate(entrants):
            role: Role = "you" if seat == you else "partner" if seat % 2 == you % 2 else "rival"
            seats.append(PlaySeat(seat=seat, role=role, name=self.names[entrant]))
        return PlaySeating(game=game_index + 1, seats=seats)

    def record(
        self, game_index: int, state: State, decision: Decision | None, events: Sequence[Event]
    ) -> None:
        """The runner's progress hook: keep ``decision`` and ``events`` as the person sees them."""
        game = game_index + 1
        if decision is None and len(self.seating) < game:
            self.seating.append(self._seating(game_index))
            self.game_starts.append(len(self.items))
        seat = self.seat_of_person(game_index)
        if decision is not None:
            self._add(
                game,
                DecisionSeen(
                    seat=decision.seat,
                    latency_ms=round(decision.latency_ms, 1),
                    fault=decision.fault,
                ),
            )
        viewer = Seat(seat)
        for event, seen in zip(events, TRUCO.visible(events, viewer), strict=True):
            if isinstance(event, HandStarted):
                self._add(game, _deal_seen(event, seat))
            else:
                self._add(game, seen)
        self.to_act = None if TRUCO.over(state) else TRUCO.to_act(state)

    def _add(self, game: int, event: object) -> None:
        raw = msgspec.Raw(msgspec.json.encode(event))
        self.items.append(PlayLogItem(n=len(self.items), game=game, event=raw))

    def since(self, first: int | None) -> list[PlayLogItem]:
        """The items from number ``first`` on; without it, those of the current game."""
        if first is None:
            first = self.game_starts[-1] if self.game_starts else 0
        return self.items[max(0, first) :]
