"""/play under crashes (issue 37; ``make soak``): three API processes behind nginx round robin
(not sticky), two bot-calling workers, two trusted workers and beat; scripted people play
sessions one after another, each following its session's stream through the proxy (resuming
with Last-Event-ID wherever the proxy sends it) and answering through the proxy, while a
random process is killed -9 every 20 s and started again. Asserted: every session ends
(``finished``, or ``abandoned`` with its cause: its worker died), none stays ``playing``,
every stream saw each log item once and in order, and the database agrees."""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from services.worker.names import BOT_CALLING_QUEUES
from tests.servers import RedisTarget, RunDatabases
from tests.services.worker.play_cluster import (
    Cluster,
    cluster_env,
    house_bot,
    house_server,
    sse_frames,
)
from tests.services.worker.processes import free_port, wait_for

pytestmark = [pytest.mark.soak, pytest.mark.timeout(900)]

NGINX = os.environ.get("TRUCO_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
PEOPLE = 6
RUN_S = 180.0
KILL_EVERY_S = 20.0
SESSION_GUARD_S = 480.0
"""A hang guard: a session not over by then is stuck (its worst case is a result lost with its
trusted worker: abandoned after the 300 s result lease and a sweep)."""
RETRYABLE = (502, 503, 504)
THINK_S = (0.1, 0.4)
"""A person thinks this long a decision (so a session lasts long enough to meet a crash)."""


def _nginx(ports: list[int], tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    servers = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;\n" for p in ports)
    temp = "".join(
        f"  {kind}_temp_path {tmp / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (tmp / "nginx.conf").write_text(
        f"pid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'};\ndaemon off;\n"
        f"events {{}}\nhttp {{\n  access_log off;\n{temp}"
        f"  upstream play_api {{\n{servers}  }}\n"
        f"  server {{\n    listen 127.0.0.1:{port};\n    location / {{\n"
        "      proxy_pass http://play_api;\n      proxy_http_version 1.1;\n"
        '      proxy_set_header Connection "";\n      proxy_buffering off;\n'
        "      proxy_read_timeout 60s;\n      proxy_next_upstream error timeout http_502;\n"
        "    }\n  }\n}\n"
    )
    argv = [NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf")]
    checked = subprocess.run([*argv, "-t"], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    return process, f"http://127.0.0.1:{port}"


@dataclass
class Seen:
    play_id: int
    items: list[int] = field(default_factory=list)
    end: dict[str, Any] | None = None
    reconnects: int = 0


class Person(threading.Thread):
    def __init__(self, base: str, stop: threading.Event, seed: int) -> None:
        super().__init__(daemon=True)
        self.base, self.stop = base, stop
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
                if answer.status_code not in RETRYABLE:
                    return answer
            except httpx.TransportError:
                pass
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
                    if stream.status_code in RETRYABLE:
                        time.sleep(0.2)
                        continue
                    assert stream.status_code == 200, stream.read()
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
                pass
            if seen.end is None:
                seen.reconnects += 1
                time.sleep(0.1)


def _rows(database: str) -> dict[int, tuple[str, bool]]:
    """Every play match: (status, has a replay)."""

    async def read() -> dict[int, tuple[str, bool]]:
        conn = await asyncpg.connect(database)
        try:
            rows = await conn.fetch("SELECT id, status, replay IS NOT NULL AS r FROM play_matches")
            return {int(row["id"]): (str(row["status"]), bool(row["r"])) for row in rows}
        finally:
            await conn.close()

    return asyncio.run(read())


@pytest.fixture
def crew(
    run_databases: RunDatabases, redis_target: RedisTarget, tmp_path: Path
) -> Iterator[tuple[Cluster, str, str]]:
    if not os.access(NGINX, os.X_OK):
        pytest.skip(f"no nginx at {NGINX} (install nginx, or set TRUCO_NGINX to its binary)")
    database = run_databases.url(f"play-soak:{tmp_path}")
    prefix = f"{redis_target.prefix}{secrets.token_hex(3)}:"
    env = cluster_env(database, redis_target.url, prefix, tmp_path / "data")
    env["TRUCO_PLAY_PER_ADDRESS"] = "1000"
    env["TRUCO_STREAMS_PER_ADDRESS"] = "1000"
    env["TRUCO_CONNECTIONS_PER_ADDRESS"] = "10000"
    env["TRUCO_UNFINISHED_HEADS_PER_ADDRESS"] = "10000"
    # a session made twice (its API died before answering, the person asked again) is left
    # to its clock: short ones, so it forfeits within a minute
    env["TRUCO_PLAY_CLOCK_S"] = "5"
    env["TRUCO_PLAY_BANK_S"] = "20"
    with house_server() as (server, secret):
        cluster = Cluster(env, tmp_path, asyncio.run(house_bot(database, server.url, secret)))
        proxy: subprocess.Popen[bytes] | None = None
        try:
            for k in (1, 2):
                cluster.worker(BOT_CALLING_QUEUES, f"matches{k}")
                cluster.worker("results", f"results{k}")
            cluster.beat()
            apis = [cluster.api(f"api{k}") for k in (1, 2, 3)]
            proxy, base = _nginx([int(a.url.rsplit(":", 1)[1]) for a in apis], tmp_path)
            wait_for(lambda: _up(base), 30, "nginx", tmp_path / "error.log")
            yield cluster, base, database
        finally:
            if proxy is not None:
                proxy.send_signal(signal.SIGTERM)  # fast shutdown: open streams are cut
                try:
                    proxy.wait(10)
                except subprocess.TimeoutExpired:
                    proxy.kill()
                    proxy.wait(5)
            cluster.stop_all()


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/health", timeout=2, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


def test_play_survives_a_process_killed_every_20_s(crew: tuple[Cluster, str, str]) -> None:
    cluster, base, database = crew
    stop = threading.Event()
    people = [Person(base, stop, k) for k in range(PEOPLE)]
    for person in people:
        person.start()
    chance = random.Random(os.getpid())
    killed: list[str] = []
    began = time.monotonic()
    while time.monotonic() - began < RUN_S:
        time.sleep(KILL_EVERY_S)
        victim = chance.choice(cluster.procs)
        killed.append(victim.name)
        victim.kill9()
        cluster.respawn(victim)
        assert not [p for p in people if p.failure is not None], [p.failure for p in people]
    stop.set()
    for person in people:
        person.join(SESSION_GUARD_S + 60)
        assert not person.is_alive(), "a person is still playing: a session is stuck"
        assert person.failure is None, repr(person.failure)
    sessions = [s for p in people for s in p.sessions]
    ended = {"finished": 0, "abandoned": 0}
    for seen in sessions:
        assert seen.end is not None
        assert seen.items == list(range(len(seen.items))), seen  # once each, in order
        status = seen.end["status"]
        ended[status] += 1
        if status == "abandoned":
            assert seen.end["cause"], seen.end
    deadline = time.monotonic() + SESSION_GUARD_S
    rows = _rows(database)
    while any(status == "playing" for status, _ in rows.values()):  # none stays playing
        assert time.monotonic() < deadline, {k: v for k, v in rows.items() if v[0] == "playing"}
        time.sleep(1)
        rows = _rows(database)
    for seen in sessions:
        assert seen.end is not None
        assert rows[seen.play_id] == (seen.end["status"], seen.end["status"] == "finished")
    assert all(replay == (status == "finished") for status, replay in rows.values())
    print(
        f"{len(sessions)} sessions followed ({ended}), {len(rows)} made; killed {killed}; "
        f"{sum(s.reconnects for s in sessions)} stream reconnects"
    )
