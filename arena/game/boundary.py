"""The game boundary: everything the arena needs to know about a game, and nothing more.

The match runner (:mod:`arena.match.runner`), the replay verifier (:mod:`arena.match.replay`),
``truco check`` (:mod:`arena.conformance.check`) and the live feed (``services/live/publisher.py``) go
through a :class:`Game` and never call a game's rules directly. A game is a value with these
methods, in the spirit of OpenSpiel's ``Game`` object and Battlesnake's ``Ruleset``:

* a new game from rules and a seed, and the events that open it;
* whose turn it is, the legal actions, ``apply`` (returns the new state and the events);
* ``observe(state, seat)``: what one seat may know (the observation sent to its bot), and
  ``visible(events, viewer)``: the events as a viewer (a seat, a partnership, a spectator)
  may see them; one observer (``engine.observe``) does both;
* the fallback action played for a bot that faulted, a seat's team, the score and winner;
* which events close a stretch of play (a hand), and how to describe an event in one line.

A game registers itself, as OpenSpiel's games do: its module calls :func:`register` when it is
imported, and the package ``arena.game`` imports every game module, so :data:`GAMES` is full
whenever anything of ``arena.game`` is loaded. This module imports no game. Truco
(:mod:`arena.game.truco`) is the one game today; a second game is a package beside ``engine/``
with the same shape, one module here with an object meeting this protocol that registers it,
and one import in ``arena/game/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, TypeVar

from engine.actions import Action
from engine.events import Event
from engine.observe import Observation, Viewer, Visible
from engine.rules import Rules
from engine.state import State

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")
O_co = TypeVar("O_co", covariant=True)
R_contra = TypeVar("R_contra", contravariant=True)
V_co = TypeVar("V_co", covariant=True)


class Game(Protocol[S, A, E, O_co, R_contra, V_co]):
    """A game as the arena sees it: S state, A action, E event, O observation, R rules,
    V an event as a viewer sees it."""

    name: str
    error: type[Exception]
    """What ``apply`` raises for an action that is malformed or not legal now."""

    def players(self, rules: R_contra) -> int:
        """The number of seats a game under ``rules`` has."""
        ...

    def new_game(self, rules: R_contra, seed: int) -> S:
        """A new game: deterministic from ``rules`` and ``seed``."""
        ...

    def initial_events(self, state: S) -> list[E]:
        """The events that open a new game (a Truco deal)."""
        ...

    def to_act(self, state: S) -> int:
        """The seat that must act now."""
        ...

    def legal_actions(self, state: S) -> list[A]:
        """The legal actions of the seat to act."""
        ...

    def apply(self, state: S, action: A, seat: int) -> tuple[S, list[E]]:
        """``seat`` plays ``action``: the new state and the events it caused (raises the
        game's error for an illegal or malformed action)."""
        ...

    def observe(self, state: S, seat: int) -> O_co:
        """Everything ``seat`` may know now (what its bot is sent), and nothing more."""
        ...

    def visible(self, events: Sequence[E], viewer: Viewer) -> Sequence[V_co]:
        """``events`` as ``viewer`` may see them."""
        ...

    def fallback(self, legal: Sequence[A]) -> A:
        """The action played for a seat whose bot faulted (documented in docs/protocol.md)."""
        ...

    def team(self, seat: int) -> int:
        """The team (0 or 1) a seat plays for."""
        ...

    def over(self, state: S) -> bool: ...

    def winner(self, state: S) -> int | None:
        """The winning team of a finished game."""
        ...

    def score(self, state: S) -> tuple[int, int]:
        """The score by team."""
        ...

    def closes(self, event: E) -> bool:
        """Whether ``event`` ends a stretch of play spectators want at once (a Truco hand or
        game): the live feed writes its batch there."""
        ...

    def describe(self, event: E, seats: Sequence[str], teams: tuple[str, str]) -> str:
        """One sentence for ``event``, with the players named by seat and the teams' names
        (the game's narration: for Truco :mod:`arena.game.narrate`)."""
        ...


TrucoGame = Game[State, Action, Event, Observation, Rules, Visible]
"""The game the match record (:mod:`arena.match.replay`) is written for."""

GAMES: Final[dict[str, TrucoGame]] = {}
"""Every game the arena plays, by name: each registers itself (today: Truco)."""


def register(game: TrucoGame) -> None:
    """Make ``game`` known by its name; a second, different game under a taken name is a
    ValueError (registering the same object again changes nothing)."""
    known = GAMES.setdefault(game.name, game)
    if known is not game:
        raise ValueError(f"a game named {game.name!r} is already registered")


def game_named(name: str) -> TrucoGame:
    """The registered game called ``name`` (KeyError for another)."""
    return GAMES[name]


__all__ = ["GAMES", "Game", "TrucoGame", "game_named", "register"]
