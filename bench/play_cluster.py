"""/play across API processes (issue 37): a person's turn latency when the session is played
by a bot-calling worker and served by two API processes.

What runs, all on 127.0.0.1 and real: PostgreSQL (a database of this run's own, migrated),
Redis (``REDIS_URL``, else 127.0.0.1:6379, under a key prefix of the run's own), two API
processes (``services.api.serve``, as in production), one bot-calling Celery worker (no
database, no master key) and one trusted worker. The opponent is the house heuristic
(``builtin:heuristic``, played in the worker's process: the bench measures the platform, not a
bot server). For each case, that many scripted people play at once: each session is made on
API A, every answer is sent to API A, and every view is read from API B by long polls
(``?after=``); a person answers at once with the first legal action.

Measured per case: the **turn latency**, from the person's answer sent (``POST act`` on A) to
their next decision seen on B (or the end): the answer through Redis to the worker, the bot's
moves, the worker's writes, B woken by ``play:changed``; its p50/p95/max; the ``act`` request
itself; and the CPU each process spent per measured decision (``/proc``). ``--moves`` decisions
a session are measured, then the person leaves (the match is forfeited).

With ``--proxy`` the people reach the two API processes through nginx, round robin and not
sticky (``bench/nginx_proxy.py``, the soak test's proxy): every request, the answers and the
long polls alike, goes to whichever API is next, so a turn's answer and its view are as often
on one process as on two; the proxy's own hop is in the figures. Skipped if nginx is not
installed (``TRUCO_NGINX`` names its binary).

``python -m bench play_cluster [--cases 20,100] [--moves 12] [--proxy] [--smoke]`` (smoke: 3
people, 4 decisions each). Prints a line per case and one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx
import msgspec

from bench.database import NoServer, scratch_database
from bench.nginx_proxy import nginx_binary, proxy_argv
from bench.platform_procs import Procs, cpu_s
from bench.smoke import smoke
from services.base.config import Secret
from services.base.secretbox import SecretBox
from services.db import accounts as db_accounts
from services.db import bots as db_bots
from services.db.pool import create_pool
from services.launch.embedded._process import choose_port
from services.worker.names import BOT_CALLING_QUEUES

CASES = (20, 100)
MOVES = 12
SECRET_KEY = "b" * 48
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Plan:
    cases: tuple[int, ...] = CASES
    moves: int = MOVES
    timeout_s: float = 900.0
    proxy: bool = False


def _percentile(ordered: list[float], q: float) -> float:
    return round(ordered[round(q * (len(ordered) - 1))], 1) if ordered else 0.0


async def _house(url: str) -> int:
    """The house heuristic, as the launcher stores it in production (``builtin:``)."""
    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        account = await db_accounts.create_account(pool, "house", secrets.token_bytes(32))
        box = SecretBox(Secret(SECRET_KEY))
        async with pool.acquire() as conn:
            bot = await db_bots.create_bot(
                conn,
                owner_id=account.id,
                name="house-heuristic",
                url="builtin:heuristic",
                encrypt_secret=lambda bot_id: box.encrypt("whsec_" + "x" * 32, bot_id),
                key_id=box.key_id,
            )
        return bot.id
    finally:
        await pool.close()


def _env(database_url: str, redis_url: str, data: Path) -> dict[str, str]:
    return {
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "TRUCO_ENV": "local",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "TRUCO_REDIS_PREFIX": f"bench-play-{secrets.token_hex(4)}:",
        "TRUCO_SECRET_KEY": SECRET_KEY,
        "TRUCO_DATA_DIR": str(data),
        # every scripted person is 127.0.0.1: the per-address caps are not what is measured
        "TRUCO_PLAY_PER_ADDRESS": "1000",
        "TRUCO_PLAY_STARTS_PER_HOUR": "100000",
        "TRUCO_CONNECTIONS_PER_ADDRESS": "100000",
        "TRUCO_UNFINISHED_HEADS_PER_ADDRESS": "100000",
        "TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE": "1000000",
        "TRUCO_RATE_LIMIT_PER_MINUTE": "1000000",
        "PYTHONUNBUFFERED": "1",
    }


def _api(procs: Procs, name: str, env: dict[str, str]) -> str:
    port = choose_port(())
    argv = [sys.executable, "-m", "services.api.serve", "--host", "127.0.0.1"]
    procs.start(name, [*argv, "--port", str(port), "--no-access-log"], env)
    url = f"http://127.0.0.1:{port}"
    return _healthy(procs, name, url, 60)


@dataclass
class _Figures:
    turns: list[float]
    acts: list[float]
    ended: int = 0


async def _seen(
    client: httpx.AsyncClient, api: str, play_id: int, headers: dict[str, str], after: int
) -> dict[str, Any]:
    """The view on ``api`` once a decision is owed past version ``after``, or the end."""
    while True:
        answer = await client.get(
            f"{api}/v1/play/{play_id}", params={"after": after}, headers=headers
        )
        answer.raise_for_status()
        view: dict[str, Any] = answer.json()
        if view["status"] != "playing" or view["turn"] is not None:
            return view
        after = view["version"]


async def _person(client: httpx.AsyncClient, a: str, b: str, moves: int, figures: _Figures) -> None:
    created = await client.post(f"{a}/v1/play", json={})
    if created.status_code != 201:
        raise RuntimeError(f"POST /v1/play: {created.status_code} {created.text[:300]}")
    play_id, token = created.json()["id"], created.json()["token"]
    headers = {"X-Play-Token": token}
    view = await _seen(client, b, play_id, headers, 0)
    for _ in range(moves):
        if view["status"] != "playing":
            figures.ended += 1
            return
        turn = view["turn"]
        first = turn["legal_actions"][0]
        sent = time.perf_counter()
        acted = await client.post(
            f"{a}/v1/play/{play_id}/act",
            json={"number": turn["number"], **first},
            headers=headers,
        )
        figures.acts.append((time.perf_counter() - sent) * 1000)
        if acted.status_code != 200:  # its clock ran out meanwhile: no turn to measure
            view = await _seen(client, b, play_id, headers, view["version"])
            continue
        view = await _seen(client, b, play_id, headers, view["version"])
        figures.turns.append((time.perf_counter() - sent) * 1000)
    left = await client.post(f"{b}/v1/play/{play_id}/leave", headers=headers)
    left.raise_for_status()


async def _case(sessions: int, plan: Plan, a: str, b: str, pids: dict[str, int]) -> dict[str, Any]:
    figures = _Figures([], [])
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    cpu_before = {name: cpu_s(pid) for name, pid in pids.items()}
    own = time.process_time()
    began = time.perf_counter()
    async with httpx.AsyncClient(timeout=120, limits=limits, trust_env=False) as client:
        async with asyncio.timeout(plan.timeout_s):
            await asyncio.gather(
                *(_person(client, a, b, plan.moves, figures) for _ in range(sessions))
            )
    wall = time.perf_counter() - began
    own = time.process_time() - own
    measured = max(1, len(figures.turns))
    cpu = {
        f"cpu_ms_per_turn_{name}": round((cpu_s(pid) - cpu_before[name]) * 1000 / measured, 2)
        for name, pid in pids.items()
    }
    turns, acts = sorted(figures.turns), sorted(figures.acts)
    return {
        "sessions": sessions,
        "turns": len(turns),
        "turn_ms_p50": round(statistics.median(turns), 1) if turns else 0.0,
        "turn_ms_p95": _percentile(turns, 0.95),
        "turn_ms_max": round(turns[-1], 1) if turns else 0.0,
        "act_ms_p50": round(statistics.median(acts), 1) if acts else 0.0,
        "act_ms_p95": _percentile(acts, 0.95),
        "ended_early": figures.ended,
        "wall_s": round(wall, 1),
        "load_average": round(os.getloadavg()[0], 2),
        **cpu,
        "cpu_ms_per_turn_people": round(own * 1000 / measured, 2),
    }


async def _run(plan: Plan, redis_url: str, work: Path) -> dict[str, Any]:
    async with scratch_database("play_cluster") as url:
        await _house(url)
        env = _env(url, redis_url, work / "data")
        bot_env = {k: v for k, v in env.items() if k not in ("DATABASE_URL", "TRUCO_SECRET_KEY")}
        with Procs(work / "logs", ROOT) as procs:
            concurrency = max(plan.cases) + 20  # each session holds a thread while it plays
            procs.celery_worker("worker-matches", BOT_CALLING_QUEUES, concurrency, bot_env)
            procs.celery_worker("worker-results", "results", 4, env)
            a, b = _api(procs, "api-a", env), _api(procs, "api-b", env)
            if plan.proxy:
                a = b = _proxy(procs, [a, b], work / "nginx")
            pids = {name: process.pid for name, process in procs.running.items()}
            cases = [await _case(n, plan, a, b, pids) for n in plan.cases]
    return {"cases": cases, "moves": plan.moves, "proxy": "nginx" if plan.proxy else None}


def _proxy(procs: Procs, apis: list[str], work: Path) -> str:
    """nginx round robin over ``apis``: its base URL once ``/health`` answers through it."""
    nginx = nginx_binary()
    if nginx is None:
        raise NoServer("no nginx (install it, or set TRUCO_NGINX to its binary)")
    ports = [int(api.rsplit(":", 1)[1]) for api in apis]
    argv, url = proxy_argv(nginx, ports, choose_port(()), work)
    procs.start("nginx", argv, {"PATH": "/usr/sbin:/usr/bin:/bin"})
    return _healthy(procs, "nginx", url, 30)


def _healthy(procs: Procs, name: str, url: str, seconds: float) -> str:
    """``url`` once its ``/health`` answers 200; an error with the log of the process ``name``
    if it exits or ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=5, trust_env=False).status_code == 200:
                return url
        except httpx.HTTPError:
            pass
        if procs.running[name].poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not start:\n{procs.log(name)[-3000:]}")
        time.sleep(0.2)


def run(plan: Plan, redis_url: str) -> dict[str, Any]:
    with TemporaryDirectory(prefix="bench-play-cluster-") as tmp:
        return asyncio.run(_run(plan, redis_url, Path(tmp)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.play_cluster")
    parser.add_argument("--cases", default=",".join(map(str, CASES)))
    parser.add_argument("--moves", type=int, default=MOVES)
    parser.add_argument("--proxy", action="store_true", help="through nginx, round robin")
    parser.add_argument("--smoke", action="store_true", help="3 people, 4 decisions each")
    args = parser.parse_args([] if argv is None else argv)
    plan = Plan(tuple(int(n) for n in args.cases.split(",")), args.moves, proxy=args.proxy)
    if args.smoke or smoke():
        plan = Plan((3,), 4, proxy=args.proxy)
    redis_url = os.environ.get("REDIS_URL", "").strip() or "redis://127.0.0.1:6379/0"
    try:
        figures = run(plan, redis_url)
    except NoServer as exc:
        print(f"skipped: {exc}")
        return
    for case in figures["cases"]:
        route = "nginx round robin over two API processes" if plan.proxy else "two API processes"
        print(
            f"{case['sessions']} people at once, {route}, one bot-calling worker: "
            f"turn (act on A -> next decision seen on B) p50 {case['turn_ms_p50']} ms, p95 "
            f"{case['turn_ms_p95']} ms, max {case['turn_ms_max']} ms over {case['turns']} "
            f"turns; POST act p50 {case['act_ms_p50']} ms, p95 {case['act_ms_p95']} ms"
        )
    print(msgspec.json.encode({"play_cluster": figures}).decode())


if __name__ == "__main__":
    main(sys.argv[1:])
