"""`truco test create|show|watch|cancel`: the platform's SPRT tests (``/v1/tests``,
docs/sprt.md): is your bot stronger than another? The same test as `truco sprt`, played by the
platform's workers between two registered bots."""

from __future__ import annotations

import argparse
import sys
from typing import Any, get_args

from arena.game.deals import DealsMode
from arena.sprt.run import STATISTICS
from truco_cli.api import Platform, add_json, print_json
from truco_cli.errors import CommandError, platform_command
from truco_cli.polling import poll_until
from truco_cli.refs import check_platform, ref_type
from truco_cli.sprt import figures_line, verdict

TEST = ref_type("tests")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="test_command", metavar="SUBCOMMAND", required=True)
    create = sub.add_parser(
        "create",
        help="start a test of your BOT_A against BOT_B (unrated pairs of games)",
        description="Start an SPRT on the platform: BOT_A is yours, BOT_B yours or any active "
        "bot that accepts challenges. The options are truco sprt's (docs/sprt.md).",
    )
    create.add_argument("bot_a", metavar="BOT_A", help="your bot (id, name or address)")
    create.add_argument("bot_b", metavar="BOT_B", help="its opponent (id, name or address)")
    create.add_argument("--elo0", type=float, help="H0: A is elo0 stronger (default 0)")
    create.add_argument("--elo1", type=float, help="H1: A is elo1 stronger (default 10)")
    create.add_argument("--alpha", type=float, help="false H1 rate (default 0.05)")
    create.add_argument("--beta", type=float, help="false H0 rate (default 0.05)")
    create.add_argument("--max-games", type=int, help="stop undecided after this many games")
    create.add_argument("--players", type=int, choices=(2, 4), help="2 (default) or 4")
    create.add_argument("--points", type=int, choices=(15, 30), help="points to win a game")
    create.add_argument("--no-flor", action="store_true", help="play without flor")
    create.add_argument(
        "--deals", choices=get_args(DealsMode), help="mirrored only between your own bots"
    )
    create.add_argument("--concurrency", type=int, help="pairs in play at once (1-4)")
    create.add_argument(
        "--statistic",
        choices=STATISTICS,
        help="adjusted: games won minus their luck (default; docs/luck.md); raw: games won",
    )
    create.add_argument("-q", "--quiet", action="store_true", help="print only the new id")
    add_json(create)
    show = sub.add_parser("show", help="a test: its figures and, once over, its result")
    show.add_argument("id", type=TEST, metavar="ID", help="the test's id or address")
    add_json(show)
    watch = sub.add_parser("watch", help="follow a test until it ends, then print its result")
    watch.add_argument("id", type=TEST, metavar="ID", help="the test's id or address")
    watch.add_argument("--interval", type=float, default=2.0, help="seconds between looks")
    watch.add_argument("--timeout", type=float, help="give up after this many seconds")
    add_json(watch)
    cancel = sub.add_parser("cancel", help="stop a running test of yours")
    cancel.add_argument("id", type=TEST, metavar="ID", help="the test's id or address")
    add_json(cancel)


def _name(platform: Platform, bot_id: int) -> str:
    try:
        return f"{platform.get(f'/v1/bots/{bot_id}')['name']} (bot {bot_id})"
    except CommandError:  # a deleted bot: its id is all there is
        return f"bot {bot_id}"


def describe(test: dict[str, Any], names: dict[int, str]) -> list[str]:
    """A test document (``GET /v1/tests/ID``) in a few lines."""
    a = names.get(test["bot_a"], f"bot {test['bot_a']}")
    b = names.get(test["bot_b"], f"bot {test['bot_b']}")
    points = test["rules"].get("points_to_win")
    lines = [
        f"test {test['id']}: {a} vs {b}, {test['mode']}"
        + (f" to {points}" if points else "")
        + f", elo0 {test['elo0']:g} elo1 {test['elo1']:g}, "
        f"alpha {test['alpha']:g} beta {test['beta']:g}, at most {test['max_games']} games, "
        f"{test.get('statistic', 'raw')}: {test['status']}",
        "  "
        + figures_line(
            test["games"],
            test["wins"],
            test["losses"],
            test["llr"],
            test["bounds"],
            test["elo"],
            test["elo_interval"],
        ),
    ]
    if test.get("result"):
        lines.append("  " + verdict(test["result"], a, test["elo0"], test["elo1"], test["games"]))
    if test.get("error"):
        lines.append(f"  {test['status']}: {test['error']}")
    return lines


def _create(args: argparse.Namespace, platform: Platform) -> int:
    body: dict[str, Any] = {
        "bot_a": platform.bot_id(args.bot_a),
        "bot_b": platform.bot_id(args.bot_b),
    }
    optional = {
        "elo0": args.elo0,
        "elo1": args.elo1,
        "alpha": args.alpha,
        "beta": args.beta,
        "max_games": args.max_games,
        "players": args.players,
        "points": args.points,
        "flor": False if args.no_flor else None,
        "deals": args.deals,
        "concurrency": args.concurrency,
        "statistic": args.statistic,
    }
    body.update({key: value for key, value in optional.items() if value is not None})
    created = platform.request("POST", "/v1/tests", body=body, auth=True)
    if args.json:
        print_json(created)
    elif args.quiet:
        print(created["test_id"])
    else:
        test_id = created["test_id"]
        print(f"test {test_id} {created['status']}: {platform.url}/tests/{test_id}")
        print(f"  follow it: truco test watch {test_id}")
    return 0


def _print(test: dict[str, Any], platform: Platform) -> None:
    names = {bot: _name(platform, bot) for bot in (test["bot_a"], test["bot_b"])}
    print("\n".join(describe(test, names)))
    print(f"  page {platform.url}/tests/{test['id']}")


def _show(args: argparse.Namespace, platform: Platform) -> int:
    test = platform.get(f"/v1/tests/{args.id}")
    if args.json:
        print_json(test)
    else:
        _print(test, platform)
    return 0


def _watch(args: argparse.Namespace, platform: Platform) -> int:
    out = sys.stderr if args.json else sys.stdout  # --json: stdout is the final document only
    seen: list[int] = []

    def fetch() -> dict[str, Any]:
        test: dict[str, Any] = platform.get(f"/v1/tests/{args.id}")
        if seen[-1:] != [test["games"]]:
            seen.append(test["games"])
            line = figures_line(
                test["games"],
                test["wins"],
                test["losses"],
                test["llr"],
                test["bounds"],
                test["elo"],
                test["elo_interval"],
            )
            print(f"test {args.id} {test['status']}: {line}", file=out, flush=True)
        return test

    test = poll_until(
        fetch,
        lambda test: test["status"] != "running",
        interval=args.interval,
        timeout=args.timeout,
        still=lambda test: CommandError.local(
            "Still running",
            f"test {args.id} has {test['games']} games after {args.timeout:g} s; "
            f"run `truco test watch {args.id}` again to keep following it",
            slug="cli/timeout",
            exit_code=1,
        ),
    )
    if args.json:
        print_json(test)
    else:
        _print(test, platform)
    if test["status"] in ("cancelled", "failed"):
        raise CommandError.local(
            test["status"].capitalize(),
            f"test {args.id} {test['status']}"
            + (f": {test['error']}" if test.get("error") else ""),
            slug=f"cli/{test['status']}",
            exit_code=1,
        )
    return 0


def _cancel(args: argparse.Namespace, platform: Platform) -> int:
    test = platform.request("POST", f"/v1/tests/{args.id}/cancel", auth=True)
    if args.json:
        print_json(test)
    else:
        print(f"test {args.id} cancelled after {test['games']} games")
    return 0


COMMANDS = {"create": _create, "show": _show, "watch": _watch, "cancel": _cancel}


@platform_command
def run(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        check_platform(platform.url, vars(args).values())
        return COMMANDS[args.test_command](args, platform)
