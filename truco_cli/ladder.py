"""`truco ladder join|leave|resume|show|watch POOL ...`: the ladders (docs/ladder.md).

A bot on a ladder plays rated matches the platform chooses, against bots of other owners,
until it leaves; ``show`` prints the table (rank, rating and its 95% interval, LOS over the
next bot, matches, placement, paused), ``watch`` reprints it as it changes."""

from __future__ import annotations

import argparse
import time
from typing import Any

from services.ladder.model import LADDER_POOLS
from truco_cli.api import Platform, add_json, print_json, table
from truco_cli.errors import platform_command

WATCH_EVERY_S = 5.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, help_ in (
        ("join", "put your bot on the ladder (the platform calls its GET / first)"),
        ("leave", "take your bot off the ladder (its rating stays)"),
        ("resume", "resume your bot after the ladder paused it"),
    ):
        action = sub.add_parser(name, help=help_, description=help_)
        action.add_argument("pool", choices=LADDER_POOLS)
        action.add_argument("bot", help="your bot's id or name")
        if name in ("join", "resume"):
            action.add_argument(
                "--hourly-cap",
                type=int,
                metavar="N",
                help="at most N ladder matches an hour (the platform's cap is the most)",
            )
        add_json(action)
    for name, help_ in (
        ("show", "the ladder's table"),
        ("watch", f"the ladder's table, again every {WATCH_EVERY_S:g} s until Ctrl-C"),
    ):
        action = sub.add_parser(name, help=help_, description=help_)
        action.add_argument("pool", choices=LADDER_POOLS, nargs="?", default="1v1")
        add_json(action)


def placement_text(placement: dict[str, Any]) -> str:
    if placement["state"] == "placed":
        return "placed"
    if placement["state"] == "waiting":
        return "waiting for its first rated match"
    if placement["state"] == "needs_opponents":
        needed = placement.get("needed") or 0
        return (
            f"waiting for opponents: {placement.get('opponents') or 0} of about {needed} "
            f"bot{'' if needed == 1 else 's'} of other owners a placement needs"
        )
    about = placement.get("about")
    if about is None and placement.get("at_least") is not None:
        return (
            f"placement: {placement['matches']} of at least {placement['at_least']} matches "
            "(not fitted yet)"
        )
    return f"placement: {placement['matches']} of about {about} matches"


def entry_text(entry: dict[str, Any]) -> str:
    interval = entry.get("interval")
    shown = f"{entry['rating']:.0f}" if entry.get("rating") is not None else "-"
    if interval:
        shown += f" ({interval[0]:.0f}-{interval[1]:.0f})"
    paused = ""
    if entry["paused"]:
        paused = " paused" + (f": {entry['pause_cause']}" if entry.get("pause_cause") else "")
    return f"{entry['name']} (bot {entry['bot_id']}) {shown}, {placement_text(entry['placement'])}{paused}"


def table_text(board: dict[str, Any]) -> str:
    if not board["entries"]:
        return f"no bot on the {board['pool']} ladder yet: `truco ladder join {board['pool']} BOT`"
    rows = [
        [
            e["rank"],
            e["name"] + (" (paused)" if e["paused"] else ""),
            e["owner"],
            None if e["rating"] is None else round(e["rating"]),
            None if not e["interval"] else f"{e['interval'][0]:.0f}-{e['interval'][1]:.0f}",
            None if e["los_next"] is None else f"{100 * e['los_next']:.0f}%",
            e["matches"],
            placement_text(e["placement"]) + ("" if not e["playing"] else ", playing"),
        ]
        for e in board["entries"]
    ]
    text = table(
        ["rank", "bot", "owner", "rating", "95% interval", "LOS", "matches", "state"], rows
    )
    causes = [
        f"{e['name']}: paused ({e['pause_cause']}); `truco ladder resume {board['pool']} "
        f"{e['bot_id']}` when it is fixed"
        for e in board["entries"]
        if e["paused"] and e.get("pause_cause")
    ]
    notes = [
        "LOS: the chance, by the pool's fit, that a bot is stronger than the bot below it in "
        "this table (the table is in the fit's order)"
    ]
    if any(e["placement"]["state"] == "needs_opponents" for e in board["entries"]):
        notes.append(
            "waiting for opponents: the ladder has met it with every bot it may meet as often "
            "as a ladder day allows, or has too few owners to seat a match; more bots joining, "
            "or the next day (UTC), let it play on"
        )
    footer = f"{board['in_flight']} ladder matches playing"
    if board.get("commitment"):
        footer += f"; today's seed commitment {board['commitment']}"
    return "\n".join([text, *causes, *notes, footer])


@platform_command
def run(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        if args.action in ("show", "watch"):
            return _show(platform, args)
        bot = platform.bot_id(args.bot)
        base = f"/v1/ladders/{args.pool}/entries"
        if args.action == "join":
            body = {"bot_id": bot, "hourly_cap": args.hourly_cap}
            entry = platform.request("POST", base, body=body, auth=True)
        elif args.action == "resume":
            body = {"resume": True, "hourly_cap": args.hourly_cap}
            entry = platform.request("PATCH", f"{base}/{bot}", body=body, auth=True)
        else:
            platform.request("DELETE", f"{base}/{bot}", auth=True)
            entry = None
    if args.json:
        print_json(entry if entry is not None else {"left": bot, "pool": args.pool})
    elif entry is None:
        print(f"bot {bot} left the {args.pool} ladder")
    else:
        print(f"on the {args.pool} ladder: {entry_text(entry)}")
    return 0


def _show(platform: Platform, args: argparse.Namespace) -> int:
    authed = bool(platform.key)
    while True:
        board = platform.request("GET", f"/v1/ladders/{args.pool}", auth=authed)
        if args.json:
            print_json(board)
        else:
            print(table_text(board))
        if args.action == "show":
            return 0
        time.sleep(WATCH_EVERY_S)
        print()
