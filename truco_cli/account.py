"""`truco account create NAME --url URL` and `truco account show`: your account on a platform.

`create` makes the account and stores the platform's URL and the new API key in the config
file (see truco_cli/config.py); the key is shown by the platform only this once.
"""

from __future__ import annotations

import argparse
from typing import Any

from truco_cli import config
from truco_cli.api import Platform, add_json, print_json
from truco_cli.errors import CommandError, platform_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="account_command", metavar="SUBCOMMAND", required=True)
    create = sub.add_parser(
        "create",
        help="create an account and store its API key",
        description="Create an account on the platform at URL and store URL and API key in "
        f"{config.config_path()} (mode 0600).",
    )
    create.add_argument("name", help="the account's name (1-64 characters)")
    create.add_argument("--url", required=True, help="the platform, e.g. http://127.0.0.1:8000")
    create.add_argument(
        "--force", action="store_true", help="replace a key already stored (it is then lost)"
    )
    add_json(create)
    show = sub.add_parser("show", help="the account of the stored (or TRUCO_API_KEY) key")
    add_json(show)


def _create(args: argparse.Namespace) -> int:
    path = config.config_path()
    stored = config.read_file(path)
    if stored.get("key") and not args.force:
        raise CommandError.local(
            "A key is already stored",
            f"{path} holds the key of account {stored.get('account', '?')!r} at "
            f"{stored.get('url', '?')}; pass --force to replace it (that key is then gone "
            "unless you kept a copy)",
            slug="cli/key-stored",
        )
    with Platform(args.url) as platform:
        created: dict[str, Any] = platform.request("POST", "/v1/accounts", body={"name": args.name})
        config.save(path, {"url": platform.url, "key": created["api_key"], "account": args.name})
    if args.json:
        print_json({"id": created["id"], "name": created["name"], "config": str(path)})
    else:
        print(f"account {created['name']!r} (id {created['id']}) created on {platform.url}")
        print(f"its API key is stored in {path} (mode 0600); the platform never shows it again")
    return 0


def _show(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        me = platform.me()
    if args.json:
        print_json(me)
    else:
        print(f"account {me['name']!r} (id {me['id']}) on {platform.url}")
    return 0


@platform_command
def run(args: argparse.Namespace) -> int:
    return _create(args) if args.account_command == "create" else _show(args)
