"""Where the suite's CPU goes, file by file: ``TRUCO_TEST_CPU=PATH`` turns it on (registered in
``tests/conftest.py``; off by default).

On 2 cores the suite is bound by the processor (docs/storage.md), so a file's wall time under
xdist says more about its neighbours than about itself. With the variable set, each pytest
process (every xdist worker, and the controller) adds up per test file the CPU time of its own
threads and of the child processes it has reaped (servers, workers, bots, Chromium: ``getrusage``
of itself and of its children) over each test's setup, call and teardown, and appends one JSON
line per file to PATH when its session ends; what no test took (start-up, collection) is the line
of :data:`OUTSIDE` (the xdist controller's is its own CPU only: its children are the workers).
PostgreSQL and Redis run apart and are not counted.

    TRUCO_TEST_CPU=/tmp/cpu.jsonl make pytest
    .venv/bin/python -m tests.cpu_report /tmp/cpu.jsonl      # the files, most CPU first
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Generator, Iterable
from pathlib import Path

import pytest

ENV = "TRUCO_TEST_CPU"
OUTSIDE = "(start-up and collection)"


def own_cpu() -> float:
    """This process's CPU time, user and system."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def children_cpu() -> float:
    """The CPU time of the child processes this one has reaped, user and system."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def cpu_seconds() -> float:
    """This process's CPU time and its reaped children's."""
    return own_cpu() + children_cpu()


class Tally:
    """One process's CPU and wall seconds by test file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        cpu, wall = cpu_seconds(), time.monotonic()
        yield
        name = item.nodeid.split("::")[0]
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu_seconds() - cpu
        self.wall[name] = self.wall.get(name, 0.0) + time.monotonic() - wall

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        rows = [{"file": f, "cpu_s": self.cpu[f], "wall_s": self.wall[f]} for f in self.cpu]
        if session.config.pluginmanager.has_plugin("dsession"):
            # the xdist controller: its children are the workers, whose lines count them
            outside = own_cpu()
        else:
            outside = cpu_seconds() - sum(self.cpu.values())
        rows.append({"file": OUTSIDE, "cpu_s": outside})
        text = "".join(json.dumps(row) + "\n" for row in rows)
        with self.path.open("a") as out:  # one write a process: the workers share the file
            out.write(text)


def pytest_configure(config: pytest.Config) -> None:
    target = os.environ.get(ENV, "").strip()
    if target:
        config.pluginmanager.register(Tally(Path(target)), "truco-cpu-report")


def totals(lines: Iterable[str]) -> dict[str, float]:
    """CPU seconds by file over every process's lines."""
    found: dict[str, float] = {}
    for line in lines:
        if line.strip():
            row = json.loads(line)
            found[row["file"]] = found.get(row["file"], 0.0) + float(row["cpu_s"])
    return found


def report(found: dict[str, float], top: int = 40) -> str:
    whole = sum(found.values())
    lines = [f"{whole:8.1f} s of CPU in all (PostgreSQL and Redis apart)"]
    for name, cpu in sorted(found.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"{cpu:8.1f} s {100 * cpu / whole:5.1f} %  {name}")
    return "\n".join(lines)


if __name__ == "__main__":
    try:
        print(report(totals(Path(sys.argv[1]).read_text().splitlines())))
    except BrokenPipeError:  # read through `head`
        sys.stderr.close()
