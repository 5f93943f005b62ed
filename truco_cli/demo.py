"""`truco demo`: one game between two built-in agents, printed hand by hand."""

from __future__ import annotations

import argparse

from arena.game.narrate import log_line
from engine.agents import RandomAgent
from engine.apply import apply
from engine.rules import Rules
from engine.start import initial_events, new_game


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=2026, help="seed of the deal and the agents")
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--points", type=int, choices=(15, 30), default=30)
    parser.add_argument("--no-flor", action="store_true", help="play without flor")


def run(args: argparse.Namespace) -> int:
    rules = Rules(players=args.players, points_to_win=args.points, flor=not args.no_flor)
    agents = [RandomAgent(args.seed * 10 + seat) for seat in range(rules.players)]
    names = [f"random#{seat}" for seat in range(rules.players)]
    state = new_game(rules, args.seed)
    print(
        f"Truco demo · seed {args.seed} · {rules.players // 2}v{rules.players // 2}, "
        f"to {rules.points_to_win}, flor {'on' if rules.flor else 'off'}"
    )
    events = initial_events(state)
    while True:
        for event in events:
            line = log_line(event, names)
            if line is not None:
                print(line)
        if state.game_over:
            return 0
        state, events = apply(state, agents[state.to_act].choose(state))
