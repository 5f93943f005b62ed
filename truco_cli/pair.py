"""``truco pair FILE.json``: pair the next Swiss round and print it as JSON.

Output: ``{"pairs": [{"a": id, "b": id, "mano": id}, ...], "bye": id | null}``. Problems in the
file, a finished event (``total_rounds`` reached) or no rematch-free pairing are reported on
stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import sys

import msgspec


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="tournament JSON: players, rounds, total_rounds")


def read_file(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        print(f"truco: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    from services.tournaments.files.tournament_file import FileError, parse_tournament
    from services.tournaments.swiss.pairing import NoValidPairing, pair_round

    data = read_file(args.file)
    if data is None:
        return 2
    try:
        tournament = parse_tournament(data)
        if (
            tournament.total_rounds is not None
            and len(tournament.rounds) >= tournament.total_rounds
        ):
            raise FileError(f"all {tournament.total_rounds} rounds are already played")
        pairing = pair_round(
            tournament.players, tournament.rounds, total_rounds=tournament.total_rounds
        )
    except (FileError, NoValidPairing) as exc:
        print(f"truco pair: {args.file}: {exc}", file=sys.stderr)
        return 2
    out = {
        "pairs": [{"a": p.a, "b": p.b, "mano": p.mano} for p in pairing.pairs],
        "bye": pairing.bye,
    }
    sys.stdout.write(msgspec.json.encode(out).decode() + "\n")
    return 0
