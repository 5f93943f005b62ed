"""A Swiss round of N bots through the real platform (issue 14, goal 3).

What runs, all on 127.0.0.1 and all real: PostgreSQL (a database of this run's own, migrated,
dropped at the end), Redis (``REDIS_URL``, keys under a prefix of this run's own), the API
(uvicorn), ``BENCH_BOT_WORKERS`` bot-calling Celery workers (queue ``matches``, no database,
no master key) and ``BENCH_TRUSTED_WORKERS`` trusted workers (queue ``results``), each its own
process; and one asyncio bot server (:mod:`bench.tinybot`, one port, a URL per bot:
``/b/0`` ... ``/b/N-1``) holding every answer ``BENCH_DELAY_MS`` (100 ms). No beat: nothing
is swept or health-checked during the round.

Through the API: an account, the N bots registered (each with the API's handshake through
the guarded client), a Swiss of 2 rounds created, every bot entered, the event started (which
pairs round 1 and queues its matches). The workers then play and store round 1; the round's
last result pairs round 2 in its transaction (in a trusted worker), and the run ends when
round 2 is queued. The API is read (``GET /v1/tournaments/{id}``) every few seconds meanwhile.

Figures: the round's wall time (``POST /start`` sent -> round 2 queued) and its longest match
(from its first ``/start`` to its last ``/end`` answered, as the bots saw it), their ratio
(the goal: at most 2); results stored per second by the trusted workers over the recording
window and how far the stored time trailed each match's end; the pairing time inside the
flow (the trusted worker's ``round 2 paired`` log line, and the last result -> round 2 queued);
CPU seconds per match of the bot-calling processes, the trusted ones, the PostgreSQL backends
and the API (``/proc``); every result stored exactly once. ``BENCH_BOTS`` (1000),
``BENCH_POINTS`` (30, a Swiss's default rules), ``BENCH_GAMES`` (1; a Swiss's default is 6),
``BENCH_DELAY_MS`` (100) change the run; ``BENCH_BASELINE_ROOT=<checkout>`` runs that
checkout's platform first, the same way (a before/after in one run).

Cleanup: every process runs in a session of its own and is stopped on the way out (an error,
Ctrl-C, SIGTERM); the kernel kills them if this process is killed with -9
(``PR_SET_PDEATHSIG``). The database is dropped on the way out; one left by a run killed with
-9 is dropped by the next run (its name carries the dead run's pid).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import secrets
import signal
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import asyncpg
import httpx

from bench.concurrency import percentile
from bench.platform_procs import Procs, cpu_s, orphan_proof
from bench.platform_run import ROOT, platform_run
from bench.serve import start_api
from bench.smoke import env_size
from bench.tinybot import TinyBots

PAIRED = re.compile(r"tournament (\d+) round (\d+) paired: (\d+) matches in ([0-9.]+) s")
STORED = re.compile(r"truco\.store_result\[[^\]]+\] succeeded in ([0-9.e-]+)s")
STALL_S = 180.0
POLL_S = 0.25
API_READ_EVERY_S = 5.0


@dataclass(frozen=True)
class Plan:
    bots: int = 1000
    points: int = 30
    games: int = 1
    delay_ms: float = 100.0
    bot_workers: int = 2
    trusted_workers: int = 2
    trusted_threads: int = 4
    timeout_s: float = 900.0

    @classmethod
    def from_env(cls) -> Plan:
        env = os.environ
        return cls(
            bots=int(env_size("BENCH_BOTS", "1000", "8")),
            points=int(env_size("BENCH_POINTS", "30", "15")),
            games=int(env.get("BENCH_GAMES", "1")),
            delay_ms=float(env_size("BENCH_DELAY_MS", "100", "5")),
            bot_workers=int(env_size("BENCH_BOT_WORKERS", "2", "1")),
            trusted_workers=int(env_size("BENCH_TRUSTED_WORKERS", "2", "1")),
            timeout_s=float(env.get("BENCH_TIMEOUT_S", "900")),
        )


@dataclass
class Cpu:
    """CPU seconds so far of each side (bot-calling, trusted, PostgreSQL, API, bot server)."""

    sides: dict[str, float] = field(default_factory=dict)
    backends: dict[int, float] = field(default_factory=dict)


def start_platform(procs: Procs, env: dict[str, str], plan: Plan) -> tuple[str, dict[str, int]]:
    """The workers, then the API; (its URL, pid by process name)."""
    bot_env = {k: v for k, v in env.items() if k not in ("DATABASE_URL", "TRUCO_SECRET_KEY")}
    threads = math.ceil(plan.bots / 2 / plan.bot_workers) + 10  # every match of round 1 at once
    for k in range(plan.bot_workers):
        procs.celery_worker(f"bots{k}", "matches", threads, bot_env)
    for k in range(plan.trusted_workers):
        procs.celery_worker(f"trusted{k}", "results", plan.trusted_threads, env)
    url = start_api(procs, env)
    return url, {name: p.pid for name, p in procs.running.items()}


# --- through the API ------------------------------------------------------------------------


async def _post(client: httpx.AsyncClient, path: str, body: object, key: str = "") -> Any:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    response = await client.post(path, json=body, headers=headers)
    if response.status_code >= 300:
        raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:500]}")
    return response.json()


async def set_up_event(api: str, urls: list[str], plan: Plan) -> tuple[str, int, dict[int, int]]:
    """An account, the bots and a Swiss with them entered, all through the API: (the API key,
    the tournament's id, bot id -> bot index)."""
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(base_url=api, timeout=60, trust_env=False, limits=limits) as c:
        account = await _post(c, "/v1/accounts", {"name": f"bench-{secrets.token_hex(4)}"})
        key = account["api_key"]
        gate = asyncio.Semaphore(32)

        async def register(k: int) -> int:
            async with gate:
                made = await _post(c, "/v1/bots", {"name": f"bot-{k}", "url": urls[k]}, key)
                return int(made["id"])

        ids = await asyncio.gather(*(register(k) for k in range(plan.bots)))
        event = await _post(
            c,
            "/v1/tournaments",
            {
                "name": "platform round",
                "format": "swiss",
                "mode": "1v1",
                "rounds": 2,
                "rules": {"points_to_win": plan.points},
                "games_per_match": plan.games,
            },
            key,
        )

        async def enter(bot_id: int) -> None:
            async with gate:
                await _post(c, f"/v1/tournaments/{event['id']}/entries", {"bot_id": bot_id}, key)

        await asyncio.gather(*(enter(b) for b in ids))
    return key, int(event["id"]), {bot_id: k for k, bot_id in enumerate(ids)}


# --- watching the round ---------------------------------------------------------------------


async def backend_pids(pool: asyncpg.Pool, database: str) -> list[int]:
    rows = await pool.fetch("SELECT pid FROM pg_stat_activity WHERE datname = $1", database)
    return [int(row["pid"]) for row in rows]


async def cpu_now(pool: asyncpg.Pool, database: str, pids: dict[str, int], bots_pid: int) -> Cpu:
    cpu = Cpu()
    for name, pid in pids.items():
        side = name.rstrip("0123456789")
        cpu.sides[side] = cpu.sides.get(side, 0.0) + cpu_s(pid)
    cpu.sides["bot_server"] = cpu_s(bots_pid)
    cpu.backends = {pid: cpu_s(pid) for pid in await backend_pids(pool, database)}
    return cpu


def cpu_used(before: Cpu, after: Cpu) -> dict[str, float]:
    used = {side: after.sides[side] - before.sides.get(side, 0.0) for side in after.sides}
    # a backend born during the round counts whole; one that ended during it is lost
    used["postgres"] = sum(t - before.backends.get(pid, 0.0) for pid, t in after.backends.items())
    return used


async def wait_round(
    pool: asyncpg.Pool, api: httpx.AsyncClient, tournament: int, matches: int, plan: Plan
) -> list[float]:
    """Until round 2 is queued (or the event finished); the API's read latencies meanwhile (ms).
    Raises on a stall (no result for :data:`STALL_S`) or the run's time limit."""
    began = last_change = time.monotonic()
    stored, next_read = -1, 0.0
    reads: list[float] = []
    while True:
        row = await pool.fetchrow(
            "SELECT t.status, "
            "(SELECT count(*) FROM matches m JOIN rounds r ON r.id = m.round_id "
            " WHERE r.tournament_id = t.id AND r.number = 1 AND m.finished_at IS NOT NULL) AS done, "
            "(SELECT count(*) FROM matches m JOIN rounds r ON r.id = m.round_id "
            " WHERE r.tournament_id = t.id AND r.number = 2 AND m.queued_at IS NOT NULL) AS next "
            "FROM tournaments t WHERE t.id = $1",
            tournament,
        )
        assert row is not None
        if row["next"] > 0 or row["status"] == "finished":
            return reads
        now = time.monotonic()
        if row["done"] != stored:
            stored, last_change = row["done"], now
        if now - last_change > STALL_S or now - began > plan.timeout_s:
            raise RuntimeError(f"the round stalled: {stored}/{matches} results stored")
        if now >= next_read:
            t0 = time.perf_counter()
            answer = await api.get(f"/v1/tournaments/{tournament}")
            reads.append((time.perf_counter() - t0) * 1000)
            assert answer.status_code == 200, answer.text[:300]
            next_read = now + API_READ_EVERY_S
        await asyncio.sleep(POLL_S)


async def round_rows(pool: asyncpg.Pool, tournament: int) -> list[asyncpg.Record]:
    return await pool.fetch(
        "SELECT m.id, r.number, m.status, m.bye, "
        "extract(epoch FROM m.queued_at)::float8 AS queued, "
        "extract(epoch FROM m.finished_at)::float8 AS finished, "
        "(SELECT count(*) FROM match_results x WHERE x.match_id = m.id) AS results, "
        "(SELECT count(*) FROM replays p WHERE p.match_id = m.id) AS replays, "
        "(SELECT count(*) FROM rating_history h WHERE h.match_id = m.id) AS history, "
        "(SELECT x.result FROM match_results x WHERE x.match_id = m.id) AS result "
        "FROM matches m JOIN rounds r ON r.id = m.round_id WHERE m.tournament_id = $1",
        tournament,
    )


def paired_lines(procs: Procs, plan: Plan) -> dict[int, tuple[int, float]]:
    """Round -> (matches, seconds) from the trusted workers' ``paired`` log lines."""
    found = {}
    for k in range(plan.trusted_workers):
        for match in PAIRED.finditer(procs.log(f"trusted{k}")):
            found[int(match[2])] = (int(match[3]), float(match[4]))
    return found


def store_task_ms(procs: Procs, plan: Plan) -> list[float]:
    """How long each ``truco.store_result`` task took (ms), from the trusted workers' logs:
    verifying the replay, then its transaction (which waits for the event's row lock)."""
    return [
        float(match[1]) * 1000
        for k in range(plan.trusted_workers)
        for match in STORED.finditer(procs.log(f"trusted{k}"))
    ]


async def measure(
    procs: Procs,
    bots: TinyBots,
    api: str,
    pids: dict[str, int],
    database_url: str,
    database: str,
    plan: Plan,
) -> dict[str, Any]:
    t0 = time.monotonic()
    key, tournament, _ = await set_up_event(api, bots.urls, plan)
    setup_s = time.monotonic() - t0
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
    async with httpx.AsyncClient(base_url=api, timeout=60, trust_env=False) as client:
        try:
            cpu0, calls0 = await cpu_now(pool, database, pids, bots.pid), bots.cpu()[1]
            began = time.time()
            started = await _post(client, f"/v1/tournaments/{tournament}/start", {}, key)
            start_s = time.time() - began
            matches = len(started["queued"])
            reads = await wait_round(pool, client, tournament, matches, plan)
            cpu1, calls1 = await cpu_now(pool, database, pids, bots.pid), bots.cpu()[1]
            spans, lag = bots.spans(), bots.lag()
            # not round 2 (on a slow machine it may have been played already: then it is over)
            cancel = await client.post(
                f"/v1/tournaments/{tournament}/cancel",
                json={},
                headers={"authorization": f"Bearer {key}"},
            )
            if cancel.status_code not in (200, 409):
                raise RuntimeError(f"cancel: {cancel.status_code} {cancel.text[:500]}")
            rows = await round_rows(pool, tournament)
        finally:
            await pool.close()
    return figures(
        plan, rows, spans, began, start_s, matches, cpu_used(cpu0, cpu1), calls1 - calls0, reads,
        paired_lines(procs, plan), setup_s, lag, store_task_ms(procs, plan),
    )  # fmt: skip


def figures(
    plan: Plan,
    rows: list[asyncpg.Record],
    spans: dict[str, tuple[float, float]],
    began: float,
    start_s: float,
    matches: int,
    cpu: dict[str, float],
    calls: int,
    reads: list[float],
    paired: dict[int, tuple[int, float]],
    setup_s: float,
    lag: tuple[float, float, float],
    store_ms: list[float],
) -> dict[str, Any]:
    first = [r for r in rows if r["number"] == 1 and not r["bye"]]
    second = [r for r in rows if r["number"] == 2]
    once = all(
        r["status"] == "done" and r["results"] == 1 and r["replays"] == 1 and r["history"] == 2
        for r in first
    )
    stored = sorted(r["finished"] for r in first if r["finished"] is not None)
    ends = [e for e in (r["queued"] for r in second) if e is not None]
    round_end = min(ends) if ends else max(stored, default=began)
    durations = {str(r["id"]): spans[str(r["id"])] for r in first if str(r["id"]) in spans}
    lengths = [end - start for start, end in durations.values()]
    lag_behind = [
        r["finished"] - durations[str(r["id"])][1]
        for r in first
        if str(r["id"]) in durations and r["finished"] is not None
    ]
    results = [json.loads(r["result"]) for r in first if r["result"] is not None]
    wall = round_end - began
    longest = max(lengths, default=0.0)
    window = stored[-1] - stored[0] if len(stored) > 1 else 0.0
    per_match = {side: round(t / max(1, len(first)), 3) for side, t in cpu.items()}
    return {
        "bots": plan.bots,
        "matches": matches,
        "points": plan.points,
        "games_per_match": plan.games,
        "delay_ms": plan.delay_ms,
        "processes": {
            "bot_calling": plan.bot_workers,
            "trusted": plan.trusted_workers,
            "api": 1,
            "bot_server": 1,
        },
        "cores": os.cpu_count(),
        "load_avg": round(os.getloadavg()[0], 1),
        "setup_s": round(setup_s, 1),
        "start_s": round(start_s, 2),
        "round_wall_s": round(wall, 1),
        "longest_match_s": round(longest, 1),
        "median_match_s": round(statistics.median(lengths), 1) if lengths else 0.0,
        "wall_over_longest": round(wall / longest, 2) if longest else None,
        "within_2x": bool(longest) and wall <= 2 * longest,
        "all_started_s": round(max((s for s, _ in durations.values()), default=began) - began, 1),
        "results": len(stored),
        "stored_once": once and len(stored) == len(first),
        "results_per_s": round((len(stored) - 1) / window, 1) if window else None,
        "store_lag_s": {
            "p50": round(percentile(lag_behind, 0.5), 2),
            "max": round(max(lag_behind, default=0.0), 2),
        },
        "store_task_ms": {
            "p50": round(percentile(store_ms, 0.5), 1),
            "p99": round(percentile(store_ms, 0.99), 1),
            "max": round(max(store_ms, default=0.0), 1),
        },
        "pairing_round2_s": paired.get(2, (0, None))[1],
        "last_result_to_round2_queued_s": round(round_end - stored[-1], 2) if stored else None,
        "calls": calls,
        "faults": sum(sum(r["faults"]) for r in results),
        "walkovers": sum(len(r["walkover"]) for r in results),
        "cpu_s": {side: round(t, 1) for side, t in cpu.items()},
        "cpu_s_per_match": per_match,
        "bot_calling_us_per_call": round(cpu["bots"] / calls * 1e6) if calls else None,
        "api_read_ms": {"p50": round(percentile(reads, 0.5), 1), "max": round(max(reads), 1)}
        if reads
        else None,
        "bot_server_late_ms": {"p99": lag[1], "max": lag[2]},
    }


# --- the run --------------------------------------------------------------------------------


def run(
    plan: Plan,
    *,
    root: Path = ROOT,
    server: str = "",
    redis_url: str = "",
    logs: Path | None = None,
) -> dict[str, Any]:
    """One round on a fresh database; its figures. Every process it starts is stopped (and
    dies with this one), the database dropped and the Redis keys of its prefix deleted; its
    temporary folder too, unless a process logged an error. ``root``: the checkout whose platform (API and workers) runs; the bench is this one."""
    with platform_run("round", root, server=server, redis_url=redis_url) as platform:
        with (
            Procs(logs or platform.work / "logs", root) as procs,
            TinyBots(plan.bots, delay_ms=plan.delay_ms, spans=True, **orphan_proof()) as bots,
        ):
            api, pids = start_platform(procs, platform.env, plan)
            result = asyncio.run(
                measure(procs, bots, api, pids, platform.database_url, platform.database, plan)
            )
            result["tree"] = "this" if root == ROOT else str(root)
            result["pids"] = sorted([*pids.values(), bots.pid])
            result["worker_errors"] = [
                n for n in procs.running if "ERROR/" in procs.log(n) or "Traceback" in procs.log(n)
            ]
        platform.keep = bool(result["worker_errors"])  # the logs are kept after any error
        return result


def report(result: dict[str, Any]) -> None:
    per = result["cpu_s_per_match"]
    print(
        f"{result['bots']} bots, {result['matches']} matches (1 game to {result['points']}"
        if result["games_per_match"] == 1
        else f"{result['bots']} bots, {result['matches']} matches ({result['games_per_match']} "
        f"games to {result['points']}",
        end="",
    )
    print(
        f"), bots answering in {result['delay_ms']:g} ms; {result['processes']['bot_calling']} "
        f"bot-calling + {result['processes']['trusted']} trusted workers + 1 API on "
        f"{result['cores']} cores (load {result['load_avg']}): round {result['round_wall_s']} s "
        f"(start -> round 2 queued), longest match {result['longest_match_s']} s (median "
        f"{result['median_match_s']} s): {result['wall_over_longest']}x, within 2x: "
        f"{result['within_2x']}"
    )
    print(
        f"results: {result['results']}/{result['matches']} stored once: {result['stored_once']}, "
        f"{result['results_per_s']}/s over the window, stored {result['store_lag_s']['p50']} s "
        f"after the match ended (max {result['store_lag_s']['max']}), each store task "
        f"{result['store_task_ms']['p50']} ms (p99 {result['store_task_ms']['p99']}); "
        "pairing round 2 "
        f"{result['pairing_round2_s']} s in the flow (last result -> round 2 queued "
        f"{result['last_result_to_round2_queued_s']} s); start (pairing round 1 and queueing) "
        f"{result['start_s']} s; faults {result['faults']}, walkovers {result['walkovers']}"
    )
    print(
        f"CPU s per match: bot-calling {per.get('bots')} ({result['bot_calling_us_per_call']} us "
        f"per call, {result['calls']} calls), trusted {per.get('trusted')}, PostgreSQL "
        f"{per.get('postgres')}, API {per.get('api')}, bot server {per.get('bot_server')}; "
        f"API reads during the round {result['api_read_ms']} ms; setup through the API "
        f"{result['setup_s']} s"
    )
    shown = {k: v for k, v in result.items() if k != "pids"}
    print(json.dumps({"platform_round": shown}))


def _exit_on_term(signum: int, frame: object) -> NoReturn:
    raise SystemExit(128 + signum)  # so every ``finally`` runs and stops the processes


def main() -> None:
    """The run; with ``BENCH_BASELINE_ROOT`` (another checkout, e.g. main before a change) that
    checkout's platform first, then this one's: side by side in one run."""
    signal.signal(signal.SIGTERM, _exit_on_term)
    plan = Plan.from_env()
    baseline = os.environ.get("BENCH_BASELINE_ROOT", "").strip()
    if baseline:
        print(f"baseline: the platform of {baseline}")
        report(run(plan, root=Path(baseline).resolve()))
        print("this tree:")
    report(run(plan))


if __name__ == "__main__":
    main()
