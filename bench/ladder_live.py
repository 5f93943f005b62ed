"""The ladder through the real platform (issue 25, "live"): a bot that joins a ladder of 50 is
placed within minutes, and a tournament started meanwhile has its first round queued at once.

What runs, all on 127.0.0.1 and all real: PostgreSQL (a database of this run's own, migrated,
dropped at the end), Redis (keys under a prefix of this run's own), the API (uvicorn), one
bot-calling Celery worker (queues ``matches`` and ``ladder``), one trusted worker (``results``:
the ladder's tick, the rating fit, results) and Celery beat (the ladder's tick every
``TRUCO_LADDER_EVERY_S``, 5 s; the fit every 30 s), as ``make run`` starts them; and one
asyncio bot server (:mod:`bench.tinybot`) holding every answer ``BENCH_DELAY_MS`` (100 ms).

Through the API: ``BENCH_LADDER_BOTS`` (50) bots of ten accounts join the 1v1 ladder and play
for ``BENCH_WARM_S`` (480 s) so the pool has ratings; then a new bot of an eleventh account
joins, and at the same moment an organiser starts a Swiss of eight bots of its own. Figures:
the newcomer's time from joining to "placed" as ``GET /v1/ladders/1v1`` shows it (its 95%
interval under +-100 Elo) and its matches by then; the Swiss's ``POST /start`` answered and its
first round's matches all queued (from the database's ``queued_at``), measured from the moment
the start was sent; the ladder's matches played over the run. The goals: placed within 10
minutes, the round queued within 5 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
import time
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx

from bench.platform_procs import Procs, orphan_proof
from bench.platform_round import _post
from bench.platform_run import ROOT, platform_run
from bench.serve import start_api
from bench.smoke import env_size, smoke
from bench.tinybot import TinyBots

POLL_S = 1.0
PER_ACCOUNT = 5  # TRUCO_LADDER_ENTRIES_PER_ACCOUNT's default
SWISS_BOTS = 8


@dataclass(frozen=True)
class Plan:
    bots: int = 50
    delay_ms: float = 100.0
    warm_s: float = 480.0
    limit_s: float = 1200.0

    @classmethod
    def from_env(cls) -> Plan:
        return cls(
            bots=int(env_size("BENCH_LADDER_BOTS", "50", "6")),
            delay_ms=float(env_size("BENCH_DELAY_MS", "100", "5")),
            warm_s=float(env_size("BENCH_WARM_S", "480", "2")),
            limit_s=float(env_size("BENCH_TIMEOUT_S", "1200", "1")),
        )


async def _account(client: httpx.AsyncClient, name: str) -> str:
    made = await _post(client, "/v1/accounts", {"name": f"{name}-{secrets.token_hex(3)}"})
    return str(made["api_key"])


async def _bot(client: httpx.AsyncClient, key: str, name: str, url: str) -> int:
    made = await _post(client, "/v1/bots", {"name": name, "url": url}, key)
    return int(made["id"])


async def _join(client: httpx.AsyncClient, key: str, bot_id: int) -> None:
    await _post(client, "/v1/ladders/1v1/entries", {"bot_id": bot_id}, key)


async def _entry(client: httpx.AsyncClient, bot_id: int) -> dict[str, Any] | None:
    answer = await client.get("/v1/ladders/1v1")
    answer.raise_for_status()
    for entry in answer.json()["entries"]:
        if entry["bot_id"] == bot_id:
            return dict(entry)
    return None


async def _round_queued(pool: asyncpg.Pool, tournament: int, sent: float, limit: float) -> float:
    """Seconds from ``sent`` (wall clock) until every match of round 1 has its ``queued_at``."""
    while time.time() - sent < limit:
        row = await pool.fetchrow(
            "SELECT count(*) AS matches, count(m.queued_at) AS queued, "
            "extract(epoch FROM max(m.queued_at)) AS last FROM matches m "
            "JOIN rounds r ON r.id = m.round_id WHERE r.tournament_id = $1 AND r.number = 1",
            tournament,
        )
        assert row is not None
        if row["matches"] and row["queued"] == row["matches"]:
            return float(row["last"]) - sent
        await asyncio.sleep(0.1)
    raise RuntimeError(f"round 1 of tournament {tournament} was not queued in {limit} s")


async def measure(api: str, urls: list[str], database_url: str, plan: Plan) -> dict[str, Any]:
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
    async with httpx.AsyncClient(base_url=api, timeout=60, trust_env=False) as client:
        try:
            for k in range(0, plan.bots, PER_ACCOUNT):
                key = await _account(client, f"ladder{k // PER_ACCOUNT}")
                for n in range(k, min(k + PER_ACCOUNT, plan.bots)):
                    await _join(client, key, await _bot(client, key, f"pool-{n}", urls[n]))
            organiser = await _account(client, "organiser")
            swiss = [
                await _bot(client, organiser, f"swiss-{n}", urls[plan.bots + n])
                for n in range(SWISS_BOTS)
            ]
            event = await _post(
                client,
                "/v1/tournaments",
                {"name": "meanwhile", "format": "swiss", "mode": "1v1", "rounds": 2},
                organiser,
            )
            for bot in swiss:
                await _post(
                    client, f"/v1/tournaments/{event['id']}/entries", {"bot_id": bot}, organiser
                )
            await asyncio.sleep(plan.warm_s)  # the pool plays and is fitted
            warm = await client.get("/v1/ladders/1v1")
            placed_before = sum(
                1 for e in warm.json()["entries"] if e["placement"]["state"] == "placed"
            )
            newcomer_key = await _account(client, "newcomer")
            newcomer = await _bot(client, newcomer_key, "newcomer", urls[plan.bots + SWISS_BOTS])
            joined = time.time()
            await _join(client, newcomer_key, newcomer)
            sent = time.time()
            await _post(client, f"/v1/tournaments/{event['id']}/start", {}, organiser)
            start_answered_s = time.time() - sent
            round_queued_s = await _round_queued(pool, int(event["id"]), sent, 120.0)
            entry: dict[str, Any] | None = None
            while time.time() - joined < plan.limit_s:
                entry = await _entry(client, newcomer)
                if entry is not None and entry["placement"]["state"] == "placed":
                    break
                await asyncio.sleep(POLL_S)
            placed_s = time.time() - joined
            ladder_matches = await pool.fetchval(
                "SELECT count(*) FROM matches WHERE ladder_pool = '1v1' AND status = 'done'"
            )
            await client.post(
                f"/v1/tournaments/{event['id']}/cancel",
                json={},
                headers={"authorization": f"Bearer {organiser}"},
            )
        finally:
            await pool.close()
    assert entry is not None
    placed = entry["placement"]["state"] == "placed"
    return {
        "pool_bots": plan.bots,
        "delay_ms": plan.delay_ms,
        "warm_s": plan.warm_s,
        "pool_placed_when_newcomer_joined": placed_before,
        "newcomer_placed": placed,
        "newcomer_placed_s": round(placed_s, 1) if placed else None,
        "newcomer_matches": entry["matches"],
        "newcomer_interval": entry["interval"],
        "start_answered_s": round(start_answered_s, 3),
        "round1_queued_s": round(round_queued_s, 3),
        "ladder_matches_done": ladder_matches,
        "cores": os.cpu_count(),
        "load_avg": round(os.getloadavg()[0], 1),
        "goals": {
            "placed_within_600_s": placed and placed_s <= 600,
            "queued_within_5_s": round_queued_s <= 5,
        },
    }


def run(plan: Plan) -> dict[str, Any]:
    with platform_run("ladder") as platform:
        env = platform.env
        if smoke():  # the smoke run's short warm-up: the ladder ticks every 0.5 s, not 5 s
            env = {"TRUCO_LADDER_EVERY_S": "0.5", **env}
        bot_env = {k: v for k, v in env.items() if k not in ("DATABASE_URL", "TRUCO_SECRET_KEY")}
        count = plan.bots + SWISS_BOTS + 1
        with (
            Procs(platform.work / "logs", ROOT) as procs,
            TinyBots(count, delay_ms=plan.delay_ms, spans=False, **orphan_proof()) as bots,
        ):
            procs.celery_worker("bots", "matches,ladder", 200, bot_env)
            procs.celery_worker("trusted", "results", 4, env)
            beat = [sys.executable, "-m", "celery", "-A", "services.worker.celery_app", "beat"]
            beat += ["--schedule", str(platform.work / "beat-schedule"), "--loglevel=INFO"]
            procs.start("beat", beat, env)
            api = start_api(procs, env)
            return asyncio.run(measure(api, bots.urls, platform.database_url, plan))


def main() -> None:
    plan = Plan.from_env()
    result = run(plan)
    placed = (
        f"placed after {result['newcomer_placed_s']} s and {result['newcomer_matches']} matches"
        if result["newcomer_placed"]
        else f"NOT placed within {plan.limit_s:.0f} s ({result['newcomer_matches']} matches)"
    )
    print(
        f"ladder_live: {plan.bots} bots answering in {plan.delay_ms:g} ms, "
        f"{result['pool_placed_when_newcomer_joined']} placed after {plan.warm_s:.0f} s; a new "
        f"bot {placed}; a Swiss started meanwhile: POST /start answered in "
        f"{result['start_answered_s']} s, round 1 queued {result['round1_queued_s']} s after it "
        f"was sent; {result['ladder_matches_done']} ladder matches played "
        f"({result['cores']} cores, load {result['load_avg']})"
    )
    print(json.dumps({"bench": "ladder_live", **result}))


if __name__ == "__main__":
    main()
