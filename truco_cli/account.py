"""`truco account create NAME --url URL`, `truco account show` and the account's API keys
(`truco account keys`, `add-key`, `rotate-key`, `revoke-key ID`).

`create` makes the account and stores the platform's URL and the new API key in the config
file (see truco_cli/config.py); the key is shown by the platform only this once. `rotate-key`
replaces the key in use by a new one (the old one stops working at once) and stores the new
one in the config file the same way.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime
from typing import Any

from truco_cli import config
from truco_cli.api import Platform, add_json, print_json, table
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
    keys = sub.add_parser("keys", help="the account's live API keys (ids, last characters, age)")
    add_json(keys)
    add = sub.add_parser(
        "add-key",
        help="add a second API key (for another machine or CI) and print it",
        description="Ask the platform for one more API key and print it, this once (the "
        "platform keeps only its hash). The key in use stays stored and keeps working; revoke "
        "the new one with `truco account revoke-key ID` when it is no longer needed.",
    )
    add_json(add)
    rotate = sub.add_parser(
        "rotate-key",
        help="replace the key in use by a new one and store it",
        description="Ask the platform for a new API key and revoke the one in use (stored, or "
        f"TRUCO_API_KEY) at once; the new key is stored in {config.config_path()} (mode "
        "0600). Do this when a key may have leaked.",
    )
    add_json(rotate)
    revoke = sub.add_parser(
        "revoke-key",
        help="revoke one of the account's keys (see `truco account keys`)",
        description="The key stops working at once. The account's last key cannot be revoked: "
        "rotate it instead.",
    )
    revoke.add_argument("key_id", type=int, metavar="ID", help="the key's id")
    add_json(revoke)


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


def _keys(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        keys: list[dict[str, Any]] = platform.request("GET", "/v1/accounts/me/keys", auth=True)
    if args.json:
        print_json(keys)
    else:
        now = datetime.now(UTC)
        rows = [
            [k["id"], "..." + k["hint"] if k["hint"] else "?", _age(k["created_at"], now), _mark(k)]
            for k in keys
        ]
        print(table(["id", "key", "age", ""], rows))
    return 0


def _age(created_at: str, now: datetime) -> str:
    """How long ago ``created_at`` (ISO 8601) was: "40 s", "12 min", "5 h", "3 days"."""
    try:
        then = datetime.fromisoformat(created_at)
    except ValueError:
        return created_at
    seconds = max(0, int((now - then).total_seconds()))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    days = seconds // 86400
    return f"{days} day{'s' * (days != 1)}"


def _add(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        try:
            created: dict[str, Any] = platform.request("POST", "/v1/accounts/me/keys", auth=True)
        except CommandError as exc:
            if str(exc.problem.get("type", "")).endswith("/too-many-keys"):
                exc.problem["detail"] = (
                    f"{_before_colon(exc.problem.get('detail'))}: revoke one first (`truco "
                    "account keys` lists them, `truco account revoke-key ID` revokes one)"
                )
            raise
    if args.json:
        print_json(created)
    else:
        print(f"a new API key (id {created['id']}) is added to the account on {platform.url}:")
        print(f"  {created['api_key']}")
        print("keep it now: the platform never shows it again. The key in use is unchanged.")
    return 0


def _before_colon(detail: Any) -> str:
    return str(detail or "").split(":", 1)[0]


def _mark(key: dict[str, Any]) -> str:
    return "(in use)" if key["current"] else ""


def _rotate(args: argparse.Namespace) -> int:
    profile = config.load()
    with Platform(profile.url, profile.key) as platform:
        created: dict[str, Any] = platform.request("POST", "/v1/accounts/me/keys/rotate", auth=True)
    stored = config.read_file(profile.path)
    values = {**stored, "url": profile.url, "key": created["api_key"]}
    try:
        config.save(profile.path, values)
    except OSError as exc:  # the old key is revoked already: the new one must not be lost
        raise CommandError.local(
            "The new key could not be stored",
            f"{profile.path}: {exc}. The old key no longer works; your new key is "
            f"{created['api_key']} (keep it now: the platform never shows it again)",
            slug="cli/key-not-stored",
            exit_code=1,
        ) from None
    if args.json:
        print_json({"id": created["id"], "hint": created["hint"], "config": str(profile.path)})
    else:
        print(f"the API key is rotated: the old one no longer works on {profile.url}")
        print(f"the new key (...{created['hint']}) is stored in {profile.path} (mode 0600)")
    if config.KEY_ENV in os.environ:
        print(
            f"warning: {config.KEY_ENV} holds the old, revoked key: unset it or set it to the "
            f"new one (in {profile.path})",
            file=sys.stderr,
        )
    return 0


def _revoke(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        try:
            platform.request("DELETE", f"/v1/accounts/me/keys/{args.key_id}", auth=True)
        except CommandError as exc:
            if str(exc.problem.get("type", "")).endswith("/last-key"):
                exc.problem["detail"] = (
                    f"{_before_colon(exc.problem.get('detail'))}: rotate it instead "
                    "(`truco account rotate-key`)"
                )
            raise
    if args.json:
        print_json({"revoked": args.key_id})
    else:
        print(f"API key {args.key_id} is revoked: it no longer works")
    return 0


COMMANDS = {
    "create": _create,
    "show": _show,
    "keys": _keys,
    "add-key": _add,
    "rotate-key": _rotate,
    "revoke-key": _revoke,
}


@platform_command
def run(args: argparse.Namespace) -> int:
    return COMMANDS[args.account_command](args)
