"""``bench/exit_with_parent.py``: what a benchmark starts through it dies with the benchmark."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

GUARD = Path(__file__).resolve().parents[1] / "bench" / "exit_with_parent.py"
# a stand-in for a benchmark: starts a long sleep through the guard, prints its pid, waits
PARENT = f"""
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, {str(GUARD)!r}, str(os.getpid()), "sleep", "300"],
                         start_new_session=True)
print(child.pid, flush=True)
time.sleep(300)
"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie not yet reaped by init counts as gone
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_the_command_dies_with_its_parent_even_in_a_session_of_its_own() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        time.sleep(0.3)
        assert alive(child)
        parent.kill()  # SIGKILL: the benchmark gets no chance to clean up
        parent.wait()
        deadline = time.monotonic() + 5
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)


def test_a_parent_already_gone_stops_it_before_the_command_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(GUARD), "1", "true"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "the parent 1 is gone" in done.stderr
