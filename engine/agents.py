"""Tiny in-process agents over the engine (no I/O): the benchmark's and the demo's players."""

from __future__ import annotations

import random

from engine.actions import Action
from engine.legal import legal_actions
from engine.state import State


class RandomAgent:
    """Uniform choice among the legal actions, from its own seeded PRNG."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, state: State) -> Action:
        options = legal_actions(state)
        return options[self._rng.randrange(len(options))]
