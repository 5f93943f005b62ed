"""Truco as an arena :class:`~arena.game.boundary.Game`: the engine's rules behind the game boundary.

Importing this module registers :data:`TRUCO` (``arena/game/__init__.py`` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.game import narrate
from arena.game.boundary import register
from arena.game.fallback import fallback_action
from engine.actions import Action
from engine.apply import apply
from engine.errors import EngineError
from engine.events import Event, GameEnded, HandEnded
from engine.legal import legal_actions
from engine.observe import Observation, Viewer, Visible, observation, visible_events
from engine.rules import Rules
from engine.start import initial_events, new_game
from engine.state import State


class Truco:
    """Argentine Truco (docs/rules.md): two teams, seats alternate teams (seat % 2)."""

    name: str = "truco"
    error: type[Exception] = EngineError

    def players(self, rules: Rules) -> int:
        return rules.players

    def new_game(self, rules: Rules, seed: int) -> State:
        return new_game(rules, seed)

    def initial_events(self, state: State) -> list[Event]:
        return initial_events(state)

    def to_act(self, state: State) -> int:
        return state.to_act

    def legal_actions(self, state: State) -> list[Action]:
        return legal_actions(state)

    def apply(self, state: State, action: Action, seat: int) -> tuple[State, list[Event]]:
        return apply(state, action, seat)

    def observe(self, state: State, seat: int) -> Observation:
        return observation(state, seat)

    def visible(self, events: Sequence[Event], viewer: Viewer) -> tuple[Visible, ...]:
        return visible_events(events, viewer)

    def fallback(self, legal: Sequence[Action]) -> Action:
        return fallback_action(list(legal))

    def team(self, seat: int) -> int:
        return seat % 2

    def over(self, state: State) -> bool:
        return state.game_over

    def winner(self, state: State) -> int | None:
        return state.winner

    def score(self, state: State) -> tuple[int, int]:
        return state.score

    def closes(self, event: Event) -> bool:
        return isinstance(event, HandEnded | GameEnded)

    def describe(self, event: Event, seats: Sequence[str], teams: tuple[str, str]) -> str:
        return narrate.describe(event, seats, teams)


TRUCO: Final = Truco()
register(TRUCO)
