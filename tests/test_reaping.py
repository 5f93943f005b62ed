"""What a test starts (``tests/services/worker/processes.py`` ``start``) does not outlive the
test process, however it ends: Ctrl-C (atexit), SIGTERM (its handler), or ``kill -9`` (the
kernel's ``PR_SET_PDEATHSIG``). A soak interrupted used to leave Celery workers behind, which
then took other runs' tasks."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.services.worker.processes import process_groups_alive

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """
import sys, time
from pathlib import Path
from tests.services.worker.processes import start
child = start([sys.executable, "-c", "import time; time.sleep(600)"], {}, Path(sys.argv[1]))
print(child.pid, flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_started_process_dies_with_the_test_process(signum: int, tmp_path: Path) -> None:
    test = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "child.log")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert test.stdout is not None
    child = int(test.stdout.readline())
    assert process_groups_alive({child}) == {child}
    test.send_signal(signum)
    test.wait(30)
    deadline = time.monotonic() + 30
    while process_groups_alive({child}):
        assert time.monotonic() < deadline, f"process {child} outlived the test process"
        time.sleep(0.05)
