"""Run a command that dies with the process that started it: ``python exit_with_parent.py PID CMD...``.

The benchmarks start their workers in a session of their own (so that one signal stops a worker
and everything it started); a benchmark that is killed outright would leave them running for
good. This asks Linux to send SIGKILL to the command when its parent (``PID``, the benchmark)
dies (``prctl(PR_SET_PDEATHSIG)``, which survives the ``exec``), then becomes the command. On
another system, or should the parent already be gone, it says so and stops.

Run by its path with no import from the project, so that a benchmark can start another
checkout's worker through it (``BENCH_BASELINE_ROOT``). Benchmarks and tests only: a production
worker is supervised by its service manager, which decides what outlives what.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with(parent: int) -> None:
    """SIGKILL this process when ``parent`` dies (raises OSError where that is not possible)."""
    if not sys.platform.startswith("linux"):
        raise OSError("PR_SET_PDEATHSIG is Linux only")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # it died before the request was made
        raise OSError(f"the parent {parent} is gone")


def main(argv: list[str]) -> None:
    if len(argv) < 2 or not argv[0].isdigit():
        sys.exit("usage: exit_with_parent.py PARENT_PID COMMAND [ARG...]")
    try:
        die_with(int(argv[0]))
    except OSError as exc:
        sys.exit(f"exit_with_parent: {exc}")
    os.execvp(argv[1], argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
