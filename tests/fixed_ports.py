"""One test at a time on this machine for the tests that start what asks for fixed ports.

``make run``'s launcher gives its house bots ports 8101 and 8102 when they are free, and the
embedded PostgreSQL and Redis ask for 54329 and 56379 (``choose_port``: the preferred port if
free, else one the kernel picks). Two such tests at once, on two xdist workers (or in two runs
on one machine), both find a port free, then one of them fails to bind it or talks to the
other's server: a house bot registered at a port another launcher had just stopped ("connection
refused"), a child that died before reporting its servers. The ``fixed_ports`` fixture holds an
exclusive lock on a file in the system's temporary folder for the test's length."""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

LOCK = Path(tempfile.gettempdir()) / "truco-arena-tests-fixed-ports.lock"


@pytest.fixture
def fixed_ports() -> Iterator[None]:
    with LOCK.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # waits for the test holding it
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
