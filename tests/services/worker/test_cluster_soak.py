"""The whole cluster under crashes (issue 37; ``make soak``; docs/operations.md "The soak").

Three API processes behind nginx (round robin, not sticky: ``bench/nginx_proxy.py``), two
bot-calling workers, two trusted workers and beat, on one database and Redis. While a 64-bot
Swiss runs (two games to 30 a match: the Swiss lasts about as long as the kills), 20 bots
play the 1v1 ladder, 20 scripted people play /play sessions one after another and 100
Server-Sent Events streams are open (the 20 people's play streams, 70 match spectators, 10
tournament spectators, all through the proxy), one process of the cluster, of any kind,
chosen at random, is killed -9 every 20 s and started again. The bots are real HTTP servers
on 127.0.0.1 (``bench/tinybot.py``: one process, a port a bot). Then the ladder's bots
leave, everything runs out, and the test asserts:

* every match is over and stored exactly once (one result, one replay, Elo moved once);
* the tournament's export verifies (``truco verify tournament``: standings recomputed from
  the stored results, every replay re-simulated, every Elo change recomputed), and every
  rating and rating change equals a refit of its pool from the stored history;
* every /play session ended, ``finished`` or ``abandoned`` with its cause, none ``playing``;
* every stream gave each item once and in order (a match's last run from index 0 with as
  many decisions as its stored replay; a play stream's log 0..n; a tournament spectator's
  last state of every match is the stored one), resuming with Last-Event-ID across the proxy;
* no 5xx but nginx's 502 for a request open on an API at the moment it was killed, and no
  5xx counted by any API's metrics;
* the metrics counted what happened: the trusted workers' results stored, the bot-calling
  workers' matches played, the APIs' requests.

Prints the run's numbers and writes them as one JSON line (``soak.jsonl`` in the test's temp
folder, and ``TRUCO_SOAK_REPORT`` if set)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from bench.nginx_proxy import nginx_binary, proxy_argv
from bench.tinybot import TinyBots
from services.db import matches as db_matches
from services.db.pool import create_pool
from services.worker.names import BOT_CALLING_QUEUES
from tests.servers import RedisTarget, RunDatabases
from tests.services.worker import soak_checks
from tests.services.worker.play_cluster import Cluster, cluster_env, house_bot, house_server
from tests.services.worker.processes import answers, free_port, start, stop, wait_for
from tests.services.worker.soak_metrics import Scraper, total
from tests.services.worker.soak_people import Answers, Person
from tests.services.worker.soak_setup import ladder, leave, post, swiss
from tests.services.worker.soak_spectators import Spectators

pytestmark = [pytest.mark.soak, pytest.mark.timeout(900)]

SWISS_BOTS, LADDER_BOTS, PEOPLE = 64, 20, 20
MATCH_SPECTATORS, TOURNAMENT_SPECTATORS = 70, 10
KILL_EVERY_S = 20.0
CHAOS_MIN_S, CHAOS_MAX_S = 240.0, 420.0
"""Kills go on until the Swiss is over, at least CHAOS_MIN_S and at most CHAOS_MAX_S."""
SETTLE_S = 180.0
"""A hang guard for everything to run out once the kills stop (the longest: a /play session
begun just before, two minutes; a result lost with a trusted worker is stored 30 s after)."""
AFTER_KILL_S = 5.0
"""A 5xx within this long after an API was killed is that API's open request."""


@dataclass
class Soak:
    cluster: Cluster
    base: str
    database: str
    bots: TinyBots
    tmp: Path


@pytest.fixture
def soak(run_databases: RunDatabases, redis_target: RedisTarget, tmp_path: Path) -> Iterator[Soak]:
    nginx = nginx_binary()
    if nginx is None:
        pytest.skip("no nginx (install nginx, or set TRUCO_NGINX to its binary)")
    database = run_databases.url(f"cluster-soak:{tmp_path}")
    prefix = f"{redis_target.prefix}{secrets.token_hex(3)}:"
    env = cluster_env(database, redis_target.url, prefix, tmp_path / "data")
    env.update(
        {
            "TRUCO_PLAY_PER_ADDRESS": "1000",
            "TRUCO_STREAMS_PER_ADDRESS": "1000",
            "TRUCO_CONNECTIONS_PER_ADDRESS": "10000",
            "TRUCO_UNFINISHED_HEADS_PER_ADDRESS": "10000",
            "TRUCO_BOTS_PER_ACCOUNT": "1000",
            "TRUCO_ENTRIES_PER_EVENT": "1000",
            "TRUCO_HEALTH_RATE_LIMIT_PER_MINUTE": "1000000",
            "TRUCO_EXPORTS_PER_ADDRESS": "100",
            # a session made twice (its API died before answering, the person asked again)
            # is left to its clock: short ones, so it forfeits within a minute
            "TRUCO_PLAY_CLOCK_S": "5",
            "TRUCO_PLAY_BANK_S": "20",
            # what a dead worker held comes back within seconds, not the production minutes
            "TRUCO_SWEEP_EVERY_S": "2",
            "TRUCO_SWEEP_PENDING_AFTER_S": "5",
            "TRUCO_SWEEP_QUEUED_AFTER_S": "45",
            "TRUCO_LADDER_EVERY_S": "2",
            "TRUCO_LADDER_IN_FLIGHT": "6",  # the ladder beside the Swiss, not instead of it
        }
    )
    # the bots' process ends when its standard input closes: with this process, however it ends
    with house_server() as (server, secret), TinyBots(SWISS_BOTS + LADDER_BOTS) as bots:
        cluster = Cluster(env, tmp_path, asyncio.run(house_bot(database, server.url, secret)))
        proxy = None
        try:
            for k in (1, 2):
                cluster.metrics_ports[f"matches{k}"] = free_port()
                cluster.metrics_ports[f"results{k}"] = free_port()
                cluster.worker(BOT_CALLING_QUEUES, f"matches{k}")
                cluster.worker("results", f"results{k}")
            cluster.beat()
            apis = [cluster.api(f"api{k}") for k in (1, 2, 3)]
            ports = [int(a.url.rsplit(":", 1)[1]) for a in apis]
            argv, base = proxy_argv(nginx, ports, free_port(), tmp_path / "nginx")
            proxy = start(argv, {"PATH": "/usr/sbin:/usr/bin:/bin"}, tmp_path / "nginx.log")
            wait_for(lambda: answers(f"{base}/health"), 30, "nginx", tmp_path / "nginx.log")
            yield Soak(cluster, base, database, bots, tmp_path)
        finally:
            if proxy is not None:
                stop(proxy)
            cluster.stop_all()


# --- the database ---------------------------------------------------------------------------


def query(database: str, sql: str, *args: object) -> Any:
    async def read() -> Any:
        conn = await asyncpg.connect(database)
        try:
            return await conn.fetchval(sql, *args)
        finally:
            await conn.close()

    return asyncio.run(read())


def settle(database: str, what: str, sql: str, *args: object) -> None:
    deadline = time.monotonic() + SETTLE_S
    while not query(database, sql, *args):
        assert time.monotonic() < deadline, f"{what}: not within {SETTLE_S}s"
        time.sleep(1.0)


async def _database_checks(database: str) -> tuple[dict[str, int], list[str], dict[int, Any]]:
    conn = await asyncpg.connect(database)
    try:
        counts = await soak_checks.stored_once(conn)
        differs = await soak_checks.refit_differs(conn)
        rows = await conn.fetch("SELECT id, status, replay IS NOT NULL AS r FROM play_matches")
        plays = {int(r["id"]): (str(r["status"]), bool(r["r"])) for r in rows}
        return counts, differs, plays
    finally:
        await conn.close()


def stored_between(database: str, since: float) -> int:
    return int(
        query(
            database,
            "SELECT count(*) FROM match_results WHERE recorded_at >= to_timestamp($1)",
            since,
        )
    )


# --- the run --------------------------------------------------------------------------------


def test_the_cluster_survives_a_process_killed_every_20_s(soak: Soak) -> None:
    cluster, base, database = soak.cluster, soak.base, soak.database
    client = httpx.Client(base_url=base, timeout=60, trust_env=False)
    tournament, key = swiss(client, soak.bots.urls[:SWISS_BOTS])
    answers_seen = Answers()
    scraper = Scraper()
    for proc in cluster.procs:
        if proc.metrics:
            scraper.watch(proc.name, proc.process.pid, proc.metrics, proc.started)
    stop_people, stop_scraper = threading.Event(), threading.Event()
    scraping = threading.Thread(target=scraper.loop, args=(stop_scraper,), daemon=True)
    scraping.start()
    spectators = Spectators(
        base, database, tournament, answers_seen, (MATCH_SPECTATORS, TOURNAMENT_SPECTATORS)
    )
    spectators.start()
    people = [Person(base, stop_people, k, answers_seen) for k in range(PEOPLE)]
    for person in people:
        person.start()
    post(client, f"/v1/tournaments/{tournament}/start", {}, key)
    joined = ladder(client, soak.bots.urls[SWISS_BOTS:])

    chance = random.Random(os.getpid())
    kills: list[tuple[float, str]] = []
    began = time.monotonic()
    while True:
        elapsed = time.monotonic() - began
        finished = query(database, "SELECT status FROM tournaments WHERE id = $1", tournament)
        if elapsed >= CHAOS_MAX_S or (elapsed >= CHAOS_MIN_S and finished == "finished"):
            break
        time.sleep(KILL_EVERY_S)
        victim = chance.choice(cluster.procs)
        scraper.retire(victim.process.pid)
        kills.append((time.monotonic(), victim.name))
        victim.kill9()
        fresh = cluster.respawn(victim)
        if fresh.metrics:
            scraper.watch(fresh.name, fresh.process.pid, fresh.metrics, fresh.started)
        assert not [p.failure for p in people if p.failure], [p.failure for p in people]
        assert not spectators.failures, spectators.failures
    chaos_s = time.monotonic() - began
    print(f"\n[soak] {len(kills)} kills in {chaos_s:.0f} s; the Swiss {finished}", flush=True)

    # the kills stop; the ladder's bots leave; everything runs out
    stop_people.set()
    spectators.quit.set()
    leave(client, joined)
    settle(
        database,
        "the Swiss",
        "SELECT status = 'finished' FROM tournaments WHERE id = $1",
        tournament,
    )
    for person in people:
        person.join(SETTLE_S)
        assert not person.is_alive(), "a person is still playing: a session is stuck"
        assert person.failure is None, repr(person.failure)
    spectators.join(SETTLE_S)
    assert not spectators.is_alive(), "a spectator's stream did not end"
    assert not spectators.failures, spectators.failures
    settle(
        database,
        "every match over",
        "SELECT NOT EXISTS "
        "(SELECT 1 FROM matches WHERE status IN ('pending', 'queued', 'running'))",
    )
    settle(
        database,
        "every /play session over",
        "SELECT NOT EXISTS (SELECT 1 FROM play_matches WHERE status = 'playing')",
    )
    with httpx.Client(trust_env=False) as reader:
        scraper.read_all(reader)
    stop_scraper.set()
    settled_s = time.monotonic() - began
    print(f"[soak] everything ran out at {settled_s:.0f} s; checking", flush=True)
    figures, problems = _check(
        soak, tournament, people, spectators, answers_seen, scraper, kills, client
    )
    figures["chaos_s"] = round(chaos_s, 1)
    figures["settled_s"] = round(settled_s, 1)
    figures["total_s"] = round(time.monotonic() - began, 1)
    line = json.dumps({"cluster_soak": figures})
    print(f"\n{_text(figures)}\n{line}")
    (soak.tmp / "soak.jsonl").write_text(line + "\n")
    if report := os.environ.get("TRUCO_SOAK_REPORT"):
        with Path(report).open("a") as out:
            out.write(line + "\n")
    client.close()
    print("\n".join(problems))
    assert not problems, problems[:20]


def _kind(name: str) -> str:
    return name.rstrip("0123456789")


def _check(
    soak: Soak,
    tournament: int,
    people: list[Person],
    spectators: Spectators,
    seen: Answers,
    scraper: Scraper,
    kills: list[tuple[float, str]],
    client: httpx.Client,
) -> tuple[dict[str, Any], list[str]]:
    """Every check of the module docstring: (the run's figures, what went wrong)."""
    database = soak.database
    problems: list[str] = []
    counts, differs, plays = asyncio.run(_database_checks(database))  # stored once (asserts)
    problems += differs[:10]
    verified = soak_checks.verify_tournament(client, tournament)  # raises at a discrepancy
    # /play: each session ended as its person saw it, its log once and in order
    sessions = [s for p in people for s in p.sessions]
    ended: Counter[str] = Counter()
    for session in sessions:
        assert session.end is not None
        if session.items != list(range(len(session.items))):
            problems.append(f"play {session.play_id}: log items {session.items}")
        ended[session.end["status"]] += 1
        if session.end["status"] == "abandoned" and not session.end.get("cause"):
            problems.append(f"play {session.play_id} abandoned without a cause: {session.end}")
        stored = (session.end["status"], session.end["status"] == "finished")
        if plays[session.play_id] != stored:
            problems.append(f"play {session.play_id}: stored {plays[session.play_id]}")
    problems += [f"play {k}: {v}" for k, v in plays.items() if v[1] != (v[0] == "finished")]
    # the match streams: the last run from 0, once each, in order, all its decisions
    rows = asyncio.run(_matches(database, tournament))
    gaps = [f for f in spectators.followed if f.items != list(range(len(f.items)))]
    problems += [f"match {f.match_id} stream: {f.items}" for f in gaps[:5]]
    whole = [
        f
        for f in spectators.followed
        if f.items
        and f.runs == 1
        and not f.restarted
        and not f.ended_away
        and f.end
        and f.end["status"] == "done"
    ]
    lost_items = 0
    for followed in random.Random(0).sample(whole, min(40, len(whole))):
        recorded = soak_checks.replay_decisions(client, followed.match_id)
        if recorded != followed.decisions:
            lost_items += abs(recorded - followed.decisions)
            problems.append(
                f"match {followed.match_id}: {followed.decisions} decisions streamed, "
                f"{recorded} in its replay ({rows[followed.match_id]})"
            )
    for followed in spectators.followed:
        assert followed.end is not None
        if followed.end["status"] != rows[followed.match_id]["status"]:
            problems.append(f"match {followed.match_id} ended {followed.end}")
    # the tournament streams: the last state of every match is the stored one
    for watched in spectators.watched:
        if watched.end is None or watched.end.get("status") != "finished":
            problems.append(f"a tournament stream ended with {watched.end}")
        for match_id, row in rows.items():
            if row["tournament_id"] != tournament:
                continue
            state = watched.matches.get(match_id, {})
            shown = (state.get("status"), state.get("winner_side"), state.get("games_won"))
            if shown != (row["status"], row["winner_side"], row["games_won"]):
                problems.append(f"tournament stream: match {match_id} shown as {state}")
                break
    # 5xx: only nginx's 502 for a request open on an API at the moment it was killed
    api_kills = [at for at, name in kills if name.startswith("api")]
    for at, method, path, status, body in seen.errors:
        own = status == 502 and any(0 <= at - k <= AFTER_KILL_S for k in api_kills)
        if not own:
            problems.append(f"{status} for {method} {path}: {body}")
    # the metrics
    apis = [i for i in scraper.incarnations.values() if i.name.startswith("api")]
    api_5xx = sum(
        value
        for i in apis
        for (name, tags), value in i.samples.items()
        if name == "truco_http_requests_total"
        and dict(tags)["status"].startswith("5")
        and dict(tags)["route"] != "/health"
    )
    if api_5xx:
        problems.append(f"the APIs counted {api_5xx} 5xx answers")
    api_requests = sum(total(i.samples, "truco_http_requests_total") for i in apis)
    answered = sum(n for status, n in seen.statuses.items() if status != 502)
    if api_requests < answered / 2:
        problems.append(f"the APIs counted {api_requests} requests; clients got {answered}")
    trusted = [
        i for i in scraper.incarnations.values() if i.name.startswith("results") and not i.retired
    ]
    counted = sum(
        total(i.samples, "truco_matches_stored_total", kind=kind)
        for i in trusted
        for kind in ("ladder", "other")
    )
    low = stored_between(database, max(i.started for i in trusted))
    high = stored_between(database, min(i.started for i in trusted))
    if not low <= counted <= high:
        problems.append(
            f"results stored: the live trusted workers counted {counted}, not in {low}..{high}"
        )
    played = sum(
        total(i.samples, "truco_matches_played_total", end="result")
        for i in scraper.incarnations.values()
        if i.name.startswith("matches")
    )
    results = counts.get("done", 0) + counts.get("forfeit", 0)
    if played < results / 2:
        problems.append(f"the bot-calling workers counted {played} matches played for {results}")
    streamed = spectators.items + sum(len(s.items) for s in sessions)
    figures: dict[str, Any] = {
        "kills": dict(Counter(_kind(name) for _, name in kills)),
        "matches": counts,
        "swiss_matches": sum(1 for r in rows.values() if r["tournament_id"] == tournament),
        "ladder_matches": sum(1 for r in rows.values() if r["ladder_pool"] is not None),
        "results_counted_by_live_trusted_workers": [counted, low, high],
        "matches_played_counted": played,
        "api_requests_counted": api_requests,
        "verify_checks": len(verified),
        "sessions": dict(ended),
        "sse_items": streamed,
        "match_streams_followed": len(spectators.followed),
        "streams_compared_with_replays": min(40, len(whole)),
        "stream_reconnects": sum(f.reconnects for f in spectators.followed)
        + sum(w.reconnects for w in spectators.watched)
        + sum(s.reconnects for s in sessions),
        "runs_started_over": sum(f.restarted for f in spectators.followed),
        "match_streams_ended_while_away": sum(f.ended_away for f in spectators.followed),
        "answers": dict(seen.statuses),
        "transport_errors": seen.transport_errors,
        "lost": {"items": lost_items, "gaps": len(gaps), "problems": len(problems)},
    }
    return figures, problems


async def _matches(database: str, tournament: int) -> dict[int, Any]:
    """Every match's row; a tournament match's with its games won (as its stream shows it)."""
    pool = await create_pool(database, min_size=1, max_size=1)  # with the platform's codecs
    try:
        rows = await pool.fetch(
            "SELECT id, status, winner_side, tournament_id, ladder_pool, attempts FROM matches"
        )
        found = {int(r["id"]): dict(r) for r in rows}
        for match in await db_matches.tournament_matches(pool, tournament):
            found[match.id]["games_won"] = list(match.games_won)
        return found
    finally:
        await pool.close()


def _text(figures: dict[str, Any]) -> str:
    return (
        f"cluster soak: {figures['chaos_s']} s of kills ({figures['kills']}), "
        f"{figures['total_s']} s in all; matches {figures['matches']} (Swiss "
        f"{figures['swiss_matches']}, ladder {figures['ladder_matches']}); /play sessions "
        f"{figures['sessions']}; {figures['sse_items']} SSE items over "
        f"{figures['match_streams_followed']} match streams, 10 tournament streams and the "
        f"play streams, {figures['stream_reconnects']} reconnections; answers "
        f"{figures['answers']}; lost {figures['lost']}"
    )
