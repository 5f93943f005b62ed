"""`truco replay verify FILE...`: re-simulate replays and fail on any difference."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.match.replay import VerifyError, load_replay
from arena.match.verify import verify_replay
from engine.events import HandEnded


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    verify = sub.add_parser("verify", help="re-simulate each replay through the engine")
    verify.add_argument("files", nargs="+", metavar="FILE")


def run(args: argparse.Namespace) -> int:
    failures = 0
    for name in args.files:
        try:
            replay = load_replay(Path(name).read_bytes())
            verify_replay(replay)
        except OSError as exc:
            failures += 1
            print(f"{name}: FAIL cannot read the file: {exc.strerror}")
        except VerifyError as exc:
            failures += 1
            print(f"{name}: FAIL {exc}")
        else:
            hands = sum(1 for g in replay.games for e in g.events if isinstance(e, HandEnded))
            print(f"{name}: ok ({len(replay.games)} games, {hands} hands)")
    return 1 if failures else 0
