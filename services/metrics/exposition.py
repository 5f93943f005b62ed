"""The metrics of a process (or of a prefork pool) as the text Prometheus reads.

One process: the client's default registry, which holds every metric of
:mod:`services.metrics.catalog` and the process's own (CPU, memory, file descriptors, the
garbage collector). Several processes behind one scrape (Celery's prefork pool, uvicorn's
``--workers``): each writes its values to files in ``PROMETHEUS_MULTIPROC_DIR``, and a
registry holding only the client's ``MultiProcessCollector`` adds them up at each scrape
(the Prometheus client's multiprocess mode: docs of ``prometheus_client``, "Multiprocess
Mode"). The client decides which of the two it writes to when it is imported, from that same
variable, so the variable must be in the process's environment when it starts; the platform
reads it through its settings (``metrics.multiproc_dir``) only to know which registry to
expose.

The folder belongs to one API or one worker: it must be empty when that one starts. ``make
run`` gives each child a fresh one; a process started by hand empties what dead processes
left (:func:`forget_dead_processes`) before it writes anything of its own.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

_FILE = re.compile(r"^[a-z_]+_(?P<pid>\d+)\.db$")
CONTENT_TYPE = "text/plain; version=0.0.4"
"""The text format's media type, as the client's own server sends it (every Prometheus reads
it), without the charset (a web framework adds its own)."""


def registry_for(multiproc_dir: str | None, extra: Iterable[Collector] = ()) -> CollectorRegistry:
    """The registry a scrape reads: this process's (``multiproc_dir`` None) or every process's
    files in ``multiproc_dir``; ``extra`` collectors (read at each scrape, in this process)
    are added. Without ``extra`` and a folder, the client's default registry itself."""
    extra = list(extra)
    if multiproc_dir is None and not extra:
        return REGISTRY
    registry = CollectorRegistry(auto_describe=True)
    if multiproc_dir is None:
        registry.register(_Default())
    else:
        MultiProcessCollector(registry, path=multiproc_dir)  # type: ignore[no-untyped-call]
    for collector in extra:
        registry.register(collector)
    return registry


class _Default:
    """The default registry's metrics, inside another registry."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


def render(registry: CollectorRegistry) -> bytes:
    """The text exposition format of everything ``registry`` holds now."""
    return generate_latest(registry)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def forget_dead_processes(multiproc_dir: str | None) -> list[int]:
    """Delete the files of processes that are no longer running (a previous run's, or a pool
    process that died): their counters would be added to this run's, their gauges would stay
    forever. The pids whose files went. Call it once, in the process that starts the others,
    before they count anything."""
    if multiproc_dir is None:
        return []
    folder = Path(multiproc_dir)
    folder.mkdir(parents=True, exist_ok=True)
    gone: set[int] = set()
    for path in folder.iterdir():
        found = _FILE.match(path.name)
        if found is None:
            continue
        pid = int(found["pid"])
        if pid == os.getpid() or _pid_alive(pid):
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        gone.add(pid)
    return sorted(gone)


def process_ended(multiproc_dir: str | None, pid: int) -> None:
    """A pool process is ending: its live gauges stop counting (its counters stay, as they
    should: what it counted happened)."""
    if multiproc_dir is not None:
        mark_process_dead(pid, multiproc_dir)  # type: ignore[no-untyped-call]
