"""Truco rules engine: pure, deterministic from (rules, seed, actions), no I/O.

Public surface::

    from engine import Rules, new_game, legal_actions, apply, observation, Action

    state = new_game(Rules(), seed=7)
    while not state.game_over:
        action = legal_actions(state)[0]
        state, events = apply(state, action)
"""

from engine.actions import Action
from engine.apply import apply, legal_actions, replay
from engine.cards import DECK, Card, envido_points, flor_points, has_flor, parse_card, strength
from engine.errors import (
    CardError,
    EngineError,
    GameOverError,
    IllegalAction,
    InvalidAction,
    RulesError,
)
from engine.observe import Observation, observation
from engine.rules import Rules
from engine.start import new_game
from engine.state import State

__all__ = [
    "DECK",
    "Action",
    "Card",
    "CardError",
    "EngineError",
    "GameOverError",
    "IllegalAction",
    "InvalidAction",
    "Observation",
    "Rules",
    "RulesError",
    "State",
    "apply",
    "envido_points",
    "flor_points",
    "has_flor",
    "legal_actions",
    "new_game",
    "observation",
    "parse_card",
    "replay",
    "strength",
]
