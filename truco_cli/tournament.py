"""`truco tournament ...`: create a tournament, enter (and withdraw) bots, start it, watch it,
show it."""

from __future__ import annotations

import argparse
import sys
from typing import Any, get_args

from arena.game.deals import DealsMode
from services.api.schemas.tournaments import PartnershipField
from services.domain import Format, Mode, TournamentStatus
from truco_cli.api import Platform, add_json, print_json, table
from truco_cli.errors import CommandError, platform_command
from truco_cli.match import GAMES_HELP, OVER
from truco_cli.polling import poll_until
from truco_cli.refs import check_platform, ref_type
from truco_cli.results import match_line, standings_table

TOURNAMENT = ref_type("tournaments")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="tournament_command", metavar="SUBCOMMAND", required=True)
    create = sub.add_parser("create", help="create a tournament (you organise it)")
    create.add_argument("name", help="its name (1-100 characters)")
    create.add_argument("--format", required=True, choices=get_args(Format))
    create.add_argument("--mode", required=True, choices=get_args(Mode))
    create.add_argument(
        "--partnership",
        choices=get_args(get_args(PartnershipField)[0]),
        help="2v2: team (one bot a side, default) or individual (a bot a seat, partners drawn)",
    )
    create.add_argument("--rounds", type=int, help="Swiss rounds (default: from the field)")
    create.add_argument("--games", type=int, help=f"games per match {GAMES_HELP}")
    create.add_argument("--points", type=int, choices=(15, 30), help="points to win a game")
    create.add_argument("--no-flor", action="store_true", help="play without flor")
    create.add_argument(
        "--deals",
        choices=get_args(DealsMode),
        help="independent (default) or mirrored (only between your own bots; docs/deals.md)",
    )
    create.add_argument("-q", "--quiet", action="store_true", help="print only the new id")
    add_json(create)
    enter = sub.add_parser("enter", help="enter bots (yours, or open ones) into a tournament")
    enter.add_argument("id", type=TOURNAMENT, metavar="ID", help="the tournament")
    enter.add_argument("bots", nargs="+", metavar="BOT", help="bot ids or names")
    add_json(enter)
    withdraw = sub.add_parser(
        "withdraw", help="withdraw bots from a tournament before it starts (yours, or any in yours)"
    )
    withdraw.add_argument("id", type=TOURNAMENT, metavar="ID", help="the tournament")
    withdraw.add_argument("bots", nargs="+", metavar="BOT", help="bot ids or names")
    start = sub.add_parser("start", help="start a tournament you organise")
    start.add_argument("id", type=TOURNAMENT, metavar="ID")
    add_json(start)
    watch = sub.add_parser(
        "watch", help="follow a tournament until it finishes, then print the standings"
    )
    watch.add_argument("id", type=TOURNAMENT, metavar="ID")
    watch.add_argument("--interval", type=float, default=2.0, help="seconds between looks")
    watch.add_argument("--timeout", type=float, help="give up after this many seconds")
    add_json(watch)
    show = sub.add_parser("show", help="a tournament: rounds, matches and standings")
    show.add_argument("id", type=TOURNAMENT, metavar="ID")
    add_json(show)
    listing = sub.add_parser("list", help="tournaments, newest first")
    listing.add_argument("--status", choices=get_args(TournamentStatus))
    listing.add_argument("--limit", type=int, default=20, help="how many (default 20, max 100)")
    add_json(listing)
    cancel = sub.add_parser("cancel", help="cancel a tournament you organise")
    cancel.add_argument("id", type=TOURNAMENT, metavar="ID")
    add_json(cancel)


def _create(args: argparse.Namespace, platform: Platform) -> int:
    rules: dict[str, Any] = {}
    if args.points is not None:
        rules["points_to_win"] = args.points
    if args.no_flor:
        rules["flor"] = False
    body: dict[str, Any] = {"name": args.name, "format": args.format, "mode": args.mode}
    optional = {
        "rounds": args.rounds,
        "games_per_match": args.games,
        "rules": rules or None,
        "deals": args.deals,
        "partnership": args.partnership,
    }
    body.update({key: value for key, value in optional.items() if value is not None})
    created = platform.request("POST", "/v1/tournaments", body=body, auth=True)
    if args.json:
        print_json(created)
    elif args.quiet:
        print(created["id"])
    else:
        print(f"tournament {created['id']} {created['name']!r} created ({created['status']})")
        print(f"  enter bots: truco tournament enter {created['id']} BOT...")
    return 0


def _enter(args: argparse.Namespace, platform: Platform) -> int:
    entries = []
    for ref in args.bots:
        try:
            bot_id = platform.bot_id(ref)
            path = f"/v1/tournaments/{args.id}/entries"
            entries.append(platform.request("POST", path, body={"bot_id": bot_id}, auth=True))
        except CommandError as exc:  # say which bot (those before it are entered)
            exc.problem["detail"] = f"entering {ref}: {exc.problem.get('detail')}"
            raise
        if not args.json:
            print(f"entered {entries[-1]['name']!r} (bot {bot_id}) into tournament {args.id}")
    if args.json:
        print_json(entries)
    return 0


def _withdraw(args: argparse.Namespace, platform: Platform) -> int:
    for ref in args.bots:
        try:
            bot_id = platform.bot_id(ref)
            platform.request("DELETE", f"/v1/tournaments/{args.id}/entries/{bot_id}", auth=True)
        except CommandError as exc:  # say which bot (those before it are withdrawn)
            exc.problem["detail"] = f"withdrawing {ref}: {exc.problem.get('detail')}"
            raise
        print(f"withdrew bot {bot_id} from tournament {args.id}")
    return 0


def _start(args: argparse.Namespace, platform: Platform) -> int:
    started = platform.request("POST", f"/v1/tournaments/{args.id}/start", auth=True)
    if args.json:
        print_json(started)
    else:
        queued = len(started["queued"])
        print(f"tournament {args.id} started: {queued} match{'es' * (queued != 1)} queued")
        print(f"  follow it: truco tournament watch {args.id}")
    return 0


def _print_standings(detail: dict[str, Any]) -> None:
    print(standings_table(detail))


def _show(args: argparse.Namespace, platform: Platform) -> int:
    detail = platform.get(f"/v1/tournaments/{args.id}")
    if args.json:
        print_json(detail)
        return 0
    settings = detail["settings"]
    print(
        f"tournament {detail['id']} {detail['name']!r}: {detail['format']} {detail['mode']}, "
        f"{detail['status']}, {detail['entries']} entries, "
        f"{settings['games_per_match']} games a match, to {settings['rules']['points_to_win']}"
    )
    print(f"  page {platform.url}/tournaments/{detail['id']}")
    for rnd in detail["rounds"]:
        print(f"round {rnd['number']} ({rnd['status']})")
        for match in rnd["matches"]:
            link = "" if match["bye"] else f"  {platform.url}/matches/{match['id']}"
            print(f"  match {match['id']}: {match_line(match)}{link}")
    if detail["status"] == "registering":
        entries = list(platform.pages(f"/v1/tournaments/{args.id}/entries"))
        print("entries: " + (", ".join(e["name"] for e in entries) or "none yet"))
    else:
        _print_standings(detail)
    return 0


def _watch(args: argparse.Namespace, platform: Platform) -> int:
    out = sys.stderr if args.json else sys.stdout  # --json: stdout is the final document only
    reported: set[int] = set()
    last_status: list[str] = []

    def fetch() -> dict[str, Any]:
        detail: dict[str, Any] = platform.get(f"/v1/tournaments/{args.id}")
        for rnd in detail["rounds"]:
            over = [m for m in rnd["matches"] if m["status"] in OVER]
            for match in over:
                if match["id"] not in reported:
                    reported.add(match["id"])
                    print(
                        f"round {rnd['number']} ({len(over)}/{len(rnd['matches'])}) "
                        f"match {match['id']}: {match_line(match)}",
                        file=out,
                        flush=True,
                    )
        if last_status[-1:] != [detail["status"]]:
            last_status.append(detail["status"])
            print(
                f"tournament {args.id} {detail['name']!r}: {detail['status']}", file=out, flush=True
            )
        return detail

    detail = poll_until(
        fetch,
        lambda detail: detail["status"] in ("finished", "cancelled"),
        interval=args.interval,
        timeout=args.timeout,
        still=lambda detail: CommandError.local(
            "Still running",
            f"tournament {args.id} is {detail['status']} after {args.timeout:g} s; "
            f"run `truco tournament watch {args.id}` again to keep following it",
            slug="cli/timeout",
            exit_code=1,
        ),
    )
    if args.json:
        print_json(detail)
    else:
        _print_standings(detail)
        print(f"  page {platform.url}/tournaments/{args.id}")
    if detail["status"] == "cancelled":
        raise CommandError.local(
            "Cancelled", f"tournament {args.id} was cancelled", slug="cli/cancelled", exit_code=1
        )
    return 0


def _list(args: argparse.Namespace, platform: Platform) -> int:
    page = platform.get("/v1/tournaments", status=args.status, limit=args.limit)
    if args.json:
        print_json(page)
        return 0
    rows = [[t["id"], t["name"], t["format"], t["mode"], t["status"]] for t in page["items"]]
    print(table(["id", "name", "format", "mode", "status"], rows) if rows else "no tournaments")
    return 0


def _cancel(args: argparse.Namespace, platform: Platform) -> int:
    cancelled = platform.request("POST", f"/v1/tournaments/{args.id}/cancel", auth=True)
    if args.json:
        print_json(cancelled)
    else:
        count = len(cancelled["cancelled_matches"])
        print(f"tournament {args.id} cancelled ({count} unplayed match{'es' * (count != 1)})")
    return 0


COMMANDS = {
    "create": _create,
    "enter": _enter,
    "withdraw": _withdraw,
    "start": _start,
    "watch": _watch,
    "show": _show,
    "list": _list,
    "cancel": _cancel,
}


@platform_command
def run(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        check_platform(platform.url, vars(args).values())
        return COMMANDS[args.tournament_command](args, platform)
