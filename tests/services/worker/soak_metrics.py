"""The soak's metrics: every process's ``/metrics`` read every 2 s (the APIs on their own
port, each worker on its ``TRUCO_METRICS_PORT``), the last reading kept per incarnation (a
process started again counts from zero), and one last reading at the end."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import httpx
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    return sum(
        value
        for (sample, tags), value in samples.items()
        if sample == name and all((k, v) in tags for k, v in labels.items())
    )


@dataclass
class Incarnation:
    name: str
    pid: int
    url: str
    started: float
    """Wall-clock seconds when it was started."""
    samples: Samples = field(default_factory=dict)
    readings: int = 0
    retired: bool = False
    """About to be killed: its port's next answers are its successor's."""


@dataclass
class Scraper:
    incarnations: dict[int, Incarnation] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def watch(self, name: str, pid: int, url: str, started: float) -> None:
        with self.lock:
            self.incarnations[pid] = Incarnation(name, pid, url, started)

    def retire(self, pid: int) -> None:
        with self.lock:
            if pid in self.incarnations:
                self.incarnations[pid].retired = True

    def read_all(self, client: httpx.Client) -> None:
        with self.lock:
            found = [one for one in self.incarnations.values() if not one.retired]
        for one in found:
            try:
                answer = client.get(one.url, timeout=5)
            except httpx.HTTPError:
                continue  # killed, or not listening yet
            with self.lock:
                if one.retired or answer.status_code != 200:
                    continue
                one.samples = parse(answer.text)
                one.readings += 1

    def loop(self, stop: threading.Event) -> None:
        with httpx.Client(trust_env=False) as client:
            while not stop.wait(2.0):
                self.read_all(client)
