"""Built-in bot strategies: pure functions of one seat's observation, the legal actions and a
seeded PRNG (no I/O). ``get_strategy("heuristic")`` returns a fresh instance.

Names: ``random`` (uniform), ``heuristic`` (a reasonable player), ``weak-heuristic`` (the
heuristic playing a random legal action at a quarter of its decisions), ``first`` (always the
first legal action), ``mazo`` (goes to the mazo whenever it may), ``cautious`` and ``reckless``
(the heuristic with a timid and a bold style: :class:`arena.bots.heuristic.Style`).
"""

from __future__ import annotations

from collections.abc import Callable

from arena.bots.base import Strategy
from arena.bots.heuristic import CAUTIOUS, RECKLESS, WEAK_NOISE, HeuristicStrategy
from arena.bots.simple import FirstStrategy, MazoStrategy, RandomStrategy

BUILTINS: dict[str, Callable[[], Strategy]] = {
    "random": RandomStrategy,
    "heuristic": HeuristicStrategy,
    "weak-heuristic": lambda: HeuristicStrategy(noise=WEAK_NOISE, name="weak-heuristic"),
    "first": FirstStrategy,
    "mazo": MazoStrategy,
    "cautious": lambda: HeuristicStrategy(name="cautious", style=CAUTIOUS),
    "reckless": lambda: HeuristicStrategy(name="reckless", style=RECKLESS),
}


class UnknownStrategy(KeyError):
    """No built-in strategy has this name."""

    def __str__(self) -> str:
        return str(self.args[0])


def get_strategy(name: str) -> Strategy:
    """A new instance of the built-in strategy ``name``; raises :class:`UnknownStrategy`."""
    factory = BUILTINS.get(name)
    if factory is None:
        known = ", ".join(sorted(BUILTINS))
        raise UnknownStrategy(f"unknown strategy {name!r}; the built-in strategies are: {known}")
    return factory()


__all__ = ["BUILTINS", "Strategy", "UnknownStrategy", "get_strategy"]
