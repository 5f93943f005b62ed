"""The soak's clients through the proxy: what every request answered (:class:`Answers`: the
5xx are kept, each with when it came), and scripted people playing /play sessions one after
another, each following its session's stream (resuming with Last-Event-ID wherever the proxy
sends it) and answering through the proxy with the first legal action after a short think."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.services.worker.play_cluster import sse_frames

RETRYABLE = (502, 503, 504)
SESSION_GUARD_S = 300.0
"""A hang guard: a session not over by then is stuck (a session lasts a minute or two; a
result lost with its trusted worker is stored by the sweeper 30 s after it was handed on)."""
THINK_S = (0.1, 0.4)
"""A person thinks this long a decision (so a session lasts long enough to meet a crash)."""


@dataclass
class Answers:
    """Every status the proxy answered the soak's clients, and each 5xx: (monotonic time,
    method, path, status, body's start)."""

    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[tuple[float, str, str, int, str]] = field(default_factory=list)
    transport_errors: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, method: str, path: str, status: int, body: str = "") -> None:
        with self._lock:
            self.statuses[status] += 1
            if status >= 500:
                self.errors.append((time.monotonic(), method, path, status, body[:200]))

    def broken(self) -> None:
        with self._lock:
            self.transport_errors += 1


@dataclass
class Seen:
    play_id: int
    items: list[int] = field(default_factory=list)
    end: dict[str, Any] | None = None
    reconnects: int = 0


class Person(threading.Thread):
    def __init__(self, base: str, stop: threading.Event, seed: int, answers: Answers) -> None:
        super().__init__(daemon=True, name=f"person-{seed}")
        self.base, self.stop, self.answers = base, stop, answers
        self.chance = random.Random(seed)
        self.sessions: list[Seen] = []
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx.Client(base_url=self.base, timeout=60, trust_env=False) as client:
                while not self.stop.is_set():
                    self.play(client)
        except BaseException as exc:  # reported by the test
            self.failure = exc

    def _retrying(self, client: httpx.Client, method: str, url: str, **kw: Any) -> httpx.Response:
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = client.request(method, url, **kw)
                self.answers.note(method, url, answer.status_code, answer.text)
                if answer.status_code not in RETRYABLE:
                    return answer
            except httpx.TransportError:
                self.answers.broken()
            assert time.monotonic() < deadline, f"{method} {url}: no answer in 60 s"
            time.sleep(0.2)

    def play(self, client: httpx.Client) -> None:
        created = self._retrying(client, "POST", "/v1/play", json={})
        assert created.status_code == 201, created.text
        seen = Seen(created.json()["id"])
        self.sessions.append(seen)
        token = created.json()["token"]
        last: str | None = None
        deadline = time.monotonic() + SESSION_GUARD_S
        while seen.end is None:
            assert time.monotonic() < deadline, f"session {seen.play_id} stuck: {seen}"
            headers = {} if last is None else {"Last-Event-ID": last}
            try:
                with client.stream(
                    "GET",
                    f"/v1/play/{seen.play_id}/stream",
                    params={"token": token, "since": 0},
                    headers=headers,
                ) as stream:
                    path = f"/v1/play/{seen.play_id}/stream"
                    if stream.status_code != 200:
                        self.answers.note("GET", path, stream.status_code, stream.read().decode())
                    if stream.status_code in RETRYABLE:
                        time.sleep(0.2)
                        continue
                    assert stream.status_code == 200, stream.read()
                    self.answers.note("GET", path, 200)
                    for frame in sse_frames(stream):
                        assert last is None or int(frame.id) > int(last)
                        seen.items += [item["n"] for item in frame.data["log"]]
                        last = frame.id
                        if frame.event == "end":
                            seen.end = frame.data
                            break
                        turn = frame.data["turn"]
                        if turn is not None:
                            time.sleep(self.chance.uniform(*THINK_S))
                            body = {"number": turn["number"], **turn["legal_actions"][0]}
                            self._retrying(
                                client,
                                "POST",
                                f"/v1/play/{seen.play_id}/act",
                                json=body,
                                headers={"X-Play-Token": token},
                            )
            except httpx.TransportError:
                self.answers.broken()
            if seen.end is None:
                seen.reconnects += 1
                time.sleep(0.1)
