"""How many xdist workers ``-n auto`` starts: two per core (registered in ``tests/conftest.py``).

Half of a worker's time in this suite is waiting, not computing: for bot servers, worker
processes, Chromium, deadlines that must pass. With one worker a core, a 2-core machine's
cores sat idle more than half the time (6 min of CPU in a 6 min 55 s run, 43 %); two a core
overlap the waits. Measured on this 2-core machine, the same commit: 6 min 55 s with 2 workers,
5 min 5 s with 4, 5 min 24 s with 6 (more workers only add contention). ``TRUCO_TEST_WORKERS``
sets the number outright (for a machine with little memory: each worker holds its own
databases, Redis prefix and browser).
"""

from __future__ import annotations

import os

import pytest

PER_CORE = 2


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    given = os.environ.get("TRUCO_TEST_WORKERS", "").strip()
    if given.isdigit() and int(given) > 0:
        return int(given)
    if hasattr(os, "sched_getaffinity"):  # the cores this process may use (Linux)
        return PER_CORE * len(os.sched_getaffinity(0))
    return PER_CORE * (os.cpu_count() or 1)
