"""``truco standings FILE.json``: print the Swiss standings with every tiebreak as JSON.

Output: ``{"tiebreaks": [...order...], "standings": [{"place", "id", <tiebreak>: value}]}``.
``--tiebreaks a,b,c`` changes the order (names as printed). Errors go to stderr, exit 2.
"""

from __future__ import annotations

import argparse
import sys

import msgspec

from truco_cli.pair import read_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="tournament JSON: players, rounds, total_rounds")
    parser.add_argument(
        "--tiebreaks",
        help="comma-separated order, default: match_points,buchholz_cut1,buchholz,"
        "sonneborn_berger,direct_encounter,game_points,tantos_difference",
    )


def run(args: argparse.Namespace) -> int:
    from services.tournaments.files.tournament_file import FileError, parse_tournament
    from services.tournaments.standings import DEFAULT_TIEBREAKS, Tiebreak, compute_standings

    order = list(DEFAULT_TIEBREAKS)
    if args.tiebreaks:
        try:
            order = [Tiebreak(name.strip()) for name in args.tiebreaks.split(",")]
        except ValueError as exc:
            names = ", ".join(t.value for t in Tiebreak)
            print(f"truco standings: {exc}; choose from {names}", file=sys.stderr)
            return 2
    data = read_file(args.file)
    if data is None:
        return 2
    try:
        tournament = parse_tournament(data)
    except FileError as exc:
        print(f"truco standings: {args.file}: {exc}", file=sys.stderr)
        return 2
    rows = compute_standings(tournament.players, tournament.rounds, order)
    out = {
        "tiebreaks": [t.value for t in order],
        "standings": [{"place": r.place, "id": r.id, **r.values} for r in rows],
    }
    sys.stdout.write(msgspec.json.encode(out).decode() + "\n")
    return 0
