"""/play on the workers, its state outside any one process (issue 37): two API processes on one
database and Redis, a bot-calling worker without database credentials, a trusted worker and
beat, the house bot a real HTTP server on 127.0.0.1. A session made on one API process is
read, acted on and streamed through the other to the end, and stored once; it outlives the
API process that made it (kill -9); a stream resumes on the other process from Last-Event-ID
with no gap and no duplicate; the caps count across processes; a session whose worker is
killed -9 ends ``abandoned`` with its cause, never stuck ``playing``."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from typing import Any

import asyncpg
import httpx
import pytest

from arena.match.replay import Decision, load_replay
from arena.match.verify import verify_replay
from services.play.store import ABANDONED_WITHIN_S
from services.worker.names import BOT_CALLING_QUEUES
from tests.servers import RedisTarget, RunDatabases
from tests.services.worker.play_cluster import (
    WAIT_S,
    Cluster,
    Frame,
    Person,
    act,
    begin,
    cluster_env,
    house_bot,
    house_server,
    next_turn,
    play_moves,
    sse_frames,
    view,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def database(request: pytest.FixtureRequest, run_databases: RunDatabases) -> str:
    return run_databases.url(f"play-cluster:{request.path}")


@pytest.fixture(scope="module")
def cluster(
    database: str, redis_target: RedisTarget, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("play-cluster")
    prefix = f"{redis_target.prefix}{secrets.token_hex(3)}:"
    env = cluster_env(database, redis_target.url, prefix, tmp / "data")
    with house_server() as (server, secret):
        made = Cluster(env, tmp, asyncio.run(house_bot(database, server.url, secret)))
        try:
            made.worker(BOT_CALLING_QUEUES, "matches")
            made.worker("results", "results")
            made.beat()
            made.api("api1")
            made.api("api2")
            yield made
        finally:
            made.stop_all()


def _url(cluster: Cluster, name: str) -> str:
    return next(p.url for p in cluster.procs if p.name == name)


def _row(database: str, play_id: int) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        conn = await asyncpg.connect(database)
        try:
            row = await conn.fetchrow(
                "SELECT status, winner_side, result IS NOT NULL AS has_result, "
                "replay IS NOT NULL AS has_replay, "
                "(SELECT count(*) FROM play_matches WHERE id = $1) AS rows, "
                "(SELECT count(*) FROM matches) AS matches FROM play_matches WHERE id = $1",
                play_id,
            )
            assert row is not None
            return dict(row)
        finally:
            await conn.close()

    return asyncio.run(read())


def _stream(api: str, person: Person, last_id: str | None = None) -> httpx.Response:
    headers = {} if last_id is None else {"Last-Event-ID": last_id}
    return httpx.Client(timeout=WAIT_S, trust_env=False).send(
        httpx.Request(
            "GET",
            f"{api}/v1/play/{person.play_id}/stream",
            params={"token": person.token, "since": 0},
            headers=headers,
        ),
        stream=True,
    )


def test_a_session_made_on_one_api_is_played_through_the_other(
    cluster: Cluster, database: str
) -> None:
    api1, api2 = _url(cluster, "api1"), _url(cluster, "api2")
    person, first = begin(api1)
    assert first["status"] == "playing" and first["opponent"]["bot_id"] == cluster.house
    final = play_moves(api2, person)  # every GET and act through the other process
    assert final["status"] == "finished" and final["outcome"]["reason"] != "walkover"
    stream = _stream(api2, person)
    try:
        frames = list(sse_frames(stream))
    finally:
        stream.close()
    assert [f.event for f in frames] == ["end"]
    numbers = [item["n"] for item in frames[0].data["log"]]
    assert numbers == list(range(len(numbers))) and numbers
    replay = load_replay(httpx.get(api1 + final["replay_url"], trust_env=False).content)
    verify_replay(replay)
    assert replay.match_id == f"play-{person.play_id}"
    row = _row(database, person.play_id)
    assert row["status"] == "finished" and row["has_result"] and row["has_replay"]
    assert row["rows"] == 1 and row["matches"] == 0  # play_matches only: nothing rated
    assert row["winner_side"] == final["outcome"]["winner_side"]


def test_a_stream_resumes_on_the_other_api_with_no_gap_and_no_duplicate(cluster: Cluster) -> None:
    api1, api2 = _url(cluster, "api1"), _url(cluster, "api2")
    person, _ = begin(api1)
    received: list[int] = []
    last: Frame | None = None
    acted = 0
    stream = _stream(api1, person)
    try:
        for frame in sse_frames(stream):
            received += [item["n"] for item in frame.data["log"]]
            last = frame
            if frame.event == "end" or acted >= 3:
                break
            if frame.data["turn"] is not None:
                act(api2, person, frame.data)
                acted += 1
    finally:
        stream.close()  # the connection drops mid-game
    assert last is not None and last.id == str(last.data["version"])
    resumed = _stream(api2, person, last_id=last.id)
    try:
        for frame in sse_frames(resumed):
            assert int(frame.id) > int(last.id)  # never a view it had
            received += [item["n"] for item in frame.data["log"]]
            if frame.event == "end":
                break
            if frame.data["turn"] is not None:
                act(api2, person, frame.data)
    finally:
        resumed.close()
    assert received == list(range(len(received)))  # no gap, no duplicate
    whole = view(api1, person, since=0)
    assert whole["status"] == "finished"
    assert [item["n"] for item in whole["log"]] == received
    wrong = httpx.get(
        f"{api2}/v1/play/{person.play_id}/stream",
        params={"token": person.token},
        headers={"Last-Event-ID": "999999"},
        trust_env=False,
    )
    assert wrong.status_code == 400 and wrong.json()["type"].endswith("/bad-last-event-id")


def test_a_session_outlives_the_api_process_that_made_it(cluster: Cluster, database: str) -> None:
    doomed = cluster.api("api-doomed")
    api2 = _url(cluster, "api2")
    person, _ = begin(doomed.url)
    playing = play_moves(doomed.url, person, moves=2)
    assert playing["status"] == "playing"
    doomed.kill9()
    final = play_moves(api2, person)
    assert final["status"] == "finished"
    assert _row(database, person.play_id)["status"] == "finished"


def test_the_clock_and_the_bank_run_on_the_worker(cluster: Cluster, database: str) -> None:
    """A person who never answers: each decision times out after its clock (1 s), the game's
    bank (2 s) is spent, every later decision is a timeout at once, and the fault limit
    forfeits; the API that made it set the clock, another serves the end."""
    quick = cluster.api("api-quick", env={"TRUCO_PLAY_CLOCK_S": "1", "TRUCO_PLAY_BANK_S": "2"})
    person, _ = begin(quick.url)
    turn = next_turn(_url(cluster, "api2"), person)
    assert turn["turn"]["clock_ms"] == 1000 and turn["turn"]["bank_left_ms"] <= 2000
    final = turn
    deadline = time.monotonic() + WAIT_S
    while final["status"] == "playing":
        assert time.monotonic() < deadline, f"not forfeited within {WAIT_S}s"
        final = view(_url(cluster, "api2"), person, after=final["version"])
    assert final["status"] == "finished" and final["outcome"]["person_won"] is False
    replay = load_replay(httpx.get(_url(cluster, "api1") + final["replay_url"]).content)
    faults = [
        e.fault
        for g in replay.games
        for e in g.events
        if isinstance(e, Decision) and e.fault is not None
    ]
    assert faults and set(faults) == {"timeout"} and replay.games[-1].forfeit == 0
    assert _row(database, person.play_id)["status"] == "finished"


def test_the_caps_count_across_api_processes(cluster: Cluster) -> None:
    """TRUCO_PLAY_PER_ADDRESS (2): every test client is 127.0.0.1, on either process."""
    api1, api2 = _url(cluster, "api1"), _url(cluster, "api2")
    one, _ = begin(api1)
    two, _ = begin(api2)
    for api in (api1, api2):
        refused = httpx.post(f"{api}/v1/play", json={}, trust_env=False)
        assert refused.status_code == 429, refused.text
        assert refused.json()["type"].endswith("/too-many-play-sessions")
    left = httpx.post(f"{api2}/v1/play/{one.play_id}/leave", headers=one.headers, trust_env=False)
    assert left.status_code == 200 and left.json()["status"] == "finished"  # a forfeit
    three, _ = begin(api1)  # its place was given back, seen by the other process
    for person in (two, three):
        gone = httpx.post(
            f"{api1}/v1/play/{person.play_id}/leave", headers=person.headers, trust_env=False
        )
        assert gone.status_code == 200 and gone.json()["status"] != "playing"


def test_a_session_whose_worker_is_killed_ends_abandoned_with_its_cause(
    cluster: Cluster, database: str
) -> None:
    api1, api2 = _url(cluster, "api1"), _url(cluster, "api2")
    person, _ = begin(api1)
    current = next_turn(api1, person)  # the worker has begun it: a decision is owed
    assert current["status"] == "playing" and current["turn"] is not None
    worker = next(p for p in cluster.procs if p.name == "matches")
    worker.kill9()
    cluster.procs.remove(worker)
    killed = time.monotonic()
    deadline = killed + WAIT_S
    while current["status"] == "playing":
        assert time.monotonic() < deadline, f"still playing {WAIT_S}s after its worker died"
        current = view(api2, person, after=current["version"])
    took = time.monotonic() - killed
    assert current["status"] == "abandoned" and current["turn"] is None
    assert "the worker playing this session stopped" in (current["cause"] or "")
    assert _row(database, person.play_id)["status"] == "abandoned"
    print(f"abandoned {took:.1f}s after its worker was killed (stated: {ABANDONED_WITHIN_S:g}s)")
    # its places are given back; a new worker plays the next sessions
    cluster.worker(BOT_CALLING_QUEUES, "matches")
    again, _ = begin(api2)
    assert play_moves(api1, again)["status"] == "finished"
