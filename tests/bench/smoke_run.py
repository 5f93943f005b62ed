"""One bench at its smoke size, in a process of its own, and the benches' split into test files.

Each bench runs as ``python -m bench --smoke NAME`` (benches start servers, workers and databases
of their own, on 127.0.0.1) and must exit 0 and print at least one JSON line: a bench that
cannot run (a limit it does not lift, a moved import, a server that no longer starts) fails in
``make test`` instead of in the next ``make bench``. The figures of a smoke run mean nothing and
are not checked.

The benches are split over a few test files (:data:`GROUPS`), since ``make test`` keeps a file
on one xdist worker: the thirty smoke runs take about 150 s one after another (most of it
starting servers and workers; each bench's smoke size is the least that still runs its whole
path), too long for one file. The groups are balanced by those measured times;
``tests/bench/test_bench_smoke.py`` checks that they hold every bench exactly once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 600  # a hang guard only: a smoke run takes seconds

# group -> benches, each group one test file (tests/bench/test_bench_smoke*.py); in the comments
# each smoke run's seconds alone (`/usr/bin/time python -m bench --smoke NAME`, one after another
# on the shared 2-core machine; a group's total: quick 39 s, pages 36 s, platform 43 s, api 27 s)
GROUPS: dict[str, list[str]] = {
    "quick": [  # each 4 s or less, but export_wait (5 s)
        "engine",
        "tournaments",
        "pairing_2v2",
        "arena",
        "arena_cost",
        "match_length",
        "luck",
        "rating_fit",
        "leaderboard",
        "live_feed",
        "live_stream",
        "flow_round_10k",
        "ladder_placement",
        "ladder_tick",
        "ladder_history",
        "probe_round",
        "play_session",
        "concurrency",
        "export_wait",
        "metrics",
    ],
    # the pages, two of them in Chromium: 14 s, 14 s, 8 s
    "pages": ["live_pages", "page_views", "play_table"],
    # whole platforms (API and workers): 9 s, 12 s, 10 s, 12 s
    "platform": ["platform_round", "cancel_stop", "play_cluster", "ladder_live"],
    # one API process under load: 12 s, 6 s, 10 s
    "api": ["ladder_reads", "export_readers", "address_caps"],
}


def json_lines(text: str) -> list[object]:
    found = []
    for line in text.splitlines():
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


def run_at_smoke_size(name: str) -> None:
    """Run bench ``name`` at its smoke size; fail unless it exits 0 and prints a JSON line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_")}
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", name],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert done.returncode == 0, f"{name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert f"== {name}" in done.stdout
    assert json_lines(done.stdout), f"{name} printed no JSON line:\n{done.stdout[-3000:]}"
