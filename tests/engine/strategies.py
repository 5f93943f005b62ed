"""Hypothesis strategies and tiny builders for engine tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

import msgspec
from hypothesis import strategies as st

from engine import Action, Rules, apply, legal_actions, new_game
from engine.actions import SENAS
from engine.cards import DECK
from engine.events import Event
from engine.start import initial_events
from engine.state import State

rules_strategy = st.builds(
    Rules,
    players=st.sampled_from([2, 4]),
    points_to_win=st.sampled_from([15, 30]),
    flor=st.booleans(),
    falta_envido=st.sampled_from(["to_target", "to_buenas"]),
    mazo_first_round_costs_two=st.booleans(),
    sena_seen_by_opponents=st.sampled_from([0.0, 0.25, 1.0]),
)

MAX_DECISIONS = 5000  # far above any real game: a hand scores at least 1 point


def random_game(rules: Rules, seed: int) -> Iterator[tuple[State, Action, State, list[Event]]]:
    """Play a random legal game: yields (before, action, after, events) for each decision.

    In 2v2 some actions carry a random seña and some a ``say``, so those paths are exercised.
    """
    rng = random.Random(seed)
    state = new_game(rules, seed)
    for _ in range(MAX_DECISIONS):
        if state.game_over:
            return
        options = legal_actions(state)
        action = options[rng.randrange(len(options))]
        extra: dict[str, str] = {}
        if rules.players == 4 and rng.random() < 0.3:
            extra["sena"] = rng.choice(SENAS)
        if rng.random() < 0.1:
            extra["say"] = "<b>¡Truco!</b> " * rng.randrange(3)
        if extra:
            action = Action(action.action, action.card, **extra)
        after, events = apply(state, action)
        yield state, action, after, events
        state = after
    raise AssertionError(f"game did not end within {MAX_DECISIONS} decisions")


def play_out(rules: Rules, seed: int) -> tuple[State, list[Action], list[Event]]:
    state = new_game(rules, seed)
    actions: list[Action] = []
    events: list[Event] = initial_events(state)
    for _, action, after, caused in random_game(rules, seed):
        actions.append(action)
        events.extend(caused)
        state = after
    return state, actions, events


DECK_SET = set(DECK)


def cards_in(value: object) -> set[str]:
    """Every card string that appears anywhere in a value (after msgspec.to_builtins)."""
    found: set[str] = set()

    def walk(item: object) -> None:
        if isinstance(item, str):
            if item in DECK_SET:
                found.add(item)
        elif isinstance(item, dict):
            for sub in item.values():
                walk(sub)
        elif isinstance(item, (list, tuple)):
            for sub in item:
                walk(sub)

    walk(msgspec.to_builtins(value))
    return found
