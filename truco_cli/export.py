"""`truco export decisions`: decision rows (JSON lines) from finished matches' replays.

A SOURCE is anything `truco verify tournament` takes (:mod:`truco_cli.tournament_source`, the
one resolver): a tournament id, its page or API address (its export is downloaded once), an
export file, or a replay file (as `truco play` writes or `GET /v1/matches/{id}/replay`
returns). From a tournament, every finished match (status ``done`` or ``forfeit``, the API's
words) with a replay is exported; byes, matches not played and live ones have none.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec

from arena.match.replay import Replay, VerifyError, load_replay
from services.domain import FINISHED_STATUSES
from truco_cli.errors import CommandError, platform_command
from truco_cli.tournament_source import EXIT_UNREADABLE, read_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", required=True, metavar="WHAT")
    decisions = sub.add_parser(
        "decisions", help="one JSON line per decision a seat made (for imitation learning)"
    )
    decisions.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a tournament id, page or API URL, an export file or a replay file",
    )
    decisions.add_argument("--out", required=True, help="the JSON lines file to write")
    decisions.add_argument(
        "--tensors",
        action="store_true",
        help="add the environment's encoding (observation_tensor, action_mask, action_index)",
    )
    decisions.add_argument("--force", action="store_true", help="overwrite --out if it exists")


def _unreadable(origin: str, why: str) -> CommandError:
    return CommandError.local(
        "Not a replay or a tournament export",
        f"{origin}: {why}",
        slug="cli/not-a-replay",
        exit_code=EXIT_UNREADABLE,
    )


def source_replays(data: bytes, origin: str) -> Iterator[Replay]:
    """The replays in a source's bytes: a tournament export's finished matches', or the one
    replay of a replay file."""
    from services.tournaments.files.export_document import decode_export

    try:
        document = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise _unreadable(origin, f"not JSON ({exc})") from None
    if isinstance(document, dict) and "tournament" in document and "matches" in document:
        try:
            export = decode_export(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise _unreadable(origin, f"a broken tournament export ({exc})") from None
        for match in export.matches:
            if match.status in FINISHED_STATUSES and match.replay is not None:
                yield match.replay
        return
    try:
        yield load_replay(data)
    except (msgspec.DecodeError, msgspec.ValidationError, VerifyError, ValueError) as exc:
        raise _unreadable(origin, str(exc)) from None


@platform_command
def run(args: argparse.Namespace) -> int:
    from truco_env.decisions import replay_rows

    out = Path(args.out)
    if out.exists() and not args.force:
        print(f"error: {out} exists; choose another --out or add --force", file=sys.stderr)
        return 2
    rows = matches = 0
    tmp = out.with_name(out.name + ".part")
    try:
        with tmp.open("w") as handle:
            for source in args.sources:
                data, origin = read_source(source)
                for replay in source_replays(data, origin):
                    matches += 1
                    for row in replay_rows(replay, tensors=args.tensors):
                        handle.write(json.dumps(row, separators=(",", ":")) + "\n")
                        rows += 1
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        print(f"error: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except CommandError:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, out)
    print(f"{rows} decisions from {matches} matches written to {out}")
    return 0
