"""Run every benchmark of ``BENCHMARKS`` (below), or the ones named: ``python -m bench NAME ...``."""

from __future__ import annotations

import importlib
import sys

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


def main(argv: list[str]) -> int:
    names = argv or BENCHMARKS
    for name in names:
        if name not in BENCHMARKS:
            print(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")
            return 2
        module = importlib.import_module(f"bench.{name}")
        print(f"== {name}")
        module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
