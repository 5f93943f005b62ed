"""``make run``'s ports: a busy ``PORT`` is refused at once with the line to type instead
(``PORT=N make run``), and the house bots' and the embedded servers' ports are settable
(``TRUCO_HOUSE_BOT_PORTS``, ``TRUCO_EMBEDDED_POSTGRES_PORT``, ``TRUCO_EMBEDDED_REDIS_PORT``;
0: any free port), so a second ``make run`` on the machine needs no port of the first's.

None of these tests takes the machine-wide lock of the fixed ports (tests/fixed_ports.py):
every port they use is one the kernel chose, which is the point."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from services.base.config import ConfigError
from services.base.environment import load_settings
from services.launch.embedded import EmbeddedRedis
from services.launch.house_bots import house_file
from tests.servers import RedisTarget
from tests.services.launch.test_local import _urls, launcher_env
from tests.services.worker.processes import free_port, wait_for


def _launch(env: dict[str, str], out: Path) -> subprocess.Popen[bytes]:
    with out.open("wb") as handle:
        return subprocess.Popen(
            [sys.executable, "-m", "services.launch.local"],
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop(launcher: subprocess.Popen[bytes]) -> None:
    if launcher.poll() is None:
        launcher.send_signal(signal.SIGTERM)
        try:
            launcher.wait(timeout=120)  # a hang guard
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()


def test_a_busy_port_is_refused_with_the_port_to_use_instead(tmp_path: Path) -> None:
    """Another program holds PORT: the launcher says so and how to move, before it starts
    anything (no embedded server, no child)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(PORT=str(port), TRUCO_DATA_DIR=str(tmp_path / "data"))
        env.pop("TRUCO_ENV", None)
        done = subprocess.run(
            [sys.executable, "-m", "services.launch.local"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,  # a hang guard
        )
    assert done.returncode == 1, done.stdout + done.stderr
    said = done.stderr
    assert f"port {port} on 127.0.0.1 is in use" in said, said
    suggested = re.search(r"`PORT=(\d+) make run`", said)
    assert suggested is not None and int(suggested[1]) != port, said
    assert "Traceback" not in said + done.stdout
    assert not (tmp_path / "data" / "postgres").exists()  # nothing was started


def test_the_ports_are_settings() -> None:
    settings = load_settings(
        {
            "TRUCO_HOUSE_BOT_PORTS": "9101, 0",
            "TRUCO_EMBEDDED_POSTGRES_PORT": "0",
            "TRUCO_EMBEDDED_REDIS_PORT": "56400",
        },
        needs=(),
    )
    assert settings.launch.house_ports == (9101, 0)
    assert settings.launch.postgres_port == 0 and settings.launch.redis_port == 56400
    assert load_settings({}, needs=()).launch.postgres_port is None  # the last run's
    for bad in ("8101", "8101,8102,8103", "8101,x", "-1,8102", "8101,70000"):
        with pytest.raises(ConfigError, match="TRUCO_HOUSE_BOT_PORTS must be two whole"):
            load_settings({"TRUCO_HOUSE_BOT_PORTS": bad}, needs=())


@pytest.fixture
def server_root() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="truco-launch-ports-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_an_embedded_server_takes_the_port_it_is_given_or_any_free_one(server_root: Path) -> None:
    """The setting wins over the last run's port; 0 takes any free port, never the usual one
    nor the last run's."""
    wanted = free_port()
    with EmbeddedRedis(server_root, port=wanted) as server:
        assert server.port == wanted
        with redis.Redis.from_url(server.url) as client:
            assert client.ping()
    with EmbeddedRedis(server_root, port=0) as server:
        assert server.port not in (wanted, EmbeddedRedis.default_port)
        with redis.Redis.from_url(server.url) as client:
            assert client.ping()


@pytest.mark.slow
def test_make_run_with_ports_of_its_own_beside_another(
    empty_database: str, redis_target: RedisTarget, tmp_path: Path
) -> None:
    """The house bots on the ports given (0: any free one): the banner and the bots' stored
    URLs say where, and they play (the warm-up fills the leaderboard). The usual ports are
    not touched, so another ``make run`` may hold them meanwhile."""
    port, heuristic = free_port(), free_port()
    env = launcher_env(empty_database, redis_target, tmp_path / "data", port)
    env["TRUCO_HOUSE_BOT_PORTS"] = f"{heuristic},0"
    out = tmp_path / "launcher.out"
    launcher = _launch(env, out)
    api = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: "Ctrl-C to stop" in out.read_text() or launcher.poll() is not None,
            120,
            "the launcher",
            out,
        )
        assert launcher.poll() is None, out.read_text()
        text = out.read_text()
        shown = dict(re.findall(r"house bot (house-\w+)\s+http://127\.0\.0\.1:(\d+)", text))
        assert shown["house-heuristic"] == str(heuristic), text
        assert int(shown["house-random"]) not in (8101, 8102, heuristic), text
        urls = asyncio.run(_urls(empty_database))  # where the platform calls them
        assert urls["house-heuristic"] == f"http://127.0.0.1:{heuristic}"
        assert urls["house-random"] == f"http://127.0.0.1:{shown['house-random']}"

        def rated() -> int:
            board = httpx.get(f"{api}/v1/leaderboards/1v1", timeout=30, trust_env=False).json()
            return len(board["entries"])

        wait_for(lambda: rated() == 2, 120, "the warm-up", out)
    finally:
        _stop(launcher)
    assert launcher.returncode == 0, out.read_text()[-3000:]


def test_the_house_file_of_the_embedded_database_does_not_follow_its_port(tmp_path: Path) -> None:
    """With ``TRUCO_EMBEDDED_POSTGRES_PORT=0`` the embedded database listens on a new port each
    run: a restart must find the house account it made (a new account each run ran into the
    account-creation limit on the fourth: a 429, and make run stopped), while two external
    databases stay two files."""
    usual = "postgresql://postgres@127.0.0.1:54329/truco"
    moved = "postgresql://postgres@127.0.0.1:41234/truco"
    assert house_file(tmp_path, moved, embedded=True) == house_file(tmp_path, usual)
    assert house_file(tmp_path, usual, embedded=True) == house_file(tmp_path, usual)  # as before
    assert house_file(tmp_path, moved) != house_file(tmp_path, usual)
