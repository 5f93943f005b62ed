"""What a viewer may know (R-11): one observer, parameterised by who is looking.

A viewer is a seat (:class:`Seat`), a partnership (:class:`Partners`: the two seats of a team
together, as one server playing both seats of a "team" 2v2 entrant knows them) or a
:data:`SPECTATOR` of a live match. :func:`visible` gives an event as a viewer sees it:

* a new hand's ``hand_started`` loses its deal (:class:`HandShown`): nobody sees another
  seat's unplayed cards, and a seat's own cards are in its :class:`Observation`;
* a seña is kept only where it was addressed to the viewer (the actor, its partner, opponents
  by the R-9 draw); a spectator sees none;
* everything else is public: cards played, cantos and answers, declared points, and the cards
  proving a winning envido or flor, shown in ``hand_ended``.

:func:`observation` is everything one seat may know now: its own unplayed cards, the table, and
this hand's and the previous hand's events as that seat saw them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Final

import msgspec

from engine.cards import Card, envido_points, has_flor
from engine.events import ActionTaken, Event, HandStarted, RoundEnded
from engine.rules import Rules
from engine.state import TRUCO_LEVELS, State


class Seat(msgspec.Struct, frozen=True):
    """One seat: it sees the señas addressed to it."""

    seat: int


class Partners(msgspec.Struct, frozen=True):
    """The two seats of ``team`` together: a seña addressed to either of them."""

    team: int


class Spectator(msgspec.Struct, frozen=True):
    """Anyone watching a live match: no deal, no seña."""


SPECTATOR: Final = Spectator()
Viewer = Seat | Partners | Spectator


class HandShown(msgspec.Struct, frozen=True, tag="hand_started"):
    """A ``hand_started`` as a viewer sees it: the hand, its mano and the score, no deal."""

    hand: int
    mano: int
    score: tuple[int, int]


Visible = Event | HandShown


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


def sees_sena(event: ActionTaken, viewer: Viewer) -> bool:
    """Whether ``viewer`` saw the seña of ``event`` (R-9)."""
    if isinstance(viewer, Seat):
        return event.seat == viewer.seat or viewer.seat in event.sena_seen_by
    if isinstance(viewer, Partners):
        return any(s % 2 == viewer.team for s in (event.seat, *event.sena_seen_by))
    return False


def visible_action(event: ActionTaken, viewer: Viewer) -> ActionTaken:
    """An action as ``viewer`` sees it: without its seña unless the seña reached the viewer."""
    if event.sena is not None and not sees_sena(event, viewer):
        return msgspec.structs.replace(event, sena=None, sena_seen_by=())
    return event


def visible(event: Event, viewer: Viewer) -> Visible:
    """``event`` as ``viewer`` sees it (see the module docstring)."""
    if isinstance(event, HandStarted):
        return HandShown(event.hand, event.mano, event.score)
    if isinstance(event, ActionTaken):
        return visible_action(event, viewer)
    return event


def visible_events(events: Iterable[Event], viewer: Viewer) -> tuple[Visible, ...]:
    """Each event as ``viewer`` sees it, in order."""
    return tuple(visible(event, viewer) for event in events)


def _hand_events(events: tuple[Event, ...], seat: int, players: int) -> tuple[Event, ...]:
    """A hand's log as ``seat`` saw it (a hand's log holds no ``hand_started``: its deal).

    Only señas are seen differently, and there are none in 1v1 (R-9): there every seat sees
    the log as it is."""
    if players < 4:
        return events
    viewer = Seat(seat)
    return tuple(
        visible_action(event, viewer) if isinstance(event, ActionTaken) else event
        for event in events
        if not isinstance(event, HandStarted)
    )


# A seat's three cards recur in every observation of its hand: their envido points are
# worked out once (a deal is a tuple of card names).
_envido_points = functools.lru_cache(maxsize=4096)(envido_points)


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
        envido_points=_envido_points(own),
        has_flor=state.rules.flor and has_flor(own),
        round=state.round,
        rounds=tuple(rounds),
        round_winners=tuple(winners),
        truco=TRUCO_LEVELS[state.truco] or None,
        truco_pending=TRUCO_LEVELS[state.truco_pending] or None,
        envido=state.envido_chain,
        events=_hand_events(state.log, seat, state.players),
        previous_hand=_hand_events(state.previous, seat, state.players),
        game_over=state.game_over,
        winner=state.winner,
    )
