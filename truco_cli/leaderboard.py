"""`truco leaderboard [1v1|2v2]`: the Elo leaderboard of a mode."""

from __future__ import annotations

import argparse
from typing import get_args

from services.domain import RatingPool
from truco_cli.api import Platform, add_json, print_json, table
from truco_cli.errors import platform_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("mode", nargs="?", default="1v1", choices=get_args(RatingPool))
    parser.add_argument("--limit", type=int, default=20, help="how many lines (default 20)")
    add_json(parser)


@platform_command
def run(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        board = platform.get(f"/v1/leaderboards/{args.mode}", limit=args.limit)
    if args.json:
        print_json(board)
        return 0
    if not board["entries"]:
        print(f"no rated {args.mode} matches yet")
        return 0
    rows = [
        [
            e["rank"],
            e["name"] + (" *" if e["provisional"] else ""),
            round(e["rating"]),
            e["matches"],
            e["wins"],
            e["losses"],
            e["draws"],
        ]
        for e in board["entries"]
    ]
    print(table(["rank", "bot", "rating", "matches", "won", "lost", "drawn"], rows))
    if any(e["provisional"] for e in board["entries"]):
        print("* provisional: fewer than 10 rated matches")
    return 0
