"""`truco bot ...`: serve a built-in bot, make a signing secret, and manage your bots on the
platform (register, list, show, update, delete, rotate-secret)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any

from arena.bots import BUILTINS, UnknownStrategy
from arena.client.signing import InvalidSecret, new_secret
from arena.sdk import BotServer, strategy_decider
from arena.sdk.secret import SecretSourceError, load_secret, read_secret_file
from services.domain import CHALLENGE_POLICIES
from truco_cli.api import Platform, add_json, print_json, table
from truco_cli.errors import CommandError, platform_command
from truco_cli.match import describe


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bot_command", metavar="SUBCOMMAND", required=True)
    _add_serve(sub)
    secret = sub.add_parser(
        "secret",
        help="print a fresh signing secret (whsec_...)",
        description="Print a fresh signing secret: whsec_ + base64 of 32 random bytes. Start "
        "your bot with it (TRUCO_BOT_SECRET), then register the bot with --secret-file/--secret.",
    )
    add_json(secret)
    register = sub.add_parser("register", help="register a running bot on the platform")
    register.add_argument("name", help="the bot's name (1-64 characters, unique)")
    register.add_argument("url", help="the bot's base URL; the platform calls GET URL/ at once")
    _add_secret_options(register, "the bot's signing secret (default: the platform makes one)")
    _add_access_options(register, closing=False)
    _add_quiet(register)
    listing = sub.add_parser("list", help="your bots (--all: every bot)")
    listing.add_argument("--all", action="store_true", help="every bot on the platform")
    add_json(listing)
    show = sub.add_parser("show", help="a bot's public profile")
    show.add_argument("bot", metavar="BOT", help="a bot id or name")
    add_json(show)
    update = sub.add_parser("update", help="rename a bot or move it to a new URL")
    update.add_argument("bot", metavar="BOT", help="one of your bots (id or name)")
    update.add_argument("--name", help="a new name")
    update.add_argument("--url", help="a new base URL (the platform checks it answers)")
    _add_access_options(update, closing=True)
    add_json(update)
    matches = sub.add_parser("matches", help="a bot's recent matches, and why it lost any")
    matches.add_argument("bot", metavar="BOT", help="a bot id or name")
    matches.add_argument("--limit", type=int, default=10, help="how many (default 10, max 100)")
    add_json(matches)
    delete = sub.add_parser("delete", help="delete one of your bots")
    delete.add_argument("bot", metavar="BOT", help="one of your bots (id or name)")
    add_json(delete)
    rotate = sub.add_parser(
        "rotate-secret",
        help="give a bot a new signing secret",
        description="Give one of your bots a new signing secret. During the platform's grace "
        "period its requests carry signatures with both secrets, so restart the bot with the "
        "new one before the grace period ends.",
    )
    rotate.add_argument("bot", metavar="BOT", help="one of your bots (id or name)")
    _add_secret_options(rotate, "the new secret (default: the platform makes one)")


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="serve a built-in strategy over HTTP (bot protocol v1)",
        description="Serve a built-in strategy over HTTP as a protocol v1 bot.",
    )
    serve.add_argument(
        "--strategy",
        default="heuristic",
        help=f"built-in strategy: {', '.join(sorted(BUILTINS))} (default heuristic)",
    )
    serve.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any free)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument(
        "--secret",
        help="whsec_... signing secret; requests without a valid signature get 401 "
        "(default: --secret-file, else $TRUCO_BOT_SECRET; none: signatures are not checked)",
    )
    serve.add_argument(
        "--secret-file",
        metavar="FILE",
        help="read the secret from FILE (one line; it must be mode 0600)",
    )
    serve.add_argument("--name", help="the bot's name in its info document (default: builtin-NAME)")
    serve.add_argument("--seed", type=int, help="seed of the strategy's choices (default random)")


def _add_secret_options(parser: argparse.ArgumentParser, help_: str) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--secret", help=help_)
    group.add_argument(
        "--secret-file", type=Path, help="read the secret from this file (mode 0600)"
    )
    add_json(parser)


def _add_access_options(parser: argparse.ArgumentParser, *, closing: bool) -> None:
    """Who may use the bot: enter it into tournaments (--open) and challenge it."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--open",
        dest="open",
        action="store_const",
        const=True,
        help="let anyone enter the bot into their tournaments",
    )
    if closing:
        group.add_argument(
            "--closed",
            dest="open",
            action="store_const",
            const=False,
            help="only you may enter it into tournaments",
        )
    parser.add_argument(
        "--challenges",
        choices=CHALLENGE_POLICIES,
        help="who may challenge it: anyone (open) or only your own bots (owner_only)",
    )
    parser.add_argument(
        "--min-timeout-ms",
        type=int,
        metavar="MS",
        help="the least per-call timeout (10 to 60000 ms) it accepts in others' events",
    )


def _access(args: argparse.Namespace) -> dict[str, Any]:
    """The access fields given on the command line (none: the platform's default or as is)."""
    given = {
        "open": args.open,
        "challenges": args.challenges,
        "min_timeout_ms": args.min_timeout_ms,
    }
    return {key: value for key, value in given.items() if value is not None}


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the new id")


def make_server(args: argparse.Namespace) -> BotServer:
    """The server `truco bot serve` runs (not started); raises on a bad strategy or secret."""
    return BotServer(
        strategy_decider(args.strategy, args.seed),
        name=args.name or f"builtin-{args.strategy}",
        author="Truco Arena",
        secret=load_secret(args.secret, args.secret_file),
        host=args.host,
        port=args.port,
    )


def _serve(args: argparse.Namespace) -> int:
    try:
        server = make_server(args)
    except (UnknownStrategy, InvalidSecret, SecretSourceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    checking = "checking signatures" if server.secret else "not checking signatures: no secret"
    print(
        f"serving strategy {args.strategy!r} as {server.info.name!r} on {server.url} "
        f"({checking}); Ctrl-C to stop",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def chosen_secret(args: argparse.Namespace) -> str | None:
    """The secret of --secret or --secret-file (a file readable only by you, as for the bot
    itself); the platform judges its strength (a weak one is its 422 saying what is needed)."""
    if args.secret_file is None:
        return str(args.secret) if args.secret is not None else None
    try:
        return read_secret_file(args.secret_file)
    except SecretSourceError as exc:
        raise CommandError.local("Unusable secret file", str(exc)) from None


def _register(args: argparse.Namespace, platform: Platform) -> int:
    body: dict[str, Any] = {"name": args.name, "url": args.url, **_access(args)}
    secret = chosen_secret(args)
    if secret is not None:
        body["signing_secret"] = secret
    bot = platform.request("POST", "/v1/bots", body=body, auth=True)
    if args.json:
        print_json(bot)
    elif args.quiet:
        print(bot["id"])
    else:
        print(f"bot {bot['name']!r} registered: id {bot['id']}, {bot['status']}, {bot['url']}")
        if secret is None:
            print(f"its signing secret (shown this once): {bot['signing_secret']}")
            print("restart the bot with it (TRUCO_BOT_SECRET) so it accepts the platform's calls")
    return 0


def _list(args: argparse.Namespace, platform: Platform) -> int:
    owner = None if args.all else platform.me()["id"]
    bots = list(platform.pages("/v1/bots", owner=owner))
    if args.json:
        print_json(bots)
        return 0
    if not bots:
        print("no bots" if args.all else "you have no bots: `truco bot register NAME URL`")
        return 0
    pools = list(bots[0]["rating"])  # the platform's rating pools: 1v1, 2v2, ...
    rows = [[b["id"], b["name"], b["status"], *(b["rating"][p] for p in pools)] for b in bots]
    print(table(["id", "name", "status", *pools], rows))
    return 0


def _show(args: argparse.Namespace, platform: Platform) -> int:
    bot = platform.get(f"/v1/bots/{platform.bot_id(args.bot)}")
    if args.json:
        print_json(bot)
        return 0
    print(f"bot {bot['id']} {bot['name']!r}: {bot['status']}, owner {bot['owner_id']}")
    ratings = "  ".join(f"{pool} {value:.0f}" for pool, value in bot["rating"].items())
    print(f"  rating  {ratings}")
    if "open" in bot:
        entries = "anyone may enter it" if bot["open"] else "only its owner enters it"
        print(f"  access  {entries}; challenges: {bot.get('challenges', 'open')}")
    if bot.get("min_timeout_ms") is not None:
        print(f"  timeout accepts {bot['min_timeout_ms']} ms or more in others' events")
    print(f"  page    {platform.url}/bots/{bot['id']}")
    return 0


def _matches(args: argparse.Namespace, platform: Platform) -> int:
    bot_id = platform.bot_id(args.bot)
    page = platform.get(f"/v1/bots/{bot_id}/matches", limit=args.limit)
    if args.json:
        print_json(page)
        return 0
    for match in page["items"]:
        print(describe(match))
    if not page["items"]:
        print(f"bot {bot_id} has played no match yet")
    return 0


def _update(args: argparse.Namespace, platform: Platform) -> int:
    given = {"name": args.name, "url": args.url}
    change = {key: value for key, value in given.items() if value is not None} | _access(args)
    if not change:
        raise CommandError.local(
            "Nothing to change",
            "give --name, --url, --open/--closed, --challenges or --min-timeout-ms",
        )
    bot = platform.request("PATCH", f"/v1/bots/{platform.bot_id(args.bot)}", body=change, auth=True)
    if args.json:
        print_json(bot)
    else:
        print(f"bot {bot['id']} is now {bot['name']!r} at {bot['url']} ({bot['status']})")
    return 0


def _delete(args: argparse.Namespace, platform: Platform) -> int:
    bot_id = platform.bot_id(args.bot)
    platform.request("DELETE", f"/v1/bots/{bot_id}", auth=True)
    if args.json:
        print_json({"id": bot_id, "deleted": True})
    else:
        print(f"bot {bot_id} deleted (withdrawn from running tournaments; its matches remain)")
    return 0


def _rotate(args: argparse.Namespace, platform: Platform) -> int:
    secret = chosen_secret(args)
    body = {} if secret is None else {"signing_secret": secret}
    bot_id = platform.bot_id(args.bot)
    answer = platform.request("POST", f"/v1/bots/{bot_id}/secret", body=body, auth=True)
    if args.json:
        print_json(answer)
        return 0
    print(f"bot {bot_id} has a new signing secret")
    if secret is None:
        print(f"  {answer['signing_secret']}  (shown this once)")
    until = answer.get("previous_secret_valid_until")
    if until:
        print(f"the platform signs with both secrets until {until}: restart the bot with the")
        print("new one (TRUCO_BOT_SECRET or --secret-file) before then")
    return 0


PLATFORM_COMMANDS = {
    "register": _register,
    "list": _list,
    "show": _show,
    "matches": _matches,
    "update": _update,
    "delete": _delete,
    "rotate-secret": _rotate,
}


def run(args: argparse.Namespace) -> int:
    if args.bot_command == "serve":
        return _serve(args)
    return _platform(args)


@platform_command
def _platform(args: argparse.Namespace) -> int:
    if args.bot_command == "secret":
        fresh = new_secret()
        if args.json:
            print_json({"signing_secret": fresh})
        else:
            print(fresh)
        return 0
    with Platform.from_config() as platform:
        return PLATFORM_COMMANDS[args.bot_command](args, platform)
