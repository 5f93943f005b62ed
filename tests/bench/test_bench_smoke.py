"""Every bench of ``python -m bench`` runs to completion at its smoke size (:mod:`bench.smoke`,
:mod:`tests.bench.smoke_run`): the quick ones here, the longer ones in the other
``test_bench_smoke_*.py`` files, so that several xdist workers share them."""

from __future__ import annotations

from collections import Counter

import pytest

from bench.__main__ import BENCHMARKS
from tests.bench.smoke_run import GROUPS, run_at_smoke_size

pytestmark = pytest.mark.slow


def test_the_groups_hold_every_bench_once() -> None:
    grouped = Counter(name for names in GROUPS.values() for name in names)
    assert sorted(grouped) == sorted(BENCHMARKS)
    assert set(grouped.values()) == {1}


@pytest.mark.parametrize("name", GROUPS["quick"])
def test_the_bench_runs_at_its_smoke_size(name: str) -> None:
    run_at_smoke_size(name)
