"""`truco scenario FILE...`: run golden scenario files and report ok / FAIL per file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import msgspec

from engine.scenario import ScenarioError, check_scenario


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="scenario JSON files")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print each file's actual outcome as one JSON object, whatever 'expect' says",
    )


def _load(path: Path) -> object:
    try:
        return msgspec.json.decode(path.read_bytes())
    except OSError as exc:
        raise ScenarioError(f"cannot read the file: {exc.strerror}") from None
    except msgspec.DecodeError as exc:
        raise ScenarioError(f"not valid JSON: {exc}") from None


def run(args: argparse.Namespace) -> int:
    failures = 0
    for name in args.files:
        path = Path(name)
        try:
            data = _load(path)
            outcome, difference = check_scenario(data)
        except ScenarioError as exc:
            failures += 1
            print(f"{name}: FAIL invalid scenario: {exc}")
            continue
        if args.json:
            record = {"file": name, **msgspec.to_builtins(outcome)}
            print(msgspec.json.encode(record).decode())
            if difference is not None:
                failures += 1
            continue
        if difference is None:
            print(f"{name}: ok")
        else:
            failures += 1
            print(f"{name}: FAIL {difference}")
    if failures and not args.json:
        print(f"{failures} of {len(args.files)} failed", file=sys.stderr)
    return 1 if failures else 0
