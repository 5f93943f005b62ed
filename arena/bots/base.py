"""The strategy interface of the built-in bots, and small helpers they share.

A strategy is pure: it decides from one seat's :class:`engine.Observation`, the legal actions
and a seeded :class:`random.Random`, with no I/O, so games between strategies are replayable.
"""

from __future__ import annotations

import random
from typing import Protocol

from engine import Action, Observation


class Strategy(Protocol):
    """A bot's brain. ``decide`` must return one of ``legal`` (possibly with ``say``/``sena``)."""

    name: str

    def decide(self, obs: Observation, legal: list[Action], rng: random.Random) -> Action: ...


def words(legal: list[Action]) -> set[str]:
    """The action words among ``legal``."""
    return {option.action for option in legal}


def pick(legal: list[Action], word: str) -> Action:
    """The legal action with this word (not for ``play``, which has one action per card)."""
    for option in legal:
        if option.action == word:
            return option
    raise ValueError(f"{word!r} is not among the legal actions")
