"""A small /play cluster for the tests (and the ``play_cluster`` bench): API processes on one
database and Redis, a bot-calling worker (no DATABASE_URL, no TRUCO_SECRET_KEY: as ``make
worker-matches``), a trusted worker, Celery beat, and the house bot as a real HTTP server on
127.0.0.1 (an open bot of the account ``house``, which local mode offers to anyone at /play).
A person is scripted over HTTP: the first legal action of each decision."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from arena.client.signing import generate_secret
from arena.sdk import BotServer, strategy_decider
from services.db.pool import create_pool
from services.launch.processes import beat_argv
from services.worker import command
from services.worker.names import BOT_CALLING_QUEUES
from tests.services.helpers import flow_helpers
from tests.services.worker.fixtures import BOX, SECRET_KEY
from tests.services.worker.processes import answers, forget, free_port, start, stop, wait_for

WAIT_S = 120.0
"""A hang guard only: how long a test waits for something before calling it hung."""


def cluster_env(database_url: str, redis_url: str, prefix: str, data: Path) -> dict[str, str]:
    return {
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "TRUCO_ENV": "local",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "TRUCO_REDIS_PREFIX": prefix,
        "TRUCO_SECRET_KEY": SECRET_KEY,
        "TRUCO_DATA_DIR": str(data),
        "TRUCO_ACCOUNT_RATE_LIMIT_PER_HOUR": "1000000",
        "TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE": "1000000",
        "TRUCO_RATE_LIMIT_PER_MINUTE": "1000000",
        "TRUCO_PLAY_STARTS_PER_HOUR": "100000",
        "TRUCO_PLAY_TOTAL": "100000",
        "PYTHONUNBUFFERED": "1",
    }


def bot_calling_env(env: dict[str, str]) -> dict[str, str]:
    """As ``make worker-matches``: no database credentials, no master key."""
    return {k: v for k, v in env.items() if k not in ("DATABASE_URL", "TRUCO_SECRET_KEY")}


@dataclass
class Proc:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    url: str = ""
    metrics: str = ""
    """Where its metrics are read (``/metrics`` of an API, a worker's metrics port)."""
    started: float = field(default_factory=time.time)

    def kill9(self) -> None:
        """SIGKILL to its whole process group: no clean-up of any kind."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        forget(self.process)


@dataclass
class Cluster:
    env: dict[str, str]
    tmp: Path
    house: int = 0
    procs: list[Proc] = field(default_factory=list)
    metrics_ports: dict[str, int] = field(default_factory=dict)
    """A worker's metrics port by its name, kept when it starts again (empty: none served)."""

    def _log(self, name: str) -> Path:
        return self.tmp / f"{name}-{secrets.token_hex(2)}.log"

    def worker(self, queues: str, name: str) -> Proc:
        env = bot_calling_env(self.env) if queues == BOT_CALLING_QUEUES else dict(self.env)
        metrics = ""
        if name in self.metrics_ports:
            env["TRUCO_METRICS_PORT"] = str(self.metrics_ports[name])
            metrics = f"http://127.0.0.1:{self.metrics_ports[name]}/metrics"
        log = self._log(name)
        argv = command.worker_argv(sys.executable, queues, f"{name}-{secrets.token_hex(3)}@%h", 50)
        proc = Proc(name, start(argv, env, log), log, metrics=metrics)
        self.procs.append(proc)
        wait_for(lambda: " ready." in log.read_text(errors="replace"), 60, name, log)
        return proc

    def beat(self) -> Proc:
        data = self.tmp / f"beat-{secrets.token_hex(2)}"
        data.mkdir(parents=True)
        argv = beat_argv(data)
        argv[0] = sys.executable
        log = self._log("beat")
        proc = Proc("beat", start(argv, self.env, log), log)
        self.procs.append(proc)
        wait_for(lambda: "beat: Starting" in log.read_text(errors="replace"), 60, "beat", log)
        return proc

    def api(
        self, name: str = "api", port: int | None = None, env: dict[str, str] | None = None
    ) -> Proc:
        port = port or free_port()
        argv = [sys.executable, "-m", "uvicorn", "--factory", "services.launch.app:app_from_env"]
        log = self._log(name)
        process = start(
            [*argv, "--host", "127.0.0.1", "--port", str(port)],
            {**self.env, **(env or {}), "PORT": str(port)},
            log,
        )
        url = f"http://127.0.0.1:{port}"
        proc = Proc(name, process, log, url, metrics=f"{url}/metrics")
        self.procs.append(proc)
        wait_for(lambda: answers(f"{url}/health"), 60, name, log)
        return proc

    def respawn(self, dead: Proc) -> Proc:
        """Start again what ``dead`` was (an API on its port, a worker on its queues, beat)."""
        if dead in self.procs:
            self.procs.remove(dead)
        if dead.name.startswith("api"):
            return self.api(dead.name, int(dead.url.rsplit(":", 1)[1]))
        if dead.name.startswith("matches"):
            return self.worker(BOT_CALLING_QUEUES, dead.name)
        if dead.name.startswith("results"):
            return self.worker("results", dead.name)
        return self.beat()

    def stop_all(self) -> None:
        for proc in reversed(self.procs):
            stop(proc.process)


async def house_bot(database_url: str, server_url: str, secret: str) -> int:
    """The open bot of the account ``house`` (local mode: the house bots anyone may play)."""
    pool = await create_pool(database_url, min_size=1, max_size=2)
    try:
        owner = await pool.fetchval("SELECT id FROM accounts WHERE lower(name) = 'house'")
        if owner is None:
            owner = await flow_helpers.make_account(pool, "house")
            await pool.execute("UPDATE accounts SET name = 'house' WHERE id = $1", owner)
        bot_id = await flow_helpers.make_bot(
            pool, owner, server_url, "house-heuristic", secret=secret, box=BOX
        )
        await pool.execute("UPDATE bots SET open = true WHERE id = $1", bot_id)
        return int(bot_id)
    finally:
        await pool.close()


@contextlib.contextmanager
def house_server() -> Iterator[tuple[BotServer, str]]:
    secret = generate_secret()
    server = BotServer(
        strategy_decider("heuristic", 7),
        name="house-heuristic",
        secret=secret,
        host="127.0.0.1",
        port=0,
    )
    server.start()
    try:
        yield server, secret
    finally:
        server.stop()


# --- a scripted person ----------------------------------------------------------------------


@dataclass
class Person:
    play_id: int
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Play-Token": self.token}


def begin(api: str, **body: Any) -> tuple[Person, dict[str, Any]]:
    answer = httpx.post(f"{api}/v1/play", json=body, timeout=30, trust_env=False)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    return Person(created["id"], created["token"]), created["view"]


def view(api: str, person: Person, **params: Any) -> dict[str, Any]:
    answer = httpx.get(
        f"{api}/v1/play/{person.play_id}",
        params=params,
        headers=person.headers,
        timeout=60,
        trust_env=False,
    )
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def next_turn(api: str, person: Person) -> dict[str, Any]:
    """The view once the person owes a decision or the match is over (long polls)."""
    current = view(api, person)
    deadline = time.monotonic() + WAIT_S
    while current["turn"] is None and current["status"] == "playing":
        assert time.monotonic() < deadline, f"no turn within {WAIT_S}s: {current}"
        current = view(api, person, after=current["version"])
    return current


def first_legal(current: dict[str, Any]) -> dict[str, Any]:
    first = current["turn"]["legal_actions"][0]
    return {"number": current["turn"]["number"], **first}


def act(api: str, person: Person, current: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(
        f"{api}/v1/play/{person.play_id}/act",
        json=first_legal(current),
        headers=person.headers,
        timeout=60,
        trust_env=False,
    )
    assert answer.status_code in (200, 409), answer.text  # 409: its clock ran out meanwhile
    found: dict[str, Any] = answer.json()
    return found


def play_moves(api: str, person: Person, moves: int | None = None) -> dict[str, Any]:
    """Answer ``moves`` decisions (None: to the end) through ``api``; the last view."""
    done = 0
    current = next_turn(api, person)
    while current["status"] == "playing" and (moves is None or done < moves):
        act(api, person, current)
        done += 1
        current = next_turn(api, person)
    return current


@dataclass
class Frame:
    event: str
    id: str
    data: dict[str, Any]


class FrameReader:
    """Lines of a text/event-stream in, events out (comments skipped): one parser for the
    synchronous and the asynchronous readers."""

    def __init__(self) -> None:
        self.event, self.ident, self.data = "message", "", list[str]()

    def feed(self, line: str) -> Frame | None:
        if not line:
            found = None
            if self.data:
                found = Frame(self.event, self.ident, json.loads("\n".join(self.data)))
            self.event, self.ident, self.data = "message", "", []
            return found
        if not line.startswith(":"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                self.event = value
            elif name == "id":
                self.ident = value
            elif name == "data":
                self.data.append(value)
        return None


def sse_frames(response: httpx.Response) -> Iterator[Frame]:
    """The events of a text/event-stream (comments skipped)."""
    reader = FrameReader()
    for line in response.iter_lines():
        frame = reader.feed(line)
        if frame is not None:
            yield frame
