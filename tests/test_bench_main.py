"""``python -m bench`` names only benchmarks that exist (so it has no "not written yet" case)."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import pytest

from bench.__main__ import BENCHMARKS, main
from bench.smoke import SMOKE_ENV, size, smoke


def test_every_named_benchmark_is_a_module_with_main() -> None:
    for name in BENCHMARKS:
        assert callable(importlib.import_module(f"bench.{name}").main), name


def test_an_unknown_benchmark_is_refused_before_any_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["engine-typo"]) == 2
    assert "unknown benchmark 'engine-typo'" in capsys.readouterr().out


def test_a_failing_bench_does_not_stop_the_others_and_fails_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[str] = []

    def broken() -> None:
        ran.append("engine")
        raise RuntimeError("POST /v1/bots: 409 too-many-bots")

    def fine() -> None:
        ran.append("arena")
        print('{"arena": {}}')

    modules = {
        "bench.engine": SimpleNamespace(main=broken),
        "bench.arena": SimpleNamespace(main=fine),
    }
    monkeypatch.setattr(importlib, "import_module", modules.__getitem__)
    assert main(["engine", "arena"]) == 1
    assert ran == ["engine", "arena"]
    out, err = capsys.readouterr()
    assert "409 too-many-bots" in err
    assert "bench: 1 failed: engine" in err
    assert "engine" in out and "FAILED" in out and "total" in out


def test_smoke_sets_the_smoke_size_for_the_benches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SMOKE_ENV, raising=False)
    seen: list[bool] = []
    fake = SimpleNamespace(main=lambda: seen.append(smoke()))
    monkeypatch.setattr(importlib, "import_module", lambda _name: fake)
    assert main(["--smoke", "engine"]) == 0
    assert seen == [True]
    assert size(4000, 40) == 40
