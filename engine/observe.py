"""What one seat may know (R-11): ``observation(state, seat)``.

A seat sees its own unplayed cards, every card played, every canto and answer, declared points,
the señas addressed to it, scores, mano and whose turn it is. It never sees another seat's
unplayed cards; the cards proving a winning envido or flor appear in the ``hand_ended`` event.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from engine.cards import Card, envido_points, has_flor
from engine.events import ActionTaken, Event, HandStarted, RoundEnded
from engine.rules import Rules
from engine.state import TRUCO_LEVELS, State


class Observation(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    team: int
    players: int
    rules: Rules
    hand: int
    mano: int
    to_act: int  # -1 once the game is over
    score: tuple[int, int]
    cards: tuple[Card, ...]  # this seat's unplayed cards
    envido_points: int  # of this seat's three cards, as if flor were off
    has_flor: bool
    round: int
    rounds: tuple[tuple[tuple[int, Card], ...], ...]  # plays of each round, the current last
    round_winners: tuple[int | None, ...]  # team of each finished round, None for parda
    truco: str | None  # accepted truco level
    truco_pending: str | None  # the truco level waiting for an answer
    envido: tuple[str, ...]  # envido cantos sung this hand
    events: tuple[Event, ...]  # this hand so far, as this seat saw it
    previous_hand: tuple[Event, ...]  # the last finished hand, as this seat saw it
    game_over: bool
    winner: int | None


def seat_view(events: Iterable[Event], seat: int) -> tuple[Event, ...]:
    """Events as ``seat`` may see them: deals hidden, señas kept only where addressed to it."""
    seen: list[Event] = []
    for event in events:
        if isinstance(event, HandStarted):
            continue
        if (
            isinstance(event, ActionTaken)
            and event.sena is not None
            and event.seat != seat
            and seat not in event.sena_seen_by
        ):
            event = msgspec.structs.replace(event, sena=None, sena_seen_by=())
        seen.append(event)
    return tuple(seen)


def spectator_view(events: Iterable[Event]) -> tuple[Event, ...]:
    """What every seat sees: no deals and no señas (a spectator of a live match)."""
    seen: list[Event] = []
    for event in events:
        if isinstance(event, HandStarted):
            continue
        if isinstance(event, ActionTaken) and event.sena is not None:
            event = msgspec.structs.replace(event, sena=None, sena_seen_by=())
        seen.append(event)
    return tuple(seen)


def observation(state: State, seat: int) -> Observation:
    """Everything ``seat`` may know now, and nothing more."""
    if not 0 <= seat < state.players:
        raise ValueError(f"seat must be from 0 to {state.players - 1}, got {seat}")
    rounds: list[tuple[tuple[int, Card], ...]] = []
    winners: list[int | None] = []
    for event in state.log:
        if isinstance(event, RoundEnded):
            rounds.append(event.plays)
            winners.append(event.winner)
    if not state.game_over:
        rounds.append(state.trick)
    own = state.deal[seat]
    return Observation(
        seat=seat,
        team=seat % 2,
        players=state.players,
        rules=state.rules,
        hand=state.hand,
        mano=state.mano,
        to_act=state.to_act,
        score=state.score,
        cards=state.cards[seat],
        envido_points=envido_points(own),
        has_flor=state.rules.flor and has_flor(own),
        round=state.round,
        rounds=tuple(rounds),
        round_winners=tuple(winners),
        truco=TRUCO_LEVELS[state.truco] or None,
        truco_pending=TRUCO_LEVELS[state.truco_pending] or None,
        envido=state.envido_chain,
        events=seat_view(state.log, seat),
        previous_hand=seat_view(state.previous, seat),
        game_over=state.game_over,
        winner=state.winner,
    )
