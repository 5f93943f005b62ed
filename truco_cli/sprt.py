"""`truco sprt BOT_A BOT_B`: is A stronger than B? A sequential probability ratio test on game
pairs (docs/sprt.md), played locally until it accepts H0 or H1 or reaches --max-games.

Each pair is one match of two games with the seats swapped (arena.game.deals.seating), dealt
independently by default or mirrored with --mirrored. Pairs may run concurrently, but their
results enter the test in pair order, so a run is reproducible from --seed. The test runs on
luck-adjusted pair scores by default (--statistic adjusted, docs/luck.md), or on the games won
alone (--statistic raw)."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from collections.abc import Callable, Sequence

import msgspec
from rich.console import Console
from rich.live import Live
from rich.text import Text

from arena.game.deals import INDEPENDENT, MIRRORED
from arena.match.entrants import BadBotSpec, connect
from arena.match.luck import match_luck
from arena.match.runner import MatchSettings, run_match
from arena.sprt.pair import GAMES_PER_PAIR, Unreachable, adjusted_pair_score, pair_score
from arena.sprt.run import DEFAULT_STATISTIC, STATISTICS, PairTest
from engine.rules import Rules
from truco_cli.bot_secrets import add_secret_arguments, bot_label, bot_secrets


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bots", nargs=2, metavar="BOT", help="a base URL or builtin:NAME (A, B)")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0: A is elo0 stronger (0)")
    parser.add_argument("--elo1", type=float, default=10.0, help="H1: A is elo1 stronger (10)")
    parser.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="false H0 rate (0.05)")
    parser.add_argument(
        "--max-games",
        type=int,
        default=20000,
        help="stop undecided after this many games, rounded down to whole pairs (20000)",
    )
    parser.add_argument(
        "--statistic",
        choices=STATISTICS,
        default=DEFAULT_STATISTIC,
        help=(
            "adjusted: each game's result minus its luck (docs/luck.md; the same hypotheses, "
            "fewer games); raw: the games won alone (default adjusted)"
        ),
    )
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--points", type=int, choices=(15, 30), default=30)
    parser.add_argument("--no-flor", action="store_true", help="play without flor")
    parser.add_argument(
        "--mirrored",
        action="store_const",
        const=MIRRORED,
        dest="deals",
        default=INDEPENDENT,
        help=(
            "deal both games of a pair the same cards (less luck, fewer games; only sound "
            "when neither bot remembers hands across games); default: independent deals"
        ),
    )
    parser.add_argument(
        "--concurrency", type=int, default=1, help="pairs played at once (1; helps URL bots)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the whole run (1)")
    parser.add_argument("--timeout-ms", type=int, default=1000, help="per /act call (1000)")
    add_secret_arguments(parser, bots=2)
    parser.add_argument("--json", action="store_true", help="end with one JSON line (stdout)")


def pair_seed(run_seed: int, pair: int) -> int:
    """The match seed of pair ``pair`` of a run: distinct pairs, unrelated deals."""
    digest = hashlib.sha256(f"sprt/{run_seed}/pair/{pair}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _settings(args: argparse.Namespace) -> MatchSettings:
    rules = Rules(players=args.players, points_to_win=args.points, flor=not args.no_flor)
    try:
        return msgspec.convert(
            {
                "rules": rules,
                "games_per_match": GAMES_PER_PAIR,
                "deals": args.deals,
                "timeout_ms": args.timeout_ms,
            },
            MatchSettings,
            from_attributes=True,
        )
    except msgspec.ValidationError as exc:
        raise ValueError(str(exc).replace("$.", "--").replace("_", "-")) from None


def summary(test: PairTest, result: str) -> dict[str, object]:
    elo, (lo, hi) = test.estimate
    mean = test.mean_adjusted
    return {
        "result": result,
        "statistic": test.statistic,
        "games": GAMES_PER_PAIR * test.pairs,
        "wins": test.wins,
        "losses": test.losses,
        "llr": round(test.llr, 4),
        "bounds": [round(test.bounds[0], 4), round(test.bounds[1], 4)],
        "elo": round(elo, 1) + 0.0,  # + 0.0: never "-0.0"
        "elo_interval": [round(lo, 1) + 0.0, round(hi, 1) + 0.0],
        "pairs": dict(zip(("0-2", "1-1", "2-0"), test.raw.counts, strict=True)),
        "adjusted_score": None if mean is None else round(mean, 4),
    }


def figures_line(
    games: int,
    wins: int,
    losses: int,
    llr: float,
    bounds: Sequence[float],
    elo: float,
    interval: Sequence[float],
) -> str:
    """A test's figures on one line (here and in `truco test`, for a platform's test)."""
    return (
        f"games {games}  W {wins} L {losses}  "
        f"LLR {llr:+.2f} [{bounds[0]:+.2f}, {bounds[1]:+.2f}]  "
        f"Elo {elo:+.1f} [{interval[0]:+.1f}, {interval[1]:+.1f}]"
    )


def verdict(result: str, bot_a: str, elo0: float, elo1: float, games: int) -> str:
    """What the result means, in a sentence."""
    return {
        "H1": f"H1 accepted: {bot_a} is at least {elo1:g} Elo stronger",
        "H0": f"H0 accepted: {bot_a} is not {elo1:g} Elo stronger (at most {elo0:g})",
        "inconclusive": f"inconclusive after {games} games (the games limit)",
    }.get(result, result)


def status_line(test: PairTest) -> str:
    elo, interval = test.estimate
    return figures_line(
        GAMES_PER_PAIR * test.pairs, test.wins, test.losses, test.llr, test.bounds, elo, interval
    )


async def play(
    args: argparse.Namespace, test: PairTest, on_pair: Callable[[PairTest], None] | None = None
) -> str:
    """Play pairs into ``test`` until it decides or --max-games; the result's name."""
    settings = _settings(args)
    secrets: list[str] = getattr(args, "secrets", None) or bot_secrets(args, len(args.bots))
    max_pairs = args.max_games // GAMES_PER_PAIR

    async def one_pair(index: int) -> tuple[int, float]:
        seed = pair_seed(args.seed, index)
        entrants = [
            connect(
                spec,
                seed=seed * 2 + i,
                secret=secrets[i],
                timeout_ms=args.timeout_ms,
                allow_loopback=True,
                label=bot_label(spec, i),
            )
            for i, spec in enumerate(args.bots)
        ]
        replay = await run_match(f"sprt-{args.seed}-{index}", seed, settings, entrants)
        if replay.result.reason == "walkover":  # say why: "signature rejected (401) on GET /"
            raise Unreachable(
                "; ".join(
                    f"{replay.entrants[c.side].name}: {c.summary}" for c in replay.result.causes
                )
                or "a bot could not be reached"
            )
        return pair_score(replay), adjusted_pair_score(replay, match_luck(replay))

    pending: dict[int, asyncio.Task[tuple[int, float]]] = {}
    started = 0
    try:
        for index in range(max_pairs):
            while started < max_pairs and len(pending) < args.concurrency:
                pending[started] = asyncio.create_task(one_pair(started))
                started += 1
            decision = test.add(*await pending.pop(index))
            if on_pair is not None:
                on_pair(test)
            if decision != "continue":
                return decision
        return "inconclusive"
    finally:
        for task in pending.values():
            task.cancel()
        await asyncio.gather(*pending.values(), return_exceptions=True)


def _check(args: argparse.Namespace) -> PairTest:
    if args.concurrency < 1:
        raise ValueError("--concurrency must be at least 1")
    if args.max_games < GAMES_PER_PAIR:
        raise ValueError(f"--max-games must be at least {GAMES_PER_PAIR} (one pair)")
    args.secrets = bot_secrets(args, len(args.bots))  # one secret a bot for every pair
    for spec, secret in zip(args.bots, args.secrets, strict=True):  # a bad spec fails here
        connect(spec, seed=0, secret=secret, timeout_ms=1000, allow_loopback=True)
    _settings(args)
    return PairTest(
        elo0=args.elo0,
        elo1=args.elo1,
        alpha=args.alpha,
        beta=args.beta,
        statistic=getattr(args, "statistic", DEFAULT_STATISTIC),
    )


def run(args: argparse.Namespace) -> int:
    try:
        test = _check(args)
    except (BadBotSpec, ValueError) as exc:
        print(f"truco sprt: {exc}", file=sys.stderr)
        return 2
    live_console = Console(stderr=True)
    with Live(Text(status_line(test)), console=live_console, transient=True) as live:
        try:
            result = asyncio.run(play(args, test, lambda t: live.update(Text(status_line(t)))))
        except Unreachable as exc:
            live.stop()
            print(f"truco sprt: {exc}; no result", file=sys.stderr)
            return 1
    final = summary(test, result)
    if args.json:
        print(json.dumps(final))
    else:
        print(status_line(test))
        games = GAMES_PER_PAIR * test.pairs
        text = verdict(result, args.bots[0], args.elo0, args.elo1, games)
        print(text.replace("(the games limit)", "(--max-games)"))
    return 0
