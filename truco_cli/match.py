"""`truco match show ID` and `truco match replay ID`: one match, its result (and why a side
lost by walkover or forfeit), its luck (docs/luck.md), and its replay document saved for
`truco replay verify`."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from arena.match.runner import DEFAULT_GAMES_PER_MATCH
from truco_cli.api import Platform, add_json, print_json
from truco_cli.errors import CommandError, platform_command
from truco_cli.luck_lines import luck_lines
from truco_cli.refs import check_platform, ref_type
from truco_cli.results import outcome, versus

OVER = ("done", "forfeit", "error", "cancelled")  # a match that will not change any more
GAMES_HELP = f"(default {DEFAULT_GAMES_PER_MATCH[2]} in 1v1, {DEFAULT_GAMES_PER_MATCH[4]} in 2v2)"


MATCH = ref_type("matches")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="match_command", metavar="SUBCOMMAND", required=True)
    show = sub.add_parser("show", help="a match's result, and why a side lost by walkover")
    show.add_argument("id", type=MATCH, metavar="ID")
    add_json(show)
    replay = sub.add_parser(
        "replay",
        help="save a finished match's replay (then: truco replay verify FILE)",
        description="Save the match's replay document to a file (never over an existing one) "
        "or, with --json, print it.",
    )
    replay.add_argument("id", type=MATCH, metavar="ID")
    replay.add_argument("--out", type=Path, help="the file (default match-ID.replay.json)")
    add_json(replay)


def describe(match: dict[str, Any]) -> str:
    """Who won what, and how (the platform's ``outcome``: winner first, the winner's score
    first, the reason when it is not a plain win on games, partnerships in individual 2v2); a
    line more for each side that lost by walkover or forfeit, saying why (its ``causes``)."""
    names = {entrant["bot_id"]: entrant["name"] for entrant in match["entrants"]}
    found = outcome(match)
    if found is None:
        return f"match {match['id']} {versus(match['entrants'])}: {match['status']}"
    lines = [f"match {match['id']}: {found.phrase}"]
    for cause in match.get("causes") or []:  # why a side lost by walkover or forfeit
        loser = names.get(cause.get("bot_id"), f"side {cause.get('side')}")
        status = f" ({cause['status']})" if cause.get("status") else ""
        summary = cause.get("summary") or f"{cause.get('kind')}{status} on /{cause.get('call')}"
        lines.append(f"  {loser}: {summary}")
    return "\n".join(lines)


def _show(args: argparse.Namespace, platform: Platform) -> int:
    match = platform.get(f"/v1/matches/{args.id}")
    if args.json:
        print_json(match)
        return 0
    print(describe(match))
    if match.get("tournament_id"):
        where = f"tournament {match['tournament_id']}"
    elif match.get("ladder"):
        where = f"ladder {match['ladder']}"
    else:
        where = "challenge"
    rated = "rated" if match.get("rated") else "unrated"
    print(f"  {match['mode']}, {where}, {rated}, {match['games_per_match']} games")
    for line in luck_lines(match):
        print(line)
    print(f"  page   {platform.url}/matches/{match['id']}")
    return 0


def _replay(args: argparse.Namespace, platform: Platform) -> int:
    replay = platform.get(f"/v1/matches/{args.id}/replay")
    if args.json:
        print_json(replay)
        return 0
    out: Path = args.out or Path(f"match-{args.id}.replay.json")
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise CommandError.local(
            "File exists", f"{out} is already there: remove it or give --out another name"
        ) from None
    except OSError as exc:
        raise CommandError.local("Cannot write the replay", str(exc)) from None
    with os.fdopen(fd, "w") as handle:
        json.dump(replay, handle, ensure_ascii=False)
    if replay.get("live"):
        print(f"wrote {out}: the match is still being played, this is the spectator view so far")
    else:
        print(f"wrote {out}; check it with: truco replay verify {out}")
    return 0


@platform_command
def run(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        check_platform(platform.url, vars(args).values())
        return _show(args, platform) if args.match_command == "show" else _replay(args, platform)
