"""The embedded PostgreSQL and Redis: start, answer, stop, restart with data kept, no orphans."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
import redis

from services.launch.embedded import (
    EmbeddedPostgres,
    EmbeddedRedis,
    local_servers,
    plan_servers,
)
from services.launch.embedded._process import pid_alive, port_answers


@pytest.fixture
def server_root() -> Iterator[Path]:
    """A folder of the test's own straight under the system's temporary folder. Not pytest's
    ``tmp_path``: the embedded PostgreSQL runs as ``nobody`` when we are root, so every folder
    above its data must be traversable, and each new pytest session puts
    ``/tmp/pytest-of-<user>`` back to mode 0700 (another run on the machine would pull the
    ground from under this one)."""
    path = Path(tempfile.mkdtemp(prefix="truco-local-servers-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("fixed_ports")]

REPO = Path(__file__).resolve().parents[3]


def _wait_dead(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def _query(url: str, sql: str) -> object:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval(sql)
    finally:
        await conn.close()


async def test_postgres_starts_answers_stops_and_keeps_data(server_root: Path) -> None:
    root = server_root / "postgres"
    first = EmbeddedPostgres(root)
    url = first.start()
    pid = first.pid
    assert pid is not None
    try:
        assert first.mode == "started"
        assert first.initialized_now
        assert url.startswith("postgresql://postgres@127.0.0.1:")
        assert await _query(url, "SELECT 1") == 1
        await _query(url, "CREATE TABLE kept AS SELECT 'truco'::text AS word")

        # A second handle on the same files reuses the server and does not stop it.
        second = EmbeddedPostgres(root)
        assert second.start() == url
        assert second.mode == "reused"
        assert not second.owned
        second.stop()
        assert await _query(url, "SELECT 2") == 2
    finally:
        first.stop()
    assert _wait_dead(pid)
    assert not port_answers(first.port)

    again = EmbeddedPostgres(root)
    url_again = again.start()
    try:
        assert again.mode == "started"
        assert not again.initialized_now
        assert await _query(url_again, "SELECT word FROM kept") == "truco"
    finally:
        again.stop()
    assert not port_answers(again.port)


def test_redis_starts_answers_stops_and_keeps_data(server_root: Path) -> None:
    root = server_root / "redis"
    server = EmbeddedRedis(root)
    url = server.start()
    pid = server.pid
    assert pid is not None
    try:
        assert server.mode == "started"
        with redis.Redis.from_url(url) as client:
            assert client.ping()
            client.set("envido", "33")
    finally:
        server.stop()
    assert _wait_dead(pid)
    assert not port_answers(server.port)

    with EmbeddedRedis(root) as again, redis.Redis.from_url(again.url) as client:
        assert again.mode == "started"
        assert client.get("envido") == b"33"


_CHILD = textwrap.dedent(
    """
    import json, sys, threading, time
    from pathlib import Path
    from services.launch.embedded import EmbeddedPostgres, EmbeddedRedis

    root, in_thread = Path(sys.argv[1]), sys.argv[2] == "thread"
    servers = [EmbeddedPostgres(root / "postgres"), EmbeddedRedis(root / "redis")]

    def start():
        for server in servers:
            server.start()

    if in_thread:
        worker = threading.Thread(target=start)
        worker.start()
        worker.join()
    else:
        start()
    print(json.dumps([[s.pid, s.port] for s in servers]), flush=True)
    time.sleep(600)
    """
)


def _start_child(root: Path, how: str) -> tuple[subprocess.Popen[str], list[list[int]]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(root), how],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line, "the child process did not report its servers"
    return child, json.loads(line)


def _sigkill(child: subprocess.Popen[str]) -> None:
    if child.poll() is None:
        child.send_signal(signal.SIGKILL)
    child.wait(10)
    if child.stdout is not None:
        child.stdout.close()


def _reap(servers: list[list[int]]) -> None:
    """Whatever happened in the test, leave no server behind."""
    for pid, _ in servers:
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_servers_die_with_their_owner_even_after_sigkill(server_root: Path) -> None:
    child, servers = _start_child(server_root, "main")
    try:
        pids = [pid for pid, _ in servers]
        assert all(pid_alive(pid) for pid in pids)
        _sigkill(child)
        assert all(_wait_dead(pid) for pid in pids)
        assert not any(port_answers(port) for _, port in servers)
    finally:
        _sigkill(child)
        _reap(servers)


def test_orphans_are_adopted_and_stopped_by_the_next_run(server_root: Path) -> None:
    # Started from a thread, the parent-death signal is not armed: killing the owner leaves
    # the servers running. The next start must adopt them, and stopping must stop them.
    child, servers = _start_child(server_root, "thread")
    try:
        _sigkill(child)
        assert all(pid_alive(pid) for pid, _ in servers)

        postgres = EmbeddedPostgres(server_root / "postgres")
        redis_server = EmbeddedRedis(server_root / "redis")
        for server, (pid, port) in zip((postgres, redis_server), servers, strict=True):
            server.start()
            assert server.mode == "adopted"
            assert (server.pid, server.port) == (pid, port)
            server.stop()
            assert _wait_dead(pid)
    finally:
        _sigkill(child)
        _reap(servers)


def test_plan_follows_the_environment() -> None:
    assert plan_servers({}).embedded_postgres
    assert plan_servers({"DATABASE_URL": "  "}).embedded_postgres
    mixed = plan_servers({"DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/truco"})
    assert not mixed.embedded_postgres
    assert mixed.embedded_redis
    assert not plan_servers({"REDIS_URL": "redis://127.0.0.1:6379/0"}).embedded_redis


async def test_local_servers_start_only_what_is_missing(server_root: Path) -> None:
    external = "postgresql://postgres@127.0.0.1:1/not-used"
    with local_servers(server_root, environ={"DATABASE_URL": external}) as servers:
        assert servers.database_url == external
        assert servers.embedded == ("redis",)
        with redis.Redis.from_url(servers.redis_url) as client:
            assert client.ping()
    assert not (server_root / "postgres").exists()

    with local_servers(server_root, environ={}) as servers:
        assert servers.embedded == ("postgres", "redis")
        assert await _query(servers.database_url, "SELECT current_database()") == "truco"
