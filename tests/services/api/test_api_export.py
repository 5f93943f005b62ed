"""Committed seeds over the API: the commitment from creation, the master seed only once the
event is over, match seeds derived from it; the export document and the TRF file."""

from __future__ import annotations

import gzip

import msgspec
import pytest

from arena.sdk import BotServer
from services.domain import seeds
from services.tournaments.files.export_document import decode_export
from tests.services.helpers.api_play_helpers import (
    PlayApi,
)
from truco_cli.verify_event import verify_export

pytestmark = pytest.mark.anyio
PROBLEM = "application/problem+json"


async def _entered(api: PlayApi, servers: list[BotServer], **fields: object) -> tuple[int, dict]:
    """A registering tournament with the servers' bots entered: (id, organiser headers)."""
    _, organiser = await api.account("org")
    bots = await api.bots(organiser, servers)
    created = await api.tournament(organiser, games_per_match=2, timeout_ms=2000, **fields)
    tid = int(str(created["id"]))
    for bot in bots:
        entered = await api.client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=organiser
        )
        assert entered.status_code == 201, entered.text
    return tid, organiser


async def _seeds(api: PlayApi, tid: int, headers: dict[str, str] | None = None) -> tuple:
    detail = (await api.client.get(f"/v1/tournaments/{tid}", headers=headers)).json()
    listed = (await api.client.get("/v1/tournaments", params={"limit": 100})).json()["items"]
    summary = next(t for t in listed if t["id"] == tid)
    assert (summary["seed_commitment"], summary["master_seed"]) == (
        detail["seed_commitment"],
        detail["master_seed"],
    )
    return detail["seed_commitment"], detail["master_seed"], detail


async def test_the_master_seed_is_committed_at_creation_and_revealed_when_finished(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    tid, organiser = await _entered(api, bot_servers)
    commitment, master, _ = await _seeds(api, tid)
    assert len(commitment) == 64 and int(commitment, 16) >= 0
    assert master is None
    owner_view = await _seeds(api, tid, organiser)  # the organiser sees no more than anyone
    assert owner_view[:2] == (commitment, None)
    export = decode_export((await api.client.get(f"/v1/tournaments/{tid}/export")).content)
    assert export.seeds.commitment == commitment and export.seeds.master_seed is None
    page = (await api.client.get(f"/tournaments/{tid}")).text
    assert 'title="SHA-256 of the secret master seed' in page and commitment in page
    assert f'href="/v1/tournaments/{tid}/export"' in page
    assert f'href="/v1/tournaments/{tid}/trf"' not in page  # no round played yet

    started = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    assert started.status_code == 202, started.text
    commitment_after, revealed, detail = await _seeds(api, tid)
    assert detail["status"] == "finished" and commitment_after == commitment
    assert revealed is not None and seeds.commitment(bytes.fromhex(revealed)) == commitment
    page = (await api.client.get(f"/tournaments/{tid}")).text
    assert commitment in page and f'href="/v1/tournaments/{tid}/trf"' in page
    master_bytes = bytes.fromhex(revealed)
    for round_ in detail["rounds"]:
        for board, listed in enumerate(round_["matches"]):
            match = (await api.client.get(f"/v1/matches/{listed['id']}")).json()
            assert match["seed_scheme"] == "derived-v1" and match["master_seed"] is None
            assert match["seed"] == seeds.tournament_match_seed(
                master_bytes, tid, round_["number"], board, None
            )


async def test_a_running_tournament_hides_its_master_seed_and_open_seeds(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    tid, organiser = await _entered(api, bot_servers)
    assert (await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)).is_success
    for headers in (None, organiser):
        commitment, master, detail = await _seeds(api, tid, headers)
        assert detail["status"] == "running" and master is None and commitment
    export = decode_export((await api.client.get(f"/v1/tournaments/{tid}/export")).content)
    assert export.seeds.master_seed is None and export.tournament.status == "running"
    assert export.matches and all(m.seed is None and m.replay is None for m in export.matches)
    assert all(m.status == "pending" for m in export.matches)

    cancelled = await api.client.post(f"/v1/tournaments/{tid}/cancel", headers=organiser)
    assert cancelled.status_code == 200, cancelled.text
    commitment_after, master, _ = await _seeds(api, tid)
    assert master is not None and seeds.commitment(bytes.fromhex(master)) == commitment_after


async def test_the_export_of_a_finished_swiss_verifies_and_can_be_gzipped(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    tid, organiser = await _entered(api, bot_servers)
    assert (await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)).is_success
    plain = await api.client.get(
        f"/v1/tournaments/{tid}/export", headers={"accept-encoding": "identity"}
    )
    assert plain.status_code == 200 and plain.headers["content-type"] == "application/json"
    assert "content-encoding" not in plain.headers
    doc = decode_export(plain.content)
    assert doc.tournament.status == "finished" and len(doc.entries) == 4
    assert [m.round for m in doc.matches] == [1, 1, 2, 2, 3, 3]
    assert all(m.replay is not None and len(m.rating_changes) == 2 for m in doc.matches)
    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    assert [s.bot_id for s in doc.standings] == [s["bot_id"] for s in detail["standings"]]
    lines: list[str] = []
    outcome = verify_export(doc, say=lines.append)
    assert outcome.complete, lines
    assert [line.split()[1] for line in lines] == [
        "seed", "match", "replays:", "results:", "standings:", "Elo:",
    ]  # fmt: skip

    # the same document, gzip-compressed on the wire when asked for
    raw = await api.client.send(
        api.client.build_request(
            "GET", f"/v1/tournaments/{tid}/export", headers={"accept-encoding": "gzip"}
        ),
        stream=True,
    )
    packed = b"".join([chunk async for chunk in raw.aiter_raw()])
    await raw.aclose()
    assert raw.headers["content-encoding"] == "gzip" and len(packed) < len(plain.content) / 4
    unpacked = msgspec.json.decode(gzip.decompress(packed))
    expected = msgspec.json.decode(plain.content)
    unpacked.pop("exported_at"), expected.pop("exported_at")
    assert unpacked == expected


async def test_the_trf_file_of_a_swiss_and_where_there_is_none(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    tid, organiser = await _entered(api, bot_servers)
    early = await api.client.get(f"/v1/tournaments/{tid}/trf")
    assert early.status_code == 409 and early.headers["content-type"] == PROBLEM
    assert (await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)).is_success
    response = await api.client.get(f"/v1/tournaments/{tid}/trf")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    lines = response.text.splitlines()
    assert lines[:5][1:] == ["062 4", "092 Individual: Swiss-System", "XXR 3", "XXC white1"]
    players = [line for line in lines if line.startswith("001")]
    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    places = {s["name"]: s["rank"] for s in detail["standings"]}
    assert len(players) == 4
    for line in players:
        name = line[14:47].rstrip()
        assert int(line[85:89]) == places[name]  # the standings' rank, columns 86-89
        assert line[48:52] == "    "  # no rating: the starting rank is the seed
        assert len(line) == 91 + 3 * 10 - 2  # three rounds of results

    other, _ = await _entered(api, bot_servers, format="round_robin")
    none = await api.client.get(f"/v1/tournaments/{other}/trf")
    assert none.status_code == 404 and "not a Swiss" in none.json()["detail"]
    missing = await api.client.get("/v1/tournaments/999999999/trf")
    assert missing.status_code == 404 and missing.json()["type"].endswith("tournament-not-found")
    gone = await api.client.get("/v1/tournaments/999999999/export")
    assert gone.status_code == 404 and gone.headers["content-type"] == PROBLEM


async def test_a_challenge_commits_to_its_own_seed(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    _, owner = await api.account("owner")
    a, b = await api.bots(owner, bot_servers[:2])
    created = await api.client.post(
        "/v1/challenges", json={"bot_a": a, "bot_b": b, "games_per_match": 2}, headers=owner
    )
    assert created.status_code == 202, created.text
    body = created.json()
    match = (await api.client.get(f"/v1/matches/{body['match_id']}")).json()
    assert match["status"] == "done" and match["seed_scheme"] == "derived-v1"
    assert match["seed_commitment"] == body["seed_commitment"]
    master = bytes.fromhex(match["master_seed"])
    assert seeds.commitment(master) == body["seed_commitment"]
    assert match["seed"] == seeds.challenge_seed(master, a, b)


async def test_a_pending_challenge_shows_its_commitment_and_not_its_seed(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    _, owner = await api.account("owner")
    a, b = await api.bots(owner, bot_servers[:2])
    created = await api.client.post("/v1/challenges", json={"bot_a": a, "bot_b": b}, headers=owner)
    assert created.status_code == 202, created.text
    for headers in (None, owner):
        match = (
            await api.client.get(f"/v1/matches/{created.json()['match_id']}", headers=headers)
        ).json()
        assert match["status"] == "pending" and match["seed"] is None
        assert match["master_seed"] is None
        assert match["seed_commitment"] == created.json()["seed_commitment"]
