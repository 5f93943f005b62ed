"""The platform commands end to end, as separate `truco` processes against real processes:
the API under uvicorn, a Celery worker playing the matches on the run's Redis and database,
real SDK bots on 127.0.0.1. `tournament watch` and `challenge --wait` follow real work."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.launch.processes import api_argv
from tests.cli.conftest import ROOT_ENV, unique
from tests.services.worker.processes import celery_worker, free_port, start, stop, wait_for

pytestmark = pytest.mark.slow


def test_tournament_and_challenge_through_real_workers(
    stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**ROOT_ENV, "XDG_CONFIG_HOME": str(tmp_path / "config")}

    def truco(*args: str, timeout: float = 60) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "truco_cli.main", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert "Traceback" not in done.stdout + done.stderr
        assert done.returncode == 0, f"truco {args}: {done.returncode}\n{done.stdout}{done.stderr}"
        return done.stdout

    api = start(api_argv(port), {**stack_env, "PORT": str(port)}, tmp_path / "api.log")
    try:
        servers = [bot_server_factory("heuristic"), bot_server_factory("random", seed=2)]
        with celery_worker(stack_env, tmp_path / "worker.log"):
            wait_for(lambda: _answers(f"{url}/health"), 30, "the API", tmp_path / "api.log")
            truco("account", "create", unique("e2e"), "--url", url)
            names = [unique("e2e-h"), unique("e2e-r")]
            ids = [
                truco("bot", "register", name, server.url, "-q").strip()
                for name, server in zip(names, servers, strict=True)
            ]
            tid = truco(
                "tournament", "create", "E2E cup", "--format", "round_robin", "--mode", "1v1",
                "--points", "15", "-q",
            ).strip()  # fmt: skip
            truco("tournament", "enter", tid, *ids)
            assert "1 match queued" in truco("tournament", "start", tid)
            watched = truco("tournament", "watch", tid, "--interval", "0.5", timeout=180)
            either = rf"({names[0]}|{names[1]})"
            played = re.search(rf"match (\d+): {either} (wins|vs) .*{either}", watched)
            assert played is not None, watched
            assert f"tournament {tid} 'E2E cup': finished" in watched
            assert watched.index(": finished") < watched.index("rank ")
            match = json.loads(truco("match", "show", played[1], "--json"))
            board = truco("leaderboard", "1v1")
            rated = match["rated"] and match["reason"] != "walkover"  # a walkover moves no Elo
            assert match["rated"] and (names[0] in board and names[1] in board) == rated, match
            result = truco("challenge", names[1], names[0], "--wait", timeout=180)
            assert re.match(rf"match \d+: {either} (wins|vs) .*{either}", result)
    finally:
        stop(api)


def _answers(address: str) -> bool:
    try:
        return httpx.get(address, timeout=5, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False
