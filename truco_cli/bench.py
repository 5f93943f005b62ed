"""`truco bench`: random-vs-random games on one core; reports hands per second."""

from __future__ import annotations

import argparse

import msgspec

from engine.bench import run_bench
from engine.rules import Rules


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=2000, help="games to play (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and choices")
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--flor", action="store_true", help="play with flor (default: off)")
    parser.add_argument("--points", type=int, choices=(15, 30), default=30)
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        print("--games must be at least 1")
        return 2
    rules = Rules(players=args.players, flor=args.flor, points_to_win=args.points)
    result = run_bench(args.games, args.seed, rules)
    mode = f"{rules.players // 2}v{rules.players // 2}"
    print(
        f"{result.games} games ({mode}, to {rules.points_to_win}, flor "
        f"{'on' if rules.flor else 'off'}): {result.hands} hands, {result.decisions} decisions "
        f"in {result.seconds:.2f} s"
    )
    print(
        f"hands_per_s {result.hands_per_s:,.0f}   decisions_per_s {result.decisions_per_s:,.0f}"
        f"   us_per_decision {result.us_per_decision:.1f}"
    )
    if args.json:
        print(msgspec.json.encode(result).decode())
    return 0
