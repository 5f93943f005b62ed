"""Run every benchmark of ``BENCHMARKS`` (below), or the ones named: ``python -m bench NAME ...``.

``--smoke`` runs them at their smoke size (:mod:`bench.smoke`). Every bench runs even when one
before it failed (its traceback is printed); the run ends with each bench's wall time and exits
with 1 if any failed, so a bench that cannot run is noticed.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import traceback

from bench.smoke import SMOKE_ENV

BENCHMARKS = [
    "engine",
    "tournaments",
    "pairing_2v2",
    "arena",
    "arena_cost",
    "match_length",
    "luck",
    "rating_fit",
    "leaderboard",
    "concurrency",
    "live_feed",
    "live_stream",
    "live_pages",
    "flow_round_10k",
    "platform_round",
    "ladder_placement",
    "ladder_tick",
    "ladder_history",
    "ladder_live",
    "cancel_stop",
    "address_caps",
    "probe_round",
    "export_readers",
    "play_session",
    "play_table",
    "play_cluster",
    "page_views",
    "ladder_reads",
    "export_wait",
    "metrics",
]


def run_one(name: str) -> bool:
    """Run bench ``name``; False (its traceback printed) if it raised or exited non-zero."""
    module = importlib.import_module(f"bench.{name}")
    try:
        module.main()
    except SystemExit as exc:
        if exc.code not in (None, 0):
            print(f"{name}: exited with {exc.code}", file=sys.stderr)
            return False
    except Exception:
        traceback.print_exc()
        return False
    return True


def main(argv: list[str]) -> int:
    if argv[:1] == ["--smoke"]:
        os.environ[SMOKE_ENV] = "1"
        argv = argv[1:]
    names = argv or BENCHMARKS
    unknown = [name for name in names if name not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(BENCHMARKS)}")
        return 2
    took: dict[str, float] = {}
    failed: list[str] = []
    for name in names:
        print(f"== {name}", flush=True)
        start = time.perf_counter()
        if not run_one(name):
            failed.append(name)
        took[name] = time.perf_counter() - start
        sys.stdout.flush()
    if len(names) > 1:
        print("== wall time of each bench")
        for name, seconds in took.items():
            print(f"{name:<20} {seconds:8.1f} s{'  FAILED' if name in failed else ''}")
        print(f"{'total':<20} {sum(took.values()):8.1f} s")
    if failed:
        print(f"bench: {len(failed)} failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
