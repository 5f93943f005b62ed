"""The benches of group ``api`` at their smoke size (:mod:`tests.bench.smoke_run`)."""

from __future__ import annotations

import pytest

from tests.bench.smoke_run import GROUPS, run_at_smoke_size

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", GROUPS["api"])
def test_the_bench_runs_at_its_smoke_size(name: str) -> None:
    run_at_smoke_size(name)
