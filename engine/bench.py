"""Random-vs-random games in one process: the engine's speed benchmark (pure, no I/O)."""

from __future__ import annotations

import random
import time

import msgspec

from engine.apply import apply
from engine.events import HandEnded
from engine.legal import legal_actions
from engine.rules import Rules
from engine.start import new_game


class BenchResult(msgspec.Struct):
    games: int
    hands: int
    decisions: int
    seconds: float
    hands_per_s: float
    decisions_per_s: float
    us_per_decision: float
    players: int
    flor: bool
    points_to_win: int


def run_bench(games: int, seed: int, rules: Rules) -> BenchResult:
    """Play ``games`` games, choosing uniformly among legal actions; count and time them."""
    rng = random.Random(seed)
    randrange = rng.randrange
    hands = decisions = 0
    start = time.perf_counter()
    for game in range(games):
        state = new_game(rules, seed + game)
        while not state.game_over:
            options = legal_actions(state)
            state, events = apply(state, options[randrange(len(options))])
            decisions += 1
            for event in events:
                if event.__class__ is HandEnded:
                    hands += 1
    seconds = time.perf_counter() - start
    return BenchResult(
        games=games,
        hands=hands,
        decisions=decisions,
        seconds=round(seconds, 4),
        hands_per_s=round(hands / seconds, 1),
        decisions_per_s=round(decisions / seconds, 1),
        us_per_decision=round(1e6 * seconds / max(decisions, 1), 2),
        players=rules.players,
        flor=rules.flor,
        points_to_win=rules.points_to_win,
    )
