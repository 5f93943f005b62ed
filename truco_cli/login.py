"""`truco login --url URL --key KEY`: check an API key and store it with the platform's URL."""

from __future__ import annotations

import argparse
import sys

from truco_cli import config
from truco_cli.api import Platform, add_json, print_json
from truco_cli.errors import CommandError, platform_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        f"Check KEY against the platform at URL and store both in {config.config_path()} "
        "(mode 0600), replacing what is there."
    )
    parser.add_argument("--url", required=True, help="the platform, e.g. http://127.0.0.1:8000")
    parser.add_argument(
        "--key", required=True, help="your API key (ta_...); '-' reads it from standard input"
    )
    add_json(parser)


@platform_command
def run(args: argparse.Namespace) -> int:
    key = sys.stdin.readline().strip() if args.key == "-" else args.key.strip()
    if not key:
        raise CommandError.local("No API key", "--key is empty", slug="cli/no-key")
    with Platform(args.url, key) as platform:
        me = platform.me()  # a wrong key is the platform's 401, printed as such
    path = config.config_path()
    config.save(path, {"url": platform.url, "key": key, "account": str(me["name"])})
    if args.json:
        print_json({**me, "config": str(path)})
    else:
        print(
            f"logged in to {platform.url} as {me['name']!r} (id {me['id']}); key stored in {path}"
        )
    return 0
