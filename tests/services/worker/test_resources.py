"""A worker process's resources (:mod:`services.worker.resources`): one object per process,
made again after a fork; a value kept per name and key, made once however many threads ask,
made again when its key changes (the old one handed back to be closed)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.worker.app import WorkerApp
from services.worker.resources import Resources


def test_one_object_per_process_and_a_new_one_after_a_fork(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = WorkerApp("truco-test-resources")
    resources = app.resources
    first = resources.loop("test-resources-loop")
    assert app.resources is resources and app.resources.loop("test-resources-loop") is first
    parent = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: parent + 1)  # as in a forked child
    child = app.resources
    assert child is not resources and child.pid == parent + 1
    second = child.loop("test-resources-loop")
    assert second is not first and second.pid == parent + 1
    monkeypatch.undo()
    first.stop()
    second.stop()


def test_a_value_is_kept_per_key_and_the_replaced_one_is_handed_back() -> None:
    resources = Resources()
    closed: list[object] = []
    first = resources.kept("client", "redis://one", object, replaced=closed.append)
    assert resources.kept("client", "redis://one", object, replaced=closed.append) is first
    assert resources.kept("other", "redis://one", object) is not first  # names are apart
    second = resources.kept("client", "redis://two", object, replaced=closed.append)
    assert second is not first and closed == [first]


def test_threads_asking_at_once_get_the_one_value() -> None:
    resources = Resources()
    made: list[object] = []
    start = threading.Barrier(8)

    def make() -> object:
        made.append(object())
        return made[-1]

    def ask() -> object:
        start.wait(timeout=30)
        return resources.kept("shared", None, make)

    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda _: ask(), range(8)))
    assert len(made) == 1 and all(value is made[0] for value in found)
