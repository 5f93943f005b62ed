"""Matches decided while a worker may still play them (issue 21, item 6; migration 0022): a
cancelled tournament's or SPRT test's sent matches, a withdrawn bot's. Until the worker has
stopped, nothing that derives their cards is served (match seed, challenge or pair master
seed, tournament master seed, export); the worker's word, a late result or the sweeper's
deadline stops them. The real worker and API processes: tests/services/worker/matches/test_match_stops.py."""

from __future__ import annotations

from typing import Any

import pytest

from arena.match.runner import run_match
from arena.sdk import BotServer
from services import flow
from services.db import matches as db_matches
from services.domain.match_order import MatchOrder
from tests.services.helpers.api_play_helpers import PlayApi
from tests.services.helpers.flow_helpers import BOX, over_http

pytestmark = pytest.mark.anyio


async def _stopping(api: PlayApi, match_id: int) -> bool:
    found = await api.pool.fetchval(
        "SELECT stopping_since IS NOT NULL FROM matches WHERE id = $1", match_id
    )
    return bool(found)


async def _seeds(api: PlayApi, tid: int, match_id: int) -> dict[str, Any]:
    tournament = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    match = (await api.client.get(f"/v1/matches/{match_id}")).json()
    export = (await api.client.get(f"/v1/tournaments/{tid}/export")).json()
    (exported,) = [m for m in export["matches"] if m["id"] == match_id]
    return {
        "master": tournament["master_seed"],
        "seed": match["seed"],
        "export master": export["seeds"]["master_seed"],
        "export seed": exported["seed"],
    }


async def _running_cup(api: PlayApi, servers: list[BotServer]) -> tuple[dict[str, str], int, int]:
    """A started two-bot Swiss whose one match was sent to a worker (queued)."""
    _, organiser = await api.account("org")
    bots = await api.bots(organiser, servers[:2])
    tid = int(str((await api.tournament(organiser))["id"]))
    for bot in bots:
        entered = await api.client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=organiser
        )
        assert entered.status_code == 201, entered.text
    started = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    (match_id,) = started.json()["queued"]
    assert await flow.match_specs(api.pool, [match_id], secret_box=BOX)  # as the sender
    return organiser, tid, match_id


async def test_a_cancelled_tournament_hides_its_seeds_until_its_sent_match_stopped(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    organiser, tid, match_id = await _running_cup(api, bot_servers)
    cancelled = await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=organiser)
    assert cancelled.status_code == 200 and cancelled.json()["cancelled_matches"] == [match_id]
    assert await _stopping(api, match_id)
    assert set((await _seeds(api, tid, match_id)).values()) == {None}
    # the worker says it stopped: now everything is shown
    assert await flow.match_stopped(api.pool, match_id)
    assert not await flow.match_stopped(api.pool, match_id)  # idempotent
    shown = await _seeds(api, tid, match_id)
    assert shown["master"] is not None and shown["export master"] == shown["master"]
    assert shown["export seed"] is not None
    assert shown["seed"] is None  # GET /v1/matches shows a seed once finished (as before)


async def test_a_pending_match_cancelled_never_waits(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    _, organiser = await api.account("org")
    bots = await api.bots(organiser, bot_servers[:2])
    tid = int(str((await api.tournament(organiser))["id"]))
    for bot in bots:
        await api.client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=organiser
        )
    (match_id,) = (await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)).json()[
        "queued"
    ]  # never sent: the idle sender keeps it pending
    await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=organiser)
    assert not await _stopping(api, match_id)
    assert (await _seeds(api, tid, match_id))["master"] is not None


async def test_a_late_result_of_a_cancelled_match_stops_it(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    organiser, tid, match_id = await _running_cup(api, bot_servers)
    (spec,) = await _specs_anyway(api, match_id)  # what the worker had been given
    await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=organiser)
    replay = await run_match(
        str(match_id), spec.seed, spec.settings, [over_http(e, 1) for e in spec.entrants]
    )
    assert not (await flow.record_result(api.pool, match_id, replay)).stored
    assert not await _stopping(api, match_id)
    assert (await _seeds(api, tid, match_id))["master"] is not None


async def _specs_anyway(api: PlayApi, match_id: int) -> list[MatchOrder]:
    async with api.pool.acquire() as conn:
        await conn.execute("UPDATE matches SET status = 'pending' WHERE id = $1", match_id)
    return await flow.match_specs(api.pool, [match_id], secret_box=BOX)


async def test_a_withdrawn_bots_sent_match_hides_its_seed_until_stopped(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    organiser, tid, match_id = await _running_cup(api, bot_servers)
    (match,) = await db_matches.get_matches(api.pool, [match_id])
    deleted = await api.client.delete(f"/v1/bots/{match.bot1}", headers=organiser)
    assert deleted.status_code == 204, deleted.text
    row = (await api.client.get(f"/v1/matches/{match_id}")).json()
    assert row["status"] == "forfeit" and row["seed"] is None
    assert await _stopping(api, match_id)
    assert set((await _seeds(api, tid, match_id)).values()) == {None}
    await flow.match_stopped(api.pool, match_id)
    shown = await _seeds(api, tid, match_id)
    assert shown["seed"] is not None and shown["export seed"] == shown["seed"]
    assert shown["master"] is not None  # the event finished: one bot left


async def test_a_cancelled_sprt_pair_hides_its_master_seed_until_stopped(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    _, me = await api.account("me")
    a, b = await api.bots(me, bot_servers[:2])
    created = await api.client.post(
        "/v1/tests", json={"bot_a": a, "bot_b": b, "concurrency": 2}, headers=me
    )
    test_id = created.json()["test_id"]
    pairs = [
        int(r["id"])
        for r in await api.pool.fetch(
            "SELECT id FROM matches WHERE sprt_test_id = $1 ORDER BY id", test_id
        )
    ]
    await flow.match_specs(api.pool, pairs[:1], secret_box=BOX)  # the first one was sent
    cancelled = await api.client.post(f"/v1/tests/{test_id}/cancel", headers=me)
    assert cancelled.status_code == 200, cancelled.text
    sent, unsent = [(await api.client.get(f"/v1/matches/{m}")).json() for m in pairs]
    assert sent["status"] == unsent["status"] == "cancelled"
    assert sent["master_seed"] is None and unsent["master_seed"] is not None
    await flow.match_stopped(api.pool, pairs[0])
    assert (await api.client.get(f"/v1/matches/{pairs[0]}")).json()["master_seed"] is not None


async def test_the_sweeper_flags_stopping_matches_and_stops_them_after_the_longest_match(
    idle_api: PlayApi, bot_servers: list[BotServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.base.config import SweepSettings
    from services.worker.results import sweep

    api = idle_api
    organiser, tid, match_id = await _running_cup(api, bot_servers)
    await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=organiser)
    flagged: list[list[int]] = []
    monkeypatch.setattr(sweep, "stop_matches", lambda ids: flagged.append(list(ids)))

    report = sweep.SweepReport()
    await sweep.sweep_stopping(api.pool, SweepSettings(), report)
    assert match_id in report.flagged and match_id not in report.stopped
    assert any(match_id in ids for ids in flagged) and await _stopping(api, match_id)
    # decided longer ago than the longest match can run: no worker can still be playing it
    await api.pool.execute(
        "UPDATE matches SET stopping_since = now() - interval '2 hours' WHERE id = $1", match_id
    )
    report = sweep.SweepReport()
    await sweep.sweep_stopping(api.pool, SweepSettings(), report)
    assert match_id in report.stopped and not await _stopping(api, match_id)
    assert (await _seeds(api, tid, match_id))["master"] is not None


async def test_a_result_that_ends_an_sprt_test_stops_its_pairs_in_play(
    idle_api: PlayApi, bot_servers: list[BotServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A walkover ends the test as failed: the other pair, being played, is cancelled, hidden
    and its worker asked to stop by the trusted worker that stored the result."""
    from arena.client.bot_client import Fault
    from arena.client.connection import InProcessBot, random_decider
    from arena.match.replay import EntrantRecord
    from services.worker.results import store

    class Unreachable(InProcessBot):
        async def open(self) -> Fault | None:
            return Fault("connect", "connection refused", 1.0)

    api = idle_api
    _, me = await api.account("me")
    a, b = await api.bots(me, bot_servers[:2])
    created = await api.client.post(
        "/v1/tests", json={"bot_a": a, "bot_b": b, "concurrency": 2}, headers=me
    )
    test_id = created.json()["test_id"]
    first, second = await flow.match_specs(
        api.pool,
        [
            int(r["id"])
            for r in await api.pool.fetch(
                "SELECT id FROM matches WHERE sprt_test_id = $1 ORDER BY id", test_id
            )
        ],
        secret_box=BOX,
    )
    flagged: list[list[int]] = []
    monkeypatch.setattr(store, "stop_matches", lambda ids: flagged.append(list(ids)))
    entrants = [
        (EntrantRecord("up", "bot:a"), InProcessBot("up", random_decider(1))),
        (EntrantRecord("down", "bot:b"), Unreachable("down", random_decider(2))),
    ]
    replay = await run_match(str(first.match_id), first.seed, first.settings, entrants)
    assert replay.result.reason == "walkover"
    assert await store.store(api.pool, first.match_id, replay) == []
    assert (await api.client.get(f"/v1/tests/{test_id}")).json()["status"] == "failed"
    assert flagged == [[second.match_id]] and await _stopping(api, second.match_id)
    assert (await api.client.get(f"/v1/matches/{second.match_id}")).json()["master_seed"] is None
