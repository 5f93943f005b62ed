"""Trivial strategies: ``random``, ``first`` and ``mazo`` (benchmarks and tests)."""

from __future__ import annotations

import random

from arena.bots.base import pick, words
from engine import Action, Observation


class RandomStrategy:
    """Uniform choice among the legal actions."""

    name = "random"

    def decide(self, obs: Observation, legal: list[Action], rng: random.Random) -> Action:
        return legal[rng.randrange(len(legal))]


class FirstStrategy:
    """Always the first legal action: the cheapest possible bot, for benchmarks."""

    name = "first"

    def decide(self, obs: Observation, legal: list[Action], rng: random.Random) -> Action:
        return legal[0]


class MazoStrategy:
    """Goes to the mazo whenever it may; otherwise the first legal action."""

    name = "mazo"

    def decide(self, obs: Observation, legal: list[Action], rng: random.Random) -> Action:
        return pick(legal, "mazo") if "mazo" in words(legal) else legal[0]
