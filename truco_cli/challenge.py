"""`truco challenge BOT_A BOT_B`: an unrated match between your bot and another one;
``--wait`` follows it to the end and prints the result."""

from __future__ import annotations

import argparse
import sys
from typing import Any, get_args

from arena.game.deals import DealsMode
from services.domain import Mode
from truco_cli.api import Platform, add_json, print_json
from truco_cli.errors import CommandError, platform_command
from truco_cli.match import GAMES_HELP, OVER, describe
from truco_cli.polling import poll_until


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot_a", metavar="BOT_A", help="your bot (id or name)")
    parser.add_argument("bot_b", metavar="BOT_B", help="its opponent (id or name)")
    parser.add_argument("--games", type=int, help=f"games in the match {GAMES_HELP}")
    parser.add_argument("--mode", choices=get_args(Mode), help="1v1 (default) or 2v2")
    parser.add_argument(
        "--deals",
        choices=get_args(DealsMode),
        help="independent (default) or mirrored (only between two of your bots)",
    )
    parser.add_argument("--wait", action="store_true", help="wait for the result and print it")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between looks")
    parser.add_argument("--timeout", type=float, help="with --wait: give up after this long")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the match id")
    add_json(parser)


@platform_command
def run(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        body: dict[str, Any] = {
            "bot_a": platform.bot_id(args.bot_a),
            "bot_b": platform.bot_id(args.bot_b),
        }
        if args.games is not None:
            body["games_per_match"] = args.games
        if args.mode is not None:
            body["mode"] = args.mode
        if args.deals is not None:
            body["deals"] = args.deals
        created = platform.request("POST", "/v1/challenges", body=body, auth=True)
        match_id = created["match_id"]
        if not args.wait:
            if args.json:
                print_json(created)
            elif args.quiet:
                print(match_id)
            else:
                print(f"match {match_id} {created['status']}: {platform.url}/matches/{match_id}")
            return 0
        if not args.json and not args.quiet:
            print(f"match {match_id} queued; waiting for the result", file=sys.stderr, flush=True)
        match = poll_until(
            lambda: platform.get(f"/v1/matches/{match_id}"),
            lambda match: match["status"] in OVER,
            interval=args.interval,
            timeout=args.timeout,
            still=lambda match: CommandError.local(
                "Still playing",
                f"match {match_id} is {match['status']} after {args.timeout:g} s; "
                f"see {platform.url}/matches/{match_id}",
                slug="cli/timeout",
                exit_code=1,
            ),
        )
    if args.json:
        print_json(match)
    elif args.quiet:
        print(match_id)
    else:
        print(describe(match))
        print(f"  replay {platform.url}/matches/{match_id}")
    return 0
