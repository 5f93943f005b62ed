"""`truco check URL`: a conformance probe for bot authors (see arena/conformance/check.py)."""

from __future__ import annotations

import argparse
import os
import sys

from arena.client.signing import InvalidSecret
from arena.conformance.check import RANDOM_DECISIONS, check_bot


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the bot's base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument(
        "--secret",
        default=os.environ.get("TRUCO_BOT_SECRET"),
        help="the bot's whsec_... secret: sign with it and require the bot to refuse a wrong "
        "signature (default: $TRUCO_BOT_SECRET)",
    )
    parser.add_argument(
        "--timeout-ms", type=int, default=1000, help="limit of each call in ms (default 1000)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="seed of the random games (default 1): another seed asks other positions",
    )
    parser.add_argument(
        "--decisions",
        type=int,
        default=RANDOM_DECISIONS,
        help=f"decisions from random games, at least {RANDOM_DECISIONS} (the default); more "
        "are played until every family of decision is reached",
    )


def run(args: argparse.Namespace) -> int:
    if args.timeout_ms < 1:
        print("error: --timeout-ms must be at least 1", file=sys.stderr)
        return 2
    if args.decisions < RANDOM_DECISIONS:
        print(f"error: --decisions must be at least {RANDOM_DECISIONS}", file=sys.stderr)
        return 2
    print(f"truco check {args.url}", flush=True)
    try:
        report = check_bot(
            args.url,
            args.secret or None,
            args.timeout_ms,
            seed=args.seed,
            decisions=args.decisions,
        )
    except InvalidSecret as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1
