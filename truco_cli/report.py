"""`truco report bot BOT|account ID --category C [--text T]`: tell the platform's admins about a
bot that cheats or a name that offends (docs/moderation.md). A key is sent when one is
configured (the report then names your account); none is needed."""

from __future__ import annotations

import argparse

from truco_cli.api import Platform, add_json, print_json
from truco_cli.errors import CommandError, platform_command

CATEGORIES = ("cheating", "name", "abuse", "other")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", choices=("bot", "account"))
    parser.add_argument("ref", help="the bot's id or name, or the account's id")
    parser.add_argument("--category", choices=CATEGORIES, required=True)
    parser.add_argument("--text", default="", help="what you saw (up to 1000 characters)")
    add_json(parser)


@platform_command
def run(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        if args.target == "bot":
            target_id = platform.bot_id(args.ref)
        elif args.ref.isascii() and args.ref.isdigit():
            target_id = int(args.ref)
        else:
            raise CommandError.local(
                "Not an account id", f"give the account's id, not {args.ref!r}", slug="cli"
            )
        body = {
            "target": args.target,
            "target_id": target_id,
            "category": args.category,
            "text": args.text,
        }
        made = platform.request("POST", "/v1/reports", body=body, auth=bool(platform.key))
    if args.json:
        print_json(made)
    else:
        print(f"report {made['id']} sent: the admins will look at {args.target} {target_id}")
    return 0
