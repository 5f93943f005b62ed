"""``tests/cpu_report.py``: the CPU a test file took, its reaped child processes included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cpu_report import ENV, OUTSIDE, children_cpu, report, totals

ROOT = Path(__file__).resolve().parents[1]
CHILD_CPU_S = 0.3
# a test whose child process burns CPU_S of CPU, and one that does nothing
BUSY = f"""
import subprocess, sys

def test_busy() -> None:
    burn = "import time\\nwhile time.process_time() < {CHILD_CPU_S}: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
"""
IDLE = "def test_idle() -> None:\n    assert True\n"


@pytest.mark.parametrize(
    "workers", [[], ["-p", "xdist.plugin", "-n", "2"]], ids=["one process", "xdist"]
)
def test_a_file_is_charged_for_its_child_processes_cpu_and_nothing_twice(
    tmp_path: Path, workers: list[str]
) -> None:
    (tmp_path / "test_busy.py").write_text(BUSY)
    (tmp_path / "test_idle.py").write_text(IDLE)
    out = tmp_path / "cpu.jsonl"
    # no plugin but these two: the installed ones (Hypothesis, schemathesis, ...) cost seconds
    env = {
        **os.environ,
        ENV: str(out),
        "PYTHONPATH": str(ROOT),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    before = children_cpu()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "tests.cpu_report",
            "-p",
            "no:cacheprovider",
            *workers,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    spent = children_cpu() - before
    assert done.returncode == 0, done.stdout + done.stderr
    found = totals(out.read_text().splitlines())
    assert set(found) == {"test_busy.py", "test_idle.py", OUTSIDE}
    assert found["test_busy.py"] >= CHILD_CPU_S > found["test_idle.py"]
    # every process's lines together are at most what the whole run took (with xdist the
    # controller's children are the workers: counted twice, the sum would be far above it)
    assert sum(found.values()) <= spent


def test_the_report_sums_the_processes_lines_and_puts_the_costliest_first() -> None:
    lines = [
        '{"file": "a.py", "cpu_s": 1.0, "wall_s": 2.0}',
        '{"file": "b.py", "cpu_s": 5.0, "wall_s": 6.0}',
        "",
        '{"file": "a.py", "cpu_s": 2.0, "wall_s": 2.0}',
        f'{{"file": "{OUTSIDE}", "cpu_s": 2.0}}',
    ]
    found = totals(lines)
    assert found == {"a.py": 3.0, "b.py": 5.0, OUTSIDE: 2.0}
    text = report(found).splitlines()
    assert text[0].startswith("    10.0 s of CPU in all")
    assert [line.split()[-1] for line in text[1:3]] == ["b.py", "a.py"]
