"""The suite's order: the test files marked ``slow`` first, each file's tests kept together
and in their order (registered in ``tests/conftest.py``).

``make test`` runs ``pytest -n auto --dist loadfile --no-loadscope-reorder``: each file goes
whole to one xdist worker, in the order collected. xdist's own order (``--loadscope-reorder``,
its default: the files with the most tests first) handed out the slow one-test files last
(a crash test of 50 s, the platform round, the 50-match worker, ...), so the run ended with
one worker on one of them and the other idle. Longest first is the usual remedy, and the
``slow`` mark is what says long here: a file whose tests take tens of seconds carries it
(``pytestmark``), and nothing else reads it.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: each file keeps its order
