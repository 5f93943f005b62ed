"""Engine speed: `truco bench` on the default benchmark, with flor, and in 2v2.

Target (issue #2): at least 6,000 hands/s on the default benchmark (1v1, to 30, flor off), and
no more than 25% slower per decision with flor or in 2v2.
"""

from __future__ import annotations

import msgspec

from bench.smoke import size
from engine.bench import run_bench
from engine.rules import Rules

GAMES = size(4000, 40)


def main() -> None:
    base = run_bench(GAMES, 1, Rules(flor=False))
    variants = {
        "default (1v1, to 30, flor off)": base,
        "with flor": run_bench(GAMES, 1, Rules(flor=True)),
        "2v2": run_bench(GAMES, 1, Rules(players=4, flor=False)),
        "2v2 with flor": run_bench(GAMES, 1, Rules(players=4, flor=True)),
    }
    for name, result in variants.items():
        slower = 100.0 * (result.us_per_decision / base.us_per_decision - 1.0)
        print(
            f"  {name:<32} {result.hands_per_s:>10,.0f} hands/s  "
            f"{result.us_per_decision:>6.2f} us/decision  ({slower:+.0f}% per decision)"
        )
    summary = {name: msgspec.to_builtins(result) for name, result in variants.items()}
    print(msgspec.json.encode({"engine": summary}).decode())
