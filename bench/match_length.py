"""How many games a match needs for the stronger bot to win it 95% of the time.

``python -m bench.match_length [--games N] [--seed S]`` (``make bench`` runs it with the
defaults). With independent deals every game of a
match is dealt from its own stream, so card luck no longer cancels out between the two games of
a pair: a match must be long enough for skill to show. For each pairing of built-in bots
(``heuristic`` against ``random`` and against ``weak-heuristic``) and each mode (1v1, 2v2; the
platform's default rules: flor, to 30), it plays ``N`` games through the arena's match runner
with in-process bots (seeded, in matches of :data:`CHUNK` games, the stronger bot first, so the
seats alternate as on the platform), then estimates, for every match length ``n`` up to
:data:`MAX_GAMES`, the chance that the stronger bot wins an ``n``-game match: matches are
resampled from the played games (games are independent, the seat parity is kept) and decided as
the platform decides them (games won, then tantos; a draw is not a win).

The **adjusted** column (docs/luck.md) is the same estimate for a match decided on
luck-adjusted results: each game counts as the stronger bot's win (1 or 0) minus its luck in
that game's chance, and the stronger bot wins the match when its adjusted games exceed half
the games. It says how many games the same certainty needs once the cards' luck is taken off.

It prints a text table and one JSON line ``{"match_length": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from arena.client.connection import InProcessBot
from arena.match.luck import match_luck
from arena.match.replay import EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from bench.smoke import size
from engine import Rules

PAIRS = (("heuristic", "random"), ("heuristic", "weak-heuristic"))
MODES: tuple[tuple[str, Literal[2, 4]], ...] = (("1v1", 2), ("2v2", 4))
CHUNK = 10  # games per played match
MAX_GAMES = 60  # longest match length estimated
SAMPLES = size(4000, 50)  # resampled matches per length
TARGET = 0.95
SHOWN = (1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 30, 40, 50, 60)


@dataclass(frozen=True)
class GameSample:
    """One played game from the stronger bot's side: won, tantos of each side, and whether the
    stronger bot sat as team 0 (it is mano in the game's first hand)."""

    won: bool
    strong: int
    weak: int
    team0: bool
    adjusted: float | None = None  # won (1 or 0) minus the stronger bot's luck in the game


async def play(
    strong: str, weak: str, players: Literal[2, 4], games: int, seed: int
) -> list[GameSample]:
    """``games`` games (in matches of CHUNK) between two built-in strategies, ``strong`` first."""
    settings = MatchSettings(
        rules=Rules(players=players),
        games_per_match=CHUNK,
        timeout_ms=60_000,
        time_bank_ms=3_600_000,
        fault_limit=1000,
    )
    out: list[GameSample] = []
    for m in range((games + CHUNK - 1) // CHUNK):
        match_seed = seed * 1_000_003 + m
        entrants = [
            (EntrantRecord(name, f"builtin:{name}"), InProcessBot(name, strategy_decider(name, s)))
            for name, s in ((strong, 2 * match_seed), (weak, 2 * match_seed + 1))
        ]
        replay = await run_match(f"bench-{m}", match_seed, settings, entrants)
        if sum(replay.result.faults):
            raise RuntimeError(f"match {m}: a built-in bot made {replay.result.faults} faults")
        luck = match_luck(replay)
        assert luck is not None
        for game, game_luck in zip(replay.games, luck.games, strict=True):
            side = game.teams.index(0)  # the team the stronger bot (entrant 0) sat as
            out.append(
                GameSample(
                    game.winner == 0,
                    game.score[side],
                    game.score[1 - side],
                    side == 0,
                    game_luck.adjusted_win,
                )
            )
    return out[:games]


def win_chance(samples: Sequence[GameSample], n: int, rng: random.Random) -> float:
    """The chance that the stronger bot wins an ``n``-game match (resampled, games then
    tantos; draws are not wins). Game ``i`` is drawn from the games with the same seating."""
    by_seat = ([s for s in samples if s.team0], [s for s in samples if not s.team0])
    wins = 0
    for _ in range(SAMPLES):
        games = tantos = 0
        for i in range(n):
            game = rng.choice(by_seat[i % 2])
            games += 1 if game.won else -1
            tantos += game.strong - game.weak
        wins += games > 0 or (games == 0 and tantos > 0)
    return wins / SAMPLES


def adjusted_chance(samples: Sequence[GameSample], n: int, rng: random.Random) -> float:
    """The chance that the stronger bot's adjusted games in an ``n``-game match exceed
    ``n / 2`` (resampled as :func:`win_chance`)."""
    by_seat = (
        [s.adjusted for s in samples if s.team0 and s.adjusted is not None],
        [s.adjusted for s in samples if not s.team0 and s.adjusted is not None],
    )
    wins = 0
    for _ in range(SAMPLES):
        total = sum(rng.choice(by_seat[i % 2]) for i in range(n))
        wins += total > n / 2
    return wins / SAMPLES


@dataclass(frozen=True)
class Curve:
    strong: str
    weak: str
    mode: str
    games_played: int
    game_win_rate: float
    chance: dict[int, float]  # match length -> chance the stronger bot wins the match
    seconds: float
    adjusted: dict[int, float] | None = None  # the same, deciding on luck-adjusted games

    @property
    def needed(self) -> int | None:
        """The shortest match length from which the stronger bot wins 95% of the time."""
        return _needed(self.chance)

    @property
    def needed_adjusted(self) -> int | None:
        """The same on luck-adjusted results (None: not measured, or beyond MAX_GAMES)."""
        return None if self.adjusted is None else _needed(self.adjusted)


def _needed(chance: dict[int, float]) -> int | None:
    lengths = sorted(chance)
    for i, n in enumerate(lengths):
        if all(chance[m] >= TARGET for m in lengths[i:]):
            return n
    return None


def measure(games: int, seed: int) -> list[Curve]:
    curves = []
    for strong, weak in PAIRS:
        for mode, players in MODES:
            start = time.perf_counter()
            samples = asyncio.run(play(strong, weak, players, games, seed))
            played_s = time.perf_counter() - start
            rng = random.Random(f"{seed}/{strong}/{weak}/{mode}")
            chance = {n: win_chance(samples, n, rng) for n in range(1, MAX_GAMES + 1)}
            adjusted = {n: adjusted_chance(samples, n, rng) for n in range(1, MAX_GAMES + 1)}
            rate = sum(s.won for s in samples) / len(samples)
            curves.append(Curve(strong, weak, mode, len(samples), rate, chance, played_s, adjusted))
    return curves


def report(curves: list[Curve], games: int, seed: int) -> None:
    print(f"  {games} games per pairing and mode, seed {seed}; chance the stronger bot wins an")
    print("  n-game match (games won, then tantos; draws count as not won):")
    header = "  pairing                      mode  game%  " + " ".join(f"{n:>4}" for n in SHOWN)
    print(header + "  95% from  adjusted")
    for c in curves:
        cells = " ".join(f"{100 * c.chance[n]:4.0f}" for n in SHOWN)
        needed = c.needed if c.needed is not None else f">{MAX_GAMES}"
        adjusted = c.needed_adjusted if c.needed_adjusted is not None else f">{MAX_GAMES}"
        pairing = f"{c.strong} vs {c.weak}"
        print(
            f"  {pairing:<28} {c.mode}  {100 * c.game_win_rate:5.1f}  {cells}  {needed!s:>8}  "
            f"{adjusted!s:>8}"
        )
    summary = {
        "games": games,
        "seed": seed,
        "curves": [
            {
                "strong": c.strong,
                "weak": c.weak,
                "mode": c.mode,
                "game_win_rate": round(c.game_win_rate, 4),
                "games_for_95": c.needed,
                "games_for_95_adjusted": c.needed_adjusted,
                "chance": {str(n): round(c.chance[n], 4) for n in SHOWN},
                "seconds": round(c.seconds, 1),
            }
            for c in curves
        ],
    }
    print(msgspec.json.encode({"match_length": summary}).decode())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.match_length")
    parser.add_argument(
        "--games", type=int, default=size(400, 20), help="games per pairing and mode"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args([] if argv is None else argv)
    report(measure(args.games, args.seed), args.games, args.seed)


if __name__ == "__main__":
    main(sys.argv[1:])
