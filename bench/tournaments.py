"""Time one Swiss round at 1,000 and 10,000 players, each with five rounds of history; and, side
by side on the same fields, pairing by independent parts against the whole field at once.

The history is made by a quick greedy pairing (score order, first opponent not met yet) with
seeded random results (45% / 45% / 10% draws), so generating it costs little; only the call to
``pair_round`` for round six is timed. Then, for rounds 2, 3 and 6 of 10,000 players,
``match_field`` with its split into parts (:mod:`services.tournaments.swiss.split`) and
without it, on the same field in the same run.
"""

from __future__ import annotations

import json
import random
import time

from services.domain import SideResult
from services.tournaments.model import PlayedMatch, Player, PlayerId, Round
from services.tournaments.swiss.field import make_field
from services.tournaments.swiss.pairing import match_field, pair_round
from services.tournaments.swiss.split import independent_parts
from services.tournaments.swiss.state import build_states

SIZES = (1_000, 10_000)
SPLIT_SIZE = 10_000
SPLIT_ROUNDS = (2, 3, 6)
HISTORY_ROUNDS = 5
TARGETS = {1_000: 2.0, 10_000: 60.0}


def greedy_history(players: list[Player], rounds: int, seed: int) -> list[Round]:
    """A plausible rematch-free history: pair down the score order, skipping past opponents."""
    rng = random.Random(seed)
    points: dict[PlayerId, int] = {p.id: 0 for p in players}
    rank = {p.id: k for k, p in enumerate(players)}
    met: dict[PlayerId, set[PlayerId]] = {p.id: set() for p in players}
    had_bye: set[PlayerId] = set()
    history: list[Round] = []
    for _ in range(rounds):
        order = sorted(points, key=lambda pid: (-points[pid], rank[pid]))
        byes: tuple[PlayerId, ...] = ()
        if len(order) % 2:
            bye = next(pid for pid in reversed(order) if pid not in had_bye)
            order.remove(bye)
            had_bye.add(bye)
            points[bye] += 2
            byes = (bye,)
        waiting = list(order)
        matches: list[PlayedMatch] = []
        while waiting:
            a = waiting.pop(0)
            k = next((k for k, b in enumerate(waiting) if b not in met[a]), 0)
            b = waiting.pop(k)
            met[a].add(b)
            met[b].add(a)
            result: SideResult = rng.choices(("a", "b", "draw"), weights=(45, 45, 10))[0]
            matches.append(PlayedMatch(a=a, b=b, result=result))
            points[a] += matches[-1].points2(a)
            points[b] += matches[-1].points2(b)
        history.append(Round(matches=tuple(matches), byes=byes))
    return history


def seeded_players(size: int, seed: int) -> list[Player]:
    rng = random.Random(seed)
    players = [Player(id=k + 1, rating=float(rng.randint(1000, 2400))) for k in range(size)]
    players.sort(key=lambda p: -p.rating)
    return players


def time_split(size: int, round_number: int, seed: int = 7) -> dict[str, float | int | bool]:
    """Round ``round_number`` of ``size`` players: by parts, then the whole field at once."""
    players = seeded_players(size, seed)
    field = make_field(build_states(players, greedy_history(players, round_number - 1, seed)))
    start = time.perf_counter()
    by_parts = match_field(field)
    parts_s = time.perf_counter() - start
    start = time.perf_counter()
    whole = match_field(field, split=False)
    whole_s = time.perf_counter() - start
    return {
        "parts": len(independent_parts(field)),
        "by_parts_s": round(parts_s, 2),
        "whole_s": round(whole_s, 2),
        "same_weight": by_parts.weight == whole.weight,
    }


def time_round(size: int, seed: int = 7) -> float:
    players = seeded_players(size, seed)
    history = greedy_history(players, HISTORY_ROUNDS, seed)
    start = time.perf_counter()
    pairing = pair_round(players, history)
    elapsed = time.perf_counter() - start
    assert len(pairing.pairs) == size // 2
    return elapsed


def main() -> None:
    figures: dict[str, float] = {}
    for size in SIZES:
        seconds = time_round(size)
        figures[f"swiss_round_{size}_s"] = round(seconds, 3)
        verdict = "ok" if seconds < TARGETS[size] else "OVER TARGET"
        print(
            f"swiss round, {size:>6,} players, {HISTORY_ROUNDS} rounds of history: "
            f"{seconds:8.3f} s  (target < {TARGETS[size]:.0f} s: {verdict})"
        )
    split: dict[str, object] = {}
    for round_number in SPLIT_ROUNDS:
        found = time_split(SPLIT_SIZE, round_number)
        split[f"round_{round_number}"] = found
        print(
            f"swiss round {round_number}, {SPLIT_SIZE:,} players, {found['parts']} part(s): "
            f"by parts {found['by_parts_s']:.2f} s, whole field {found['whole_s']:.2f} s "
            f"(same weight on every tier: {found['same_weight']})"
        )
    print(json.dumps({"bench": "tournaments", **figures, f"split_{SPLIT_SIZE}": split}))


if __name__ == "__main__":
    main()
