"""Strategy against strategy, in process: ``evaluate(a, b, games=200, seed=1, rules=Rules())``.

Games come in pairs with the same deals and the seats swapped (game ``2k`` gives ``a`` team 0,
game ``2k+1`` team 1, both dealt from seed ``seed + k``), so card luck mostly cancels out. In 2v2
one strategy plays both seats of its team, each seat deciding from its own observation only.
Every strategy gets its own PRNG per game, derived from the seed: the result is deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from arena.bots import get_strategy
from arena.bots.base import Strategy
from engine import Rules, apply, legal_actions, new_game, observation
from engine.errors import IllegalAction
from engine.events import Event
from engine.start import initial_events

StrategySpec = str | Callable[[], Strategy]


@dataclass(frozen=True)
class Evaluation:
    """Totals over all games, from ``a``'s side: games won and points scored by each."""

    a: str
    b: str
    games: int
    wins_a: int
    wins_b: int
    points_a: int
    points_b: int
    decisions: int

    @property
    def win_rate_a(self) -> float:
        return self.wins_a / self.games if self.games else 0.0


def _make(spec: StrategySpec) -> Strategy:
    return get_strategy(spec) if isinstance(spec, str) else spec()


def play_game(
    strategies: tuple[Strategy, Strategy], rules: Rules, seed: int, rng_seed: str
) -> tuple[int, tuple[int, int], int]:
    """One game: ``strategies[t]`` plays team ``t``. Returns (winner team, score, decisions).

    Raises :class:`IllegalAction` naming the strategy if it ever returns an illegal action.
    """
    rngs = (random.Random(f"{rng_seed}/team0"), random.Random(f"{rng_seed}/team1"))
    state = new_game(rules, seed)
    decisions = 0
    while not state.game_over:
        seat = state.to_act
        team = seat % 2
        legal = legal_actions(state)
        action = strategies[team].decide(observation(state, seat), legal, rngs[team])
        if not any(o.action == action.action and o.card == action.card for o in legal):
            name = strategies[team].name
            raise IllegalAction(f"strategy {name!r} chose {action}, not legal now")
        state, _ = apply(state, action)
        decisions += 1
    assert state.winner is not None
    return state.winner, state.score, decisions


def game_events(
    strategies: tuple[Strategy, Strategy], rules: Rules, seed: int, rng_seed: str
) -> Iterator[Event]:
    """One game as :func:`play_game` plays it (the same bots' streams), as its events: the
    opening deal, then what every action caused."""
    rngs = (random.Random(f"{rng_seed}/team0"), random.Random(f"{rng_seed}/team1"))
    state = new_game(rules, seed)
    yield from initial_events(state)
    while not state.game_over:
        seat = state.to_act
        team = seat % 2
        action = strategies[team].decide(observation(state, seat), legal_actions(state), rngs[team])
        state, events = apply(state, action)
        yield from events


def evaluate(
    a: StrategySpec,
    b: StrategySpec,
    games: int = 200,
    seed: int = 1,
    rules: Rules | None = None,
) -> Evaluation:
    """Play ``games`` games between ``a`` and ``b`` (seats alternating); ``a``'s totals first."""
    rules = rules or Rules()
    wins = [0, 0]
    points = [0, 0]
    decisions = 0
    names = ("", "")
    for game in range(games):
        a_team = game % 2
        sa, sb = _make(a), _make(b)
        names = (sa.name, sb.name)
        pair = (sa, sb) if a_team == 0 else (sb, sa)
        winner, score, count = play_game(pair, rules, seed + game // 2, f"{seed}/{game}")
        decisions += count
        wins[0 if winner == a_team else 1] += 1
        points[0] += score[a_team]
        points[1] += score[1 - a_team]
    return Evaluation(names[0], names[1], games, wins[0], wins[1], points[0], points[1], decisions)
