"""`truco play BOT BOT`: run a match locally, with a progress bar; print the result and write
the replay. BOT is a base URL (http://127.0.0.1:8080) or a built-in bot (builtin:heuristic).
Four BOTs play individual 2v2 (a bot a seat; the 1st and 3rd are partners, the 2nd and 4th)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import msgspec
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena.game.deals import INDEPENDENT, MIRRORED
from arena.match.entrants import BadBotSpec, connect
from arena.match.replay import Decision, Replay
from arena.match.runner import (
    DEFAULT_GAMES_PER_MATCH,
    MatchSettings,
    default_games_per_match,
    run_match,
)
from engine.events import Event
from engine.rules import Rules
from engine.state import State
from truco_cli import replay_file
from truco_cli.bot_secrets import add_secret_arguments, bot_label, bot_secrets
from truco_cli.results import replay_phrase


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="a base URL or builtin:NAME; two bots (one a side), or four for individual 2v2",
    )
    parser.add_argument(
        "--players", type=int, choices=(2, 4), default=2, help="4: team 2v2 with two bots"
    )
    parser.add_argument(
        "--games",
        type=int,
        help=(
            f"games in the match (default {DEFAULT_GAMES_PER_MATCH[2]} with --players 2, "
            f"{DEFAULT_GAMES_PER_MATCH[4]} with --players 4 or four bots)"
        ),
    )
    parser.add_argument("--seed", type=int, default=1, help="the match seed (default 1)")
    parser.add_argument("--points", type=int, choices=(15, 30), default=30)
    parser.add_argument("--no-flor", action="store_true", help="play without flor")
    deals = parser.add_mutually_exclusive_group()
    deals.add_argument(
        "--mirrored",
        action="store_const",
        const=MIRRORED,
        dest="deals",
        default=INDEPENDENT,
        help=(
            "mirrored deals: each pair of games deals the same cards with the seats swapped "
            "(less luck, but a bot that remembers its hands knows its opponent's in every "
            "second game); default: every game dealt independently"
        ),
    )
    # the old flag: independent deals are the default now, so it changes nothing
    deals.add_argument(
        "--no-duplicate",
        action="store_const",
        const=INDEPENDENT,
        dest="deals",
        help=argparse.SUPPRESS,
    )
    parser.add_argument("--timeout-ms", type=int, default=1000, help="per /act call (default 1000)")
    parser.add_argument("--bank-ms", type=int, default=30000, help="time bank per game")
    parser.add_argument("--fault-limit", type=int, default=5, help="faults in a game that forfeit")
    add_secret_arguments(parser, bots=4)
    parser.add_argument(
        "--out",
        type=Path,
        help="replay file (default match-SEED.replay.json, or match-SEED-N.replay.json when "
        "that exists); an existing FILE is refused without --force",
    )
    parser.add_argument("--force", action="store_true", help="let --out replace an existing file")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _settings(args: argparse.Namespace) -> MatchSettings:
    if len(args.bots) not in (2, 4):
        raise ValueError(
            f"give two bots (one a side) or four (individual 2v2), not {len(args.bots)}"
        )
    players: Literal[2, 4] = 4 if len(args.bots) == 4 else args.players
    rules = Rules(players=players, points_to_win=args.points, flor=not args.no_flor)
    try:
        return msgspec.convert(
            {
                "rules": rules,
                "games_per_match": (
                    default_games_per_match(players) if args.games is None else args.games
                ),
                "deals": args.deals,
                "timeout_ms": args.timeout_ms,
                "time_bank_ms": args.bank_ms,
                "fault_limit": args.fault_limit,
            },
            MatchSettings,
            from_attributes=True,
        )
    except msgspec.ValidationError as exc:
        raise ValueError(str(exc).replace("$.", "--").replace("_", "-")) from None


def _report(console: Console, replay: Replay, out: Path) -> None:
    result = replay.result
    names = [e.name for e in replay.entrants]
    table = Table(title=f"match {replay.match_id} · seed {replay.seed} · {replay.deals} deals")
    for column in ("bot", "side", "games", "tantos", "faults", "p50 ms", "p95 ms", "calls"):
        if column == "bot":  # never cut: two local bots differ only at the end of their URLs
            table.add_column(column, overflow="fold", min_width=max(map(len, names)))
        else:
            table.add_column(column, justify="right")
    for i, name in enumerate(names):  # games, tantos and faults are by side (entrant i % 2)
        latency = result.latency[i] if result.latency else None
        table.add_row(
            name,
            str(i % 2),
            str(result.games_won[i % 2]),
            str(result.tantos[i % 2]),
            str(result.faults[i % 2]),
            f"{latency.p50_ms:.1f}" if latency else "-",
            f"{latency.p95_ms:.1f}" if latency else "-",
            str(latency.calls) if latency else "-",
        )
    console.print(table)
    console.print(f"Result: {replay_phrase(replay)}", markup=False)
    for cause in result.causes:  # why a side lost by walkover or forfeit
        how = "walkover" if result.reason == "walkover" else "forfeit"
        line = f"{names[cause.side]} loses by {how}: {cause.summary}"
        extra = f" ({cause.detail})" if cause.detail and cause.detail != cause.label else ""
        console.print(line + extra, markup=False)
    console.print(f"Replay written to {out}  (check it with: truco replay verify {out})")


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=False)
    try:
        settings = _settings(args)
        secrets = bot_secrets(args, len(args.bots))
        entrants = [
            connect(
                spec,
                seed=args.seed * 2 + i,
                secret=secrets[i],
                timeout_ms=args.timeout_ms,
                allow_loopback=True,
                label=bot_label(spec, i),
            )
            for i, spec in enumerate(args.bots)
        ]
        out = replay_file.choose(args.out, args.seed, force=args.force)
    except (BadBotSpec, ValueError, replay_file.ReplayFileExists) as exc:
        print(f"truco play: {exc}", file=sys.stderr)
        return 2
    match_id = f"local-{args.seed}"

    with Progress(
        TextColumn("[bold]game {task.fields[game]}[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("score {task.fields[score]}"),
        TimeElapsedColumn(),
        console=console,
        disable=args.quiet,
        transient=True,
    ) as progress:
        task = progress.add_task("match", total=args.points, game=1, score="0-0")

        def on_progress(
            game_index: int, state: State, decision: Decision | None, events: Sequence[Event]
        ) -> None:
            progress.update(
                task,
                completed=max(state.score),
                game=f"{game_index + 1}/{settings.games_per_match}",
                score=f"{state.score[0]}-{state.score[1]}",
            )

        replay = asyncio.run(run_match(match_id, args.seed, settings, entrants, on_progress))
    wanted = args.out or replay_file.default_path(args.seed)
    try:
        out = replay_file.write(out, msgspec.json.encode(replay), replace=args.force)
    except OSError as exc:
        print(f"truco play: cannot write the replay to {out}: {exc.strerror}", file=sys.stderr)
        return 1
    _report(console, replay, out)
    if out != wanted:
        console.print(f"({wanted} already exists and was left as it was; --out names the file)")
    return 0
