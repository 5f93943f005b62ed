"""Time one Swiss round at 1,000 and 10,000 players, each with five rounds of history; and, side
by side on the same fields, pairing by independent parts against the whole field at once.

The history is made by a quick greedy pairing (score order, first opponent not met yet) with
seeded random results (45% / 45% / 10% draws), so generating it costs little; only the call to
``pair_round`` for round six is timed. Then, for rounds 2, 3 and 6 of 10,000 players,
``match_field`` with its split into parts (:mod:`services.tournaments.swiss.split`) and
without it, on the same field in the same run.

Last, the shape where C.3 forbids many pairs (issue 34): five rounds with random results and
every match's higher-ranked player (initial rank) first and mano, as a file with no ``mano``
says; most players then have an absolute side preference. Up to :data:`C3_PAIRED_MAX` players
the rounds are paired by ``pair_round`` itself; above, five such pairings would take longer
than the bench (more than 20 minutes at 10,000 players), so the rounds are paired directly in
the same shape (:mod:`bench.c3_history`: Dutch halves by score group, no rematches, C.3 kept).
Round six is timed in CPU seconds (``time.process_time``) with the sparse graph, side by side
with the complete graph at 1,000 players (what the pairing fell back to before: 3.6-16.5 s).
10,000 players run only when asked (``BENCH_C3_SIZES=1000,10000``): its round six had not
finished after 50 minutes (15 of CPU, 7.8 GB) in the one run of 2026-12-07.
"""

from __future__ import annotations

import json
import random
import time

from bench.c3_history import c3_history, take_bye
from bench.smoke import env_size
from bench.smoke import size as sized
from services.domain import SideResult
from services.tournaments.model import PlayedMatch, Player, PlayerId, Round
from services.tournaments.swiss.field import make_field
from services.tournaments.swiss.pairing import (
    NoValidPairing,
    match_field,
    pair_round,
    pairing_from,
)
from services.tournaments.swiss.split import independent_parts
from services.tournaments.swiss.state import build_states

SIZES = sized((1_000, 10_000), (60,))
SPLIT_SIZE = sized(10_000, 200)
SPLIT_ROUNDS = (2, 3, 6)
HISTORY_ROUNDS = 5
TARGETS = {1_000: 2.0, 10_000: 60.0}
# 10,000 players: BENCH_C3_SIZES=1000,10000 (not by default: round six ran over 50 min)
C3_SIZES = tuple(int(n) for n in env_size("BENCH_C3_SIZES", "1000", "30,60").split(","))
C3_SEEDS = sized((1, 2, 3), (1,))
C3_PAIRED_MAX = sized(1_000, 30)  # above: the history paired directly (bench.c3_history)
C3_COMPLETE_MAX = 1_000  # the complete graph's baseline: 500,000 edges at 1,000 players
C3_TARGETS = {1_000: 1.0, 10_000: 60.0}


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
        byes = take_bye(order, had_bye, points)
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


def ranked_first_history(players: list[Player], rounds: int, seed: int) -> list[Round]:
    """Rounds paired by ``pair_round``, random results (45% / 45% / 10% draws), each match
    written with its higher-ranked player first and no mano (so that player was mano); fewer
    rounds when no rematch-free pairing is left (small fields: the tests use it too)."""
    rng = random.Random(seed)
    rank = {p.id: k for k, p in enumerate(players)}
    history: list[Round] = []
    for _ in range(rounds):
        try:
            pairing = pair_round(players, history)
        except NoValidPairing:
            break
        matches = []
        for pair in pairing.pairs:
            a, b = sorted((pair.a, pair.b), key=rank.__getitem__)
            result: SideResult = rng.choices(("a", "b", "draw"), weights=(45, 45, 10))[0]
            matches.append(PlayedMatch(a=a, b=b, result=result))
        byes = () if pairing.bye is None else (pairing.bye,)
        history.append(Round(matches=tuple(matches), byes=byes))
    return history


def time_c3(size: int, seed: int) -> dict[str, str | float | int | bool | None]:
    """Round six of the C.3 shape: CPU seconds of ``pair_round`` (sparse), and of the
    complete graph on the same field up to :data:`C3_COMPLETE_MAX` players."""
    players = seeded_players(size, seed)
    if size <= C3_PAIRED_MAX:
        history = ranked_first_history(players, HISTORY_ROUNDS, seed)
    else:
        history = c3_history(players, HISTORY_ROUNDS, seed)
    states = build_states(players, history)
    absolute = sum(1 for state in states if state.mano.strength == 3)
    start = time.process_time()
    pairing = pair_round(players, history)
    sparse_s = time.process_time() - start
    assert len(pairing.pairs) == size // 2
    found: dict[str, str | float | int | bool | None] = {
        "history": "pair_round" if size <= C3_PAIRED_MAX else "direct",
        "absolute_share": round(absolute / size, 3),
        "sparse_cpu_s": round(sparse_s, 3),
        "complete_cpu_s": None,
        "same_pairing": None,
    }
    if size <= C3_COMPLETE_MAX:
        field = make_field(states)
        start = time.process_time()
        complete = pairing_from(field, match_field(field, sparse=False))
        found["complete_cpu_s"] = round(time.process_time() - start, 3)
        found["same_pairing"] = complete == pairing
    return found


def main() -> None:
    figures: dict[str, float] = {}
    for size in SIZES:
        seconds = time_round(size)
        figures[f"swiss_round_{size}_s"] = round(seconds, 3)
        target = TARGETS.get(size, 60.0)
        verdict = "ok" if seconds < target else "OVER TARGET"
        print(
            f"swiss round, {size:>6,} players, {HISTORY_ROUNDS} rounds of history: "
            f"{seconds:8.3f} s  (target < {target:.0f} s: {verdict})"
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
    c3: dict[str, object] = {}
    for size in C3_SIZES:
        for seed in C3_SEEDS:
            shape = time_c3(size, seed)
            c3[f"{size}_seed{seed}"] = shape
            complete = (
                f"complete graph {shape['complete_cpu_s']:.2f} s CPU (same pairing: "
                f"{shape['same_pairing']})"
                if shape["complete_cpu_s"] is not None
                else "complete graph not run at this size"
            )
            c3_target = C3_TARGETS.get(size)
            verdict = "" if c3_target is None else f" (target < {c3_target:g} s)"
            print(
                f"swiss round 6, C.3 shape (higher-ranked always mano), {size:>6,} players, "
                f"seed {seed}, history by {shape['history']}, {shape['absolute_share']:.0%} "
                f"absolute: sparse "
                f"{shape['sparse_cpu_s']:.2f} s CPU{verdict}; {complete}"
            )
    print(
        json.dumps(
            {"bench": "tournaments", **figures, f"split_{SPLIT_SIZE}": split, "c3_shape": c3}
        )
    )


if __name__ == "__main__":
    main()
