"""``python -m bench`` names only benchmarks that exist (so it has no "not written yet" case)."""

from __future__ import annotations

import importlib

import pytest

from bench.__main__ import BENCHMARKS, main


def test_every_named_benchmark_is_a_module_with_main() -> None:
    for name in BENCHMARKS:
        assert callable(importlib.import_module(f"bench.{name}").main), name


def test_an_unknown_benchmark_is_refused_before_any_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["engine-typo"]) == 2
    assert "unknown benchmark 'engine-typo'" in capsys.readouterr().out
