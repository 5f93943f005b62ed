"""Cancelling tournaments (organiser only), due tournaments without a field, and settings whose
matches could outlast the workers' cap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arena.sdk import BotServer
from services import flow
from services.base.limits import MAX_MATCH_S
from tests.services.helpers.api_play_helpers import PlayApi
from tests.services.helpers.flow_helpers import BOX

pytestmark = pytest.mark.anyio


async def test_the_organiser_cancels_a_running_tournament_and_its_open_matches(
    idle_api: PlayApi, bot_server: BotServer
) -> None:
    api = idle_api
    _, organiser = await api.account("org")
    _, stranger = await api.account("stranger")
    bots = [int(str((await api.bot(organiser, bot_server.url))["id"])) for _ in range(2)]
    tid = (await api.tournament(organiser))["id"]
    for bot in bots:
        entered = await api.client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=organiser
        )
        assert entered.status_code == 201, entered.text
    started = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    queued = started.json()["queued"]
    assert len(queued) == 1

    refused = await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=stranger)
    assert refused.status_code == 403
    assert (await api.client.post(f"/v1/tournaments/{tid}/cancel")).status_code == 401

    cancelled = await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=organiser)
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json() == {"id": tid, "status": "cancelled", "cancelled_matches": queued}
    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    assert detail["status"] == "cancelled"
    assert [m["status"] for r in detail["rounds"] for m in r["matches"]] == ["cancelled"]
    match = (await api.client.get(f"/v1/matches/{queued[0]}")).json()
    assert match["status"] == "cancelled"
    replay = await api.client.get(f"/v1/matches/{queued[0]}/replay")
    assert replay.status_code == 409
    # nothing queues a cancelled match again
    assert await flow.match_specs(api.pool, queued, secret_box=BOX) == []

    again = await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=organiser)
    assert again.status_code == 409 and again.json()["type"] == "/problems/tournament-state"
    missing = await api.client.post("/v1/tournaments/999999999/cancel", headers=organiser)
    assert missing.status_code == 404


async def test_a_registering_tournament_can_be_cancelled(idle_api: PlayApi) -> None:
    api = idle_api
    _, organiser = await api.account("org")
    tid = (await api.tournament(organiser))["id"]
    cancelled = await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=organiser)
    assert cancelled.status_code == 200
    assert cancelled.json()["cancelled_matches"] == []
    start = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    assert start.status_code == 409


async def test_due_tournaments_without_two_bots_are_cancelled_not_retried(
    idle_api: PlayApi, bot_server: BotServer
) -> None:
    api = idle_api
    _, organiser = await api.account("org")
    soon = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
    alone = (await api.tournament(organiser, start_at=soon))["id"]
    full = (await api.tournament(organiser, start_at=soon))["id"]
    bots = [int(str((await api.bot(organiser, bot_server.url))["id"])) for _ in range(2)]
    await api.client.post(
        f"/v1/tournaments/{alone}/entries", json={"bot_id": bots[0]}, headers=organiser
    )
    for bot in bots:
        await api.client.post(
            f"/v1/tournaments/{full}/entries", json={"bot_id": bot}, headers=organiser
        )
    later = datetime.now(UTC) + timedelta(minutes=1)
    due = await flow.due_tournaments(api.pool, later)
    assert full in due and alone not in due
    assert (await api.client.get(f"/v1/tournaments/{alone}")).json()["status"] == "cancelled"
    # the next tick does not see it again
    assert alone not in await flow.due_tournaments(api.pool, later)
    assert (await api.client.get(f"/v1/tournaments/{full}")).json()["status"] == "registering"


async def test_settings_longer_than_the_match_cap_are_a_422(idle_api: PlayApi) -> None:
    api = idle_api
    _, organiser = await api.account("org")
    body = {
        "name": "marathon",
        "format": "swiss",
        "mode": "2v2",
        "games_per_match": 100,
        "timeout_ms": 60_000,
    }
    response = await api.client.post("/v1/tournaments", json=body, headers=organiser)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["type"] == "/problems/match-too-long"
    assert f"{MAX_MATCH_S} s" in problem["detail"]
    assert problem["errors"][0]["field"] == "body.games_per_match"
    # the defaults fit
    fine = await api.client.post(
        "/v1/tournaments",
        json={**body, "games_per_match": 2, "timeout_ms": 1000},
        headers=organiser,
    )
    assert fine.status_code == 201, fine.text
