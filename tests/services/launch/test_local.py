"""``make run``'s launcher as a subprocess against the run's servers and a fresh database:
it migrates, starts everything, registers the house bots, and stops cleanly on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import httpx
import pytest

from services.launch.embedded._process import pid_alive
from tests.servers import RedisTarget
from tests.services.worker.processes import descendants, free_port, process_groups_alive, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fixed_ports")]


def launcher_env(database: str, redis_target: RedisTarget, data: Path, port: int) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("TRUCO_SECRET_KEY", "TRUCO_ENV", "PORT")
    }
    env.update(
        PORT=str(port),
        DATABASE_URL=database,
        REDIS_URL=redis_target.url,
        TRUCO_REDIS_PREFIX=f"{redis_target.prefix}{secrets.token_hex(3)}:",
        TRUCO_DATA_DIR=str(data),
    )
    return env


def test_launcher_serves_house_bots_and_stops_cleanly(
    empty_database: str, redis_target: RedisTarget, tmp_path: Path
) -> None:
    port = free_port()
    env = launcher_env(empty_database, redis_target, tmp_path / "data", port)
    out = tmp_path / "launcher.out"
    began = time.monotonic()
    with out.open("wb") as handle:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "services.launch.local"],
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    api = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: "Ctrl-C to stop" in out.read_text(), 60, "the launcher", out)
        started_in = time.monotonic() - began
        # /health is 200 once the database, Redis and a worker answer (the workers may
        # still be starting when the launcher prints its banner)
        wait_for(
            lambda: httpx.get(f"{api}/health", timeout=30, trust_env=False).status_code == 200,
            30,
            "health",
            out,
        )
        listed = httpx.get(f"{api}/v1/bots", timeout=30, trust_env=False).json()["items"]
        house_bots = {bot["name"]: bot for bot in listed}
        assert {"house-heuristic", "house-random"} <= set(house_bots)
        assert house_bots["house-heuristic"]["open"] and house_bots["house-random"]["open"]
        _newcomer_enters_a_house_bot(api, house_bots["house-heuristic"]["id"])
        # the house bots stand on the ladders, so a newcomer's bot that joins plays at once
        for ladder in ("1v1", "2v2-individual"):
            table = httpx.get(f"{api}/v1/ladders/{ladder}", timeout=30, trust_env=False).json()
            assert {e["name"] for e in table["entries"]} == {"house-heuristic", "house-random"}

        def leaderboard_names() -> set[str]:
            board = httpx.get(f"{api}/v1/leaderboards/1v1", timeout=30, trust_env=False).json()
            return {entry["name"] for entry in board["entries"]}

        # the warm-up round robin between the house bots fills the leaderboard by itself
        wait_for(lambda: len(leaderboard_names()) == 2, 60, "the warm-up", out)
        assert leaderboard_names() == {"house-heuristic", "house-random"}
        assert "warm-up" in out.read_text()
        text = out.read_text()
        assert f"{api}/schema/openapi.json" in text and "house-random" in text
        assert f"{api}/schema/reference" in text  # the interactive API reference
        house = list((tmp_path / "data").glob("house-*.json"))
        assert len(house) == 1 and house[0].stat().st_mode & 0o077 == 0
        children = descendants(launcher.pid)
        bot_calling = [pid for pid in children if b"-Q\x00matches" in _read(f"/proc/{pid}/cmdline")]
        assert len(bot_calling) == 1
        environ = _read(f"/proc/{bot_calling[0]}/environ")
        assert b"DATABASE_URL=" not in environ and b"TRUCO_SECRET_KEY=" not in environ
        assert b"REDIS_URL=" in environ
        # house bots get their signing secrets in their environment, never on a command line
        # (anyone on the machine can read every process's command line with ps)
        secrets_kept = {b["secret"] for b in json.loads(house[0].read_text())["bots"].values()}
        assert len(secrets_kept) == 2
        for pid in children:
            assert b"whsec_" not in _read(f"/proc/{pid}/cmdline"), pid
        house_bots = [pid for pid in children if b"bot\x00serve" in _read(f"/proc/{pid}/cmdline")]
        assert len(house_bots) == 2
        assert {_environ(pid).get("TRUCO_BOT_SECRET") for pid in house_bots} == secrets_kept
        # every URL the banner prints answers (the web, the API, OpenAPI, health, bots)
        banner = text[text.index("Truco Arena is running") : text.index("Ctrl-C to stop")]
        urls = re.findall(r"https?://[^\s)]+", banner)
        assert len(urls) >= 7, banner
        for url in urls:
            assert httpx.get(url, timeout=30, trust_env=False).status_code == 200, url
        groups = {os.getpgid(pid) for pid in children if pid_alive(pid)}
        assert len(children) >= 6  # api, two workers, beat, two bots
        stop_began = time.monotonic()
        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(timeout=120) == 0  # a hang guard: the exit status is the test
        stopped_in = time.monotonic() - stop_began
        assert not [pid for pid in children if pid_alive(pid)]
        assert not process_groups_alive(groups)
        print(f"\nlauncher: ready in {started_in:.1f}s, stopped in {stopped_in:.1f}s")
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()


async def _urls(database: str) -> dict[str, str]:
    conn = await asyncpg.connect(database)
    try:
        return {row["name"]: row["url"] for row in await conn.fetch("SELECT name, url FROM bots")}
    finally:
        await conn.close()


def _environ(pid: int) -> dict[str, str]:
    pairs = _read(f"/proc/{pid}/environ").decode(errors="replace").split("\0")
    return dict(pair.split("=", 1) for pair in pairs if "=" in pair)


def _newcomer_enters_a_house_bot(api: str, bot_id: int) -> None:
    """The house bots are open (issue 12 point 6): a newcomer enters one in their own
    tournament (a 403 before)."""
    with httpx.Client(base_url=api, timeout=10, trust_env=False) as client:
        account = client.post("/v1/accounts", json={"name": f"newcomer-{secrets.token_hex(3)}"})
        assert account.status_code == 201, account.text
        auth = {"authorization": f"Bearer {account.json()['api_key']}"}
        cup = client.post(
            "/v1/tournaments",
            json={"name": "My first cup", "format": "swiss", "mode": "1v1"},
            headers=auth,
        )
        assert cup.status_code == 201, cup.text
        entry = client.post(
            f"/v1/tournaments/{cup.json()['id']}/entries", json={"bot_id": bot_id}, headers=auth
        )
        assert entry.status_code == 201, entry.text


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def test_production_launcher_plays_the_house_bots_in_process(
    empty_database: str, redis_target: RedisTarget, tmp_path: Path
) -> None:
    """README's production command against a real PostgreSQL and Redis and a fresh database:
    it starts, the house bots are registered as built-in bots (no loopback server, none
    refused), and their warm-up matches are played by the bot-calling worker."""
    port = free_port()
    env = launcher_env(empty_database, redis_target, tmp_path / "data", port)
    env.update(TRUCO_ENV="production", TRUCO_SECRET_KEY=secrets.token_urlsafe(48))
    out = tmp_path / "launcher.out"
    with out.open("wb") as handle:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "services.launch.local"],
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    api = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: "Ctrl-C to stop" in out.read_text() or launcher.poll() is not None,
            90,
            "the launcher",
            out,
        )
        assert launcher.poll() is None, out.read_text()
        text = out.read_text()
        assert "production mode" in text and "builtin:heuristic" in text
        with httpx.Client(base_url=api, timeout=10, trust_env=False) as client:
            bots = {b["name"]: b for b in client.get("/v1/bots").json()["items"]}
            assert {"house-heuristic", "house-random"} <= set(bots)
            assert bots["house-heuristic"]["open"] and bots["house-random"]["open"]
            _newcomer_enters_a_house_bot(api, bots["house-random"]["id"])
            assert asyncio.run(_urls(empty_database)) == {
                "house-heuristic": "builtin:heuristic",
                "house-random": "builtin:random",
            }

            def board() -> list[dict[str, object]]:
                entries: list[dict[str, object]] = client.get("/v1/leaderboards/1v1").json()[
                    "entries"
                ]
                return entries

            wait_for(lambda: len(board()) == 2, 120, "the warm-up's matches", out)
            house_id = bots["house-heuristic"]["id"]
            played = client.get(f"/v1/bots/{house_id}/matches").json()["items"]
            finished = [m for m in played if m["status"] == "done"]
            assert finished, played
            match = client.get(f"/v1/matches/{finished[0]['id']}").json()
            assert match["reason"] in ("games", "tantos", "draw"), match
            assert match["games_won"] is not None and sum(match["games_won"]) >= 1
            # no user can register a built-in URL, nor switch a bot to one
            account = client.post("/v1/accounts", json={"name": f"p-{secrets.token_hex(3)}"})
            auth = {"authorization": f"Bearer {account.json()['api_key']}"}
            for url in ("builtin:heuristic", "BUILTIN:heuristic", " builtin:random"):
                created = client.post(
                    "/v1/bots", json={"name": f"b-{secrets.token_hex(3)}", "url": url}, headers=auth
                )
                assert created.status_code == 422, (url, created.text)
        children = descendants(launcher.pid)
        assert not [p for p in children if b"bot\x00serve" in _read(f"/proc/{p}/cmdline")]
        worker_log = (tmp_path / "data" / "logs" / "worker-matches.log").read_text()
        assert "refused" not in worker_log and "Traceback" not in worker_log
        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(timeout=120) == 0  # a hang guard
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
