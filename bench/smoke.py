"""Smoke sizes: ``python -m bench --smoke [NAME ...]`` runs every bench at a size of seconds.

``--smoke`` sets ``BENCH_SMOKE=1`` before any bench is imported; a bench reads its sizes with
:func:`size` (``GAMES = size(4000, 20)``), so the same code runs at both sizes and a bench that
cannot run at all fails its smoke run (``tests/bench/test_bench_smoke.py``, part of ``make
test``). The smoke figures mean nothing: only that every step of the bench ran.
"""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

SMOKE_ENV = "BENCH_SMOKE"


def smoke() -> bool:
    """Whether this run is a smoke run (``BENCH_SMOKE=1``)."""
    return os.environ.get(SMOKE_ENV, "") == "1"


def size(full: T, small: T) -> T:
    """``full`` in a real run, ``small`` in a smoke run."""
    return small if smoke() else full


def env_size(name: str, full: str, small: str) -> str:
    """The environment variable ``name``, else its default for this run's size."""
    return os.environ.get(name, "").strip() or size(full, small)
