"""`truco verify tournament ID_OR_URL_OR_FILE`: check a whole tournament, offline after one
download (docs/verify.md).

The SOURCE is an export file (``GET /v1/tournaments/{id}/export`` saved, or ``--save``'s), a
tournament's address on a platform (its page ``http://HOST/tournaments/ID``, its API address
``http://HOST/v1/tournaments/ID``, or the export's), or a tournament id on the platform `truco`
is configured for. The document is downloaded once; every check then runs here
(:mod:`truco_cli.verify_event`). It prints one line per check and stops at the first
discrepancy, naming it.

Exit status: 0 every check passed; 1 a discrepancy (or the platform refused the download);
2 the source could not be read or is not an export; 3 every check made passed, but the seeds
could not be checked (an event from before seeds were committed, or one still running).
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import date
from pathlib import Path
from typing import Any

import msgspec

from services.ladder.model import LADDER_POOLS
from truco_cli import config
from truco_cli.errors import CommandError, platform_command
from truco_cli.tournament_source import EXIT_UNREADABLE, download, read_file, read_source
from truco_cli.verify_event import Discrepancy, verify_export
from truco_cli.verify_ladder import verify_ladder_day

EXIT_OK, EXIT_DISCREPANCY, EXIT_INCOMPLETE = 0, 1, 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", required=True, metavar="WHAT")
    tournament = sub.add_parser(
        "tournament",
        help="check a tournament's seeds, replays, results, standings and Elo changes",
        description=(
            "Download a tournament's export once (or read a saved one) and check, offline: the "
            "commitment against the revealed master seed, every match seed's derivation, every "
            "replay by re-simulation, every result, the standings and every Elo change. Exit "
            "status 0: all verified; 1: a discrepancy; 2: unreadable source; 3: verified "
            "except the seeds (legacy event, or master seed not revealed yet)."
        ),
    )
    tournament.add_argument(
        "source", metavar="ID_OR_URL_OR_FILE", help="a tournament id, its URL, or an export file"
    )
    tournament.add_argument(
        "--save", type=Path, metavar="FILE", help="also write the downloaded export to FILE"
    )
    tournament.add_argument(
        "--commitment",
        metavar="HEX",
        help="the seed commitment you recorded earlier (e.g. when the tournament was created): "
        "the export must publish the same",
    )
    _add_ladder(sub)


def _add_ladder(sub: Any) -> None:
    ladder = sub.add_parser(
        "ladder",
        help="check a ladder day's seeds, replays, results and Elo changes",
        description=(
            "Download a ladder day's export once (or read a saved one with --file) and check, "
            "offline: the day's commitment against its revealed master seed, every match seed's "
            "derivation from it, every replay by re-simulation, every result and every Elo "
            "change. Exit status 0: all verified; 1: a discrepancy; 2: unreadable source; 3: "
            "verified except the seeds (the day is not over, or a match of it still plays)."
        ),
    )
    ladder.add_argument("pool", choices=LADDER_POOLS)
    ladder.add_argument("day", metavar="DAY", help="the day, YYYY-MM-DD (UTC)")
    ladder.add_argument("--file", type=Path, metavar="FILE", help="a saved export of the day")
    ladder.add_argument(
        "--save", type=Path, metavar="FILE", help="also write the downloaded export to FILE"
    )


def _save(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise CommandError.local(
            "File exists", f"{path} is already there: remove it or --save elsewhere"
        ) from None
    except OSError as exc:
        raise CommandError.local("Cannot save the export", f"{path}: {exc.strerror}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    print(f"saved {path}")


def _run_ladder(args: argparse.Namespace) -> int:
    try:
        day = date.fromisoformat(args.day)
    except ValueError:
        print(f"error: {args.day!r} is not a day: write it YYYY-MM-DD", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.file is not None:
        data, origin = read_file(args.file), str(args.file)
    else:
        origin = f"{config.load().url}/v1/ladders/{args.pool}/days/{day.isoformat()}/export"
        print(f"downloading {origin}")
        data = download(origin)
    if args.save is not None:
        _save(args.save, data)
    from services.tournaments.files.export_document import decode_ladder_day

    try:
        doc = decode_ladder_day(data)
    except (ValueError, msgspec.ValidationError) as exc:
        print(f"error: {origin} is not a ladder day export: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if (doc.pool, doc.day) != (args.pool, day.isoformat()):
        print(
            f"FAIL  the export is of the {doc.pool} ladder on {doc.day}, not {args.pool} on {day}"
        )
        return EXIT_DISCREPANCY
    print(f"ladder {doc.pool} on {doc.day}: {len(doc.matches)} matches")
    try:
        outcome = verify_ladder_day(doc)
    except Discrepancy as exc:
        print(f"FAIL  {exc}")
        return EXIT_DISCREPANCY
    if not outcome.complete:
        print("partly verified: every check made passed, but the seeds could not be checked")
        return EXIT_INCOMPLETE
    print("verified: every check passed")
    return EXIT_OK


@platform_command
def run(args: argparse.Namespace) -> int:
    if args.what == "ladder":
        return _run_ladder(args)
    data, origin = read_source(args.source)
    if args.save is not None:
        _save(args.save, data)
    from services.tournaments.files.export_document import decode_export

    try:
        doc = decode_export(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        print(f"error: {origin} is not a tournament export: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    t = doc.tournament
    print(
        f"tournament {t.id} {t.name!r} ({t.format}, {t.mode}, {t.status}): "
        f"{len(doc.entries)} entries, {len(doc.rounds)} rounds, {len(doc.matches)} matches"
    )
    try:
        outcome = verify_export(doc, recorded_commitment=args.commitment)
    except Discrepancy as exc:
        print(f"FAIL  {exc}")
        return EXIT_DISCREPANCY
    if not outcome.complete:
        print("partly verified: every check made passed, but the seeds could not be checked")
        return EXIT_INCOMPLETE
    print("verified: every check passed")
    return EXIT_OK
