"""Every bench of ``python -m bench`` runs to completion at its smoke size (:mod:`bench.smoke`).

Each bench runs as ``python -m bench --smoke NAME`` in a process of its own (benches start
servers, workers and databases of their own, on 127.0.0.1) and must exit 0 and print at least
one JSON line: a bench that cannot run (a limit it does not lift, a moved import, a server that
no longer starts) fails here instead of in the next ``make bench``. The figures of a smoke run
mean nothing and are not checked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 600  # a hang guard only: a smoke run takes seconds

pytestmark = pytest.mark.slow


def json_lines(text: str) -> list[object]:
    found = []
    for line in text.splitlines():
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


@pytest.mark.parametrize("name", BENCHMARKS)
def test_the_bench_runs_at_its_smoke_size(name: str) -> None:
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
