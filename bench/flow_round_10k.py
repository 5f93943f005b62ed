"""The workflow alone for a 10,000-bot Swiss round (issue 14, goal 4): no workers, no bots.

On a PostgreSQL database of its own (created for the run and dropped after it), through the
real :mod:`services.flow` calls the API and the workers make:

1. ``setup_s``: an organiser and N bots (bulk SQL, each bot's signing secret encrypted as the
   API stores it), a Swiss event created and every bot entered (``flow.enter_tournament``,
   one transaction per entry, as the API does it);
2. ``start_s`` (pairing round 1): ``flow.start_tournament`` seeds the field and creates the
   N/2 matches of round 1;
3. ``dispatch_s``: ``flow.match_specs`` (what a bot-calling worker does before it plays:
   marks them queued, decrypts the secrets) and an instant result for each match: a replay of
   a real match played once in process, stamped with the match's id, seed and entrants (the
   side that wins follows the seed, so the round has winners on both sides);
4. ``record_s``: ``flow.record_result`` for every result but the last, one after another
   (what the trusted workers do; concurrent ones queue on the tournament's row lock anyway);
5. ``pair2_s`` (pairing round 2): the last ``record_result``, which completes round 1 and
   pairs round 2 in the same transaction.

``pairing_s`` is ``start_s + pair2_s``; ``results_per_s`` is the results stored per second in
step 4, with the CPU each result costs this process and the PostgreSQL backend (its one
connection, read from ``/proc``: the machine's load stretches wall time, not CPU time).
``BENCH_FLOW_BOTS`` (comma-separated) chooses the sizes, 1,000,2,000,10,000 by default,
so the scaling shows beside the full figure; each size gets a fresh database.

``BENCH_BASELINE_ROOT=<checkout>`` first runs this file on that checkout's ``services`` (the
sizes up to 1,000), side by side in one run: the tree before migration 0012 read the whole
event for every result, so recording a round cost n^2 rows.

PostgreSQL: ``DATABASE_URL``'s server if set, else 127.0.0.1:5432 as user postgres; without
one the benchmark says so and is skipped.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import msgspec

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from bench.smoke import size
from engine.rules import Rules
from services import flow
from services.base.config import Secret
from services.base.secretbox import SecretBox
from services.db.migrate import migrate_url
from services.db.pool import create_pool
from services.domain.match_order import MatchOrder
from services.domain.names import name_key

SIZES = size((1_000, 2_000, 10_000), (20,))
BASELINE_MAX = 1_000  # the tree before migration 0012 records a round in n^2: 10,000 is hours
BOX = SecretBox(Secret("b" * 48))
RULES = {"points_to_win": 15}


def _sizes() -> list[int]:
    text = os.environ.get("BENCH_FLOW_BOTS", "").strip()
    return [int(part) for part in text.split(",") if part.strip()] if text else list(SIZES)


def _server_url() -> str:
    # as bench/database.py; kept here because the baseline run executes this file with another
    # checkout first on the path, whose bench package may lack that module
    url = os.environ.get("DATABASE_URL", "").strip()
    return url or "postgresql://postgres@127.0.0.1:5432/postgres"


def _with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


async def _templates() -> dict[int, Replay]:
    """A real in-process match won by side 0 and one won by side 1 (seeds tried in turn)."""
    settings = MatchSettings(rules=Rules.from_dict(RULES), games_per_match=2)
    found: dict[int, Replay] = {}
    seed = 1
    while len(found) < 2:
        entrants = [
            (
                EntrantRecord(name, "builtin:random"),
                InProcessBot(name, strategy_decider("random", seed + k)),
            )
            for k, name in enumerate(("a", "b"))
        ]
        replay = await run_match(f"template-{seed}", seed, settings, entrants)
        if replay.result.winner is not None:
            found.setdefault(replay.result.winner, replay)
        seed += 1
    return found


def _stamp(template: Replay, spec: MatchOrder) -> Replay:
    return msgspec.structs.replace(
        template,
        match_id=str(spec.match_id),
        seed=spec.seed,
        deals=spec.settings.deals,
        entrants=tuple(EntrantRecord(e.name, e.url) for e in spec.entrants),
    )


async def _bots(pool: asyncpg.Pool, owner: int, count: int) -> list[int]:
    """``count`` active bots of ``owner``, each secret encrypted with its id bound in."""
    ids: list[int] = [
        row["id"]
        for row in await pool.fetch(
            "INSERT INTO bots (owner_id, name, name_key, url, signing_secret_enc, signing_key_id) "
            "SELECT $1, 'flow-' || k, 'flow-' || k, 'http://127.0.0.1:9', '\\x00'::bytea, $3 "
            "FROM generate_series(1, $2) AS k RETURNING id",
            owner,
            count,
            BOX.key_id,
        )
    ]
    await pool.executemany(
        "UPDATE bots SET signing_secret_enc = $2 WHERE id = $1",
        [(bot_id, BOX.encrypt("whsec_" + secrets.token_urlsafe(24), bot_id)) for bot_id in ids],
    )
    return ids


def _cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) of a local process so far; None where /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _round(pool: asyncpg.Pool, bots: int, templates: dict[int, Replay]) -> dict[str, Any]:
    t0 = time.perf_counter()
    backend = await pool.fetchval("SELECT pg_backend_pid()")  # the pool's one connection
    organiser = await pool.fetchval(
        "INSERT INTO accounts (name, name_key, api_key_hash) VALUES ($1, $2, $3) RETURNING id",
        "flow-bench",
        name_key("flow-bench"),
        secrets.token_bytes(32),
    )
    bot_ids = await _bots(pool, organiser, bots)
    event = await flow.create_tournament(
        pool,
        organiser_id=organiser,
        name="flow bench",
        format="swiss",
        mode="1v1",
        settings=flow.TournamentSettings(rules=Rules.from_dict(RULES), rounds=3, games_per_match=2),
    )
    for bot_id in bot_ids:
        await flow.enter_tournament(pool, event.id, bot_id, most=bots)
    await pool.execute("ANALYZE")
    t1 = time.perf_counter()
    round1 = await flow.start_tournament(pool, event.id)
    t2 = time.perf_counter()
    specs = await flow.match_specs(pool, round1, secret_box=BOX)
    results = [(spec.match_id, _stamp(templates[spec.seed % 2], spec)) for spec in specs]
    t3 = time.perf_counter()
    cpu3, db3 = time.process_time(), _cpu_s(backend)
    for match_id, replay in results[:-1]:
        assert (
            await flow.record_result(pool, match_id, replay, task_id=f"t{match_id}")
        ).next_ids == []
    t4 = time.perf_counter()
    cpu4, db4 = time.process_time(), _cpu_s(backend)
    match_id, replay = results[-1]
    round2 = (await flow.record_result(pool, match_id, replay, task_id=f"t{match_id}")).next_ids
    t5 = time.perf_counter()
    assert len(round1) == len(specs) == bots // 2, (len(round1), len(specs))
    assert len(round2) == bots // 2, len(round2)
    start_s, dispatch_s, record_s, pair2_s = t2 - t1, t3 - t2, t4 - t3, t5 - t4
    recorded = len(results) - 1
    db_ms = None if db3 is None or db4 is None else round((db4 - db3) / recorded * 1000, 2)
    return {
        "bots": bots,
        "matches": len(round1),
        "setup_s": round(t1 - t0, 2),
        "start_s": round(start_s, 3),
        "dispatch_s": round(dispatch_s, 3),
        "record_s": round(record_s, 2),
        "pair2_s": round(pair2_s, 3),
        "pairing_s": round(start_s + pair2_s, 3),
        "results_per_s": round(recorded / record_s, 1),
        "record_client_cpu_ms": round((cpu4 - cpu3) / recorded * 1000, 2),
        "record_db_cpu_ms": db_ms,
        "flow_s": round(t5 - t1, 2),
    }


async def _one_size(server: str, bots: int, templates: dict[int, Replay]) -> dict[str, Any]:
    name = f"bench_flow_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(server, timeout=5)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = _with_database(server, name)
        try:
            await migrate_url(url)
            # one connection for the whole run (never recycled), so its backend's CPU is the flow's
            pool = await create_pool(
                url, min_size=1, max_size=1, max_queries=10**9, max_inactive_connection_lifetime=0
            )
            try:
                return await _round(pool, bots, templates)
            finally:
                await pool.close()
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def run() -> list[dict[str, Any]]:
    server = _server_url()
    try:
        await (await asyncpg.connect(server, timeout=5)).close()
    except (OSError, asyncpg.PostgresError) as exc:
        print(f"flow_round_10k: skipped, no PostgreSQL at {urlsplit(server).hostname}: {exc}")
        return []
    templates = await _templates()
    figures = []
    for bots in _sizes():
        result = await _one_size(server, bots, templates)
        print(
            f"flow round of {bots:>6} bots: pairing round 1 {result['start_s']:.2f} s, "
            f"dispatch {result['dispatch_s']:.2f} s, {result['matches'] - 1} results in "
            f"{result['record_s']:.1f} s ({result['results_per_s']:.0f}/s; CPU per result: "
            f"{result['record_client_cpu_ms']} ms here, {result['record_db_cpu_ms']} ms in "
            "PostgreSQL), pairing round 2 "
            f"{result['pair2_s']:.2f} s; the flow end to end {result['flow_s']:.1f} s "
            f"(setup, not counted: {result['setup_s']:.1f} s)",
            flush=True,
        )
        figures.append(result)
    return figures


def _baseline(root: str) -> list[dict[str, Any]]:
    """This file run on another checkout's ``services`` (e.g. the commit before the fix), for
    the sizes up to :data:`BASELINE_MAX`: its figures, tagged ``tree: baseline``."""
    sizes = [n for n in _sizes() if n <= BASELINE_MAX]
    if not sizes:
        return []
    env = {**os.environ, "PYTHONPATH": root, "BENCH_FLOW_BOTS": ",".join(map(str, sizes))}
    env.pop("BENCH_BASELINE_ROOT")
    print(f"baseline: {root}", flush=True)
    done = subprocess.run(
        # run_path, not ``python FILE``: that would put bench/ first on the path (bench/arena.py)
        [
            sys.executable,
            "-c",
            "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')",
            __file__,
        ],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    figures = []
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            figures.append({**json.loads(line), "tree": "baseline"})
        else:
            print(f"baseline {line}", flush=True)
    return figures


def main() -> None:
    root = os.environ.get("BENCH_BASELINE_ROOT", "").strip()
    figures = _baseline(root) if root else []
    figures += [{"bench": "flow_round_10k", **f, "tree": "this"} for f in asyncio.run(run())]
    for figure in figures:
        print(json.dumps(figure))


if __name__ == "__main__":
    main()
