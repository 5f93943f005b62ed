"""Tournaments over the API: a whole Swiss between real bots on loopback, entries, start,
matches, replays, leaderboards, and who may do what."""

from __future__ import annotations

import msgspec
import pytest

from arena.match.replay import Replay
from arena.match.verify import verify_replay
from arena.sdk import BotServer
from tests.services.helpers.api_play_helpers import PlayApi

pytestmark = pytest.mark.anyio
PROBLEM = "application/problem+json"


async def _leaderboard(api: PlayApi, bots: list[int]) -> dict[int, dict[str, object]]:
    found: dict[int, dict[str, object]] = {}
    cursor = None
    while True:
        params: dict[str, str | int] = {"limit": 100}
        if cursor is not None:
            params["cursor"] = cursor
        response = await api.client.get("/v1/leaderboards/1v1", params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        found.update({e["bot_id"]: e for e in body["entries"] if e["bot_id"] in bots})
        cursor = body["next_cursor"]
        if cursor is None:
            return found


async def test_a_swiss_between_real_bots_runs_to_the_end(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    _, organiser = await api.account("org")
    _, owner = await api.account("owner")
    bots = await api.bots(owner, bot_servers)
    before = await _leaderboard(api, bots)
    assert before == {}  # new bots have no rated match yet

    created = await api.tournament(organiser, games_per_match=2, timeout_ms=2000)
    assert created["status"] == "registering" and created["rounds"] == []
    tid = created["id"]
    for bot in bots:
        entered = await api.client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=owner
        )
        assert entered.status_code == 201, entered.text
        assert entered.json()["bot_id"] == bot and entered.json()["seed"] is None

    started = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    assert started.status_code == 202, started.text
    assert started.json()["status"] == "running" and len(started.json()["queued"]) == 2

    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    assert detail["status"] == "finished" and detail["finished_at"] is not None
    assert [r["number"] for r in detail["rounds"]] == [1, 2, 3]
    assert all(r["status"] == "done" and len(r["matches"]) == 2 for r in detail["rounds"])
    matches = [m for r in detail["rounds"] for m in r["matches"]]
    assert all(m["status"] == "done" for m in matches)
    assert {frozenset(e["bot_id"] for e in m["entrants"]) for m in matches}.__len__() == 6
    standings = detail["standings"]
    assert [s["rank"] for s in standings] == [1, 2, 3, 4]
    assert sorted(s["bot_id"] for s in standings) == sorted(bots)
    assert sum(s["points"] for s in standings) == 6
    assert {"buchholz", "sonneborn_berger", "tantos_difference"} <= set(standings[0])
    assert detail["bracket"] is None and detail["settings"]["rounds"] == 3

    # the leaderboard changed: every bot has 3 rated matches, highest rating first
    after = await _leaderboard(api, bots)
    assert set(after) == set(bots)
    assert all(e["matches"] == 3 and e["provisional"] is True for e in after.values())
    ratings = [e["rating"] for e in sorted(after.values(), key=lambda e: e["rank"])]
    assert ratings == sorted(ratings, reverse=True) and sum(ratings) == 4 * 1500
    profile = (await api.client.get(f"/v1/bots/{bots[0]}")).json()
    assert profile["rating"]["1v1"] == after[bots[0]]["rating"]

    # a match, its replay (verifiable, as played) and a bot's history
    first = matches[0]
    match = (await api.client.get(f"/v1/matches/{first['id']}")).json()
    assert match["status"] == "done" and len(match["games"]) == 2
    assert match["seed"] is not None and match["tournament_id"] == tid
    assert match["winner"] == first["winner"]
    for game in match["games"]:
        assert max(game["score"]) >= 15 and game["winner"] in [
            e["bot_id"] for e in match["entrants"]
        ]
    replay_response = await api.client.get(f"/v1/matches/{first['id']}/replay")
    assert replay_response.status_code == 200
    replay = msgspec.json.decode(replay_response.content, type=Replay)
    verify_replay(replay)
    assert replay.seed == match["seed"] and replay.match_id == str(first["id"])
    assert [e.name for e in replay.entrants] == [e["name"] for e in match["entrants"]]

    history = await api.client.get(f"/v1/bots/{bots[1]}/matches", params={"limit": 2})
    page = history.json()
    assert history.status_code == 200 and len(page["items"]) == 2
    assert page["next_cursor"] is not None
    rest = (
        await api.client.get(
            f"/v1/bots/{bots[1]}/matches", params={"limit": 2, "cursor": page["next_cursor"]}
        )
    ).json()
    assert len(rest["items"]) == 1 and rest["next_cursor"] is None
    seen = [m["id"] for m in page["items"] + rest["items"]]
    assert seen == sorted(seen, reverse=True) and len(set(seen)) == 3


async def test_single_elimination_shows_the_bracket(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    _, owner = await api.account()
    bots = await api.bots(owner, bot_servers[:3])
    created = await api.tournament(owner, format="single_elimination", games_per_match=1)
    tid = created["id"]
    for bot in bots:
        await api.client.post(f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=owner)
    assert (await api.client.post(f"/v1/tournaments/{tid}/start", headers=owner)).status_code == 202
    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    assert detail["status"] == "finished"
    bracket = detail["bracket"]
    assert bracket["kind"] == "single" and bracket["champion"] == detail["standings"][0]["bot_id"]
    codes = {m["code"]: m for m in bracket["matches"]}
    assert set(codes) == {"W1-1", "W1-2", "W2-1"}
    assert codes["W1-1"]["void"] and codes["W1-1"]["b"] == {"bye": True}  # seed 1's bye
    assert codes["W2-1"]["match_id"] is not None
    assert codes["W2-1"]["winner"] == bracket["champion"]


async def test_entries_and_start_refusals(idle_api: PlayApi, bot_server: BotServer) -> None:
    api = idle_api
    _, organiser = await api.account("org")
    _, owner = await api.account("owner")
    bot = int(str((await api.bot(owner, bot_server.url))["id"]))
    tid = (await api.tournament(organiser))["id"]
    path = f"/v1/tournaments/{tid}"

    # not enough entrants yet
    alone = await api.client.post(f"{path}/start", headers=organiser)
    assert alone.status_code == 409 and alone.headers["content-type"] == PROBLEM
    assert alone.json()["type"] == "/problems/not-enough-entrants"

    assert (
        await api.client.post(f"{path}/entries", json={"bot_id": bot}, headers=owner)
    ).status_code == 201
    again = await api.client.post(f"{path}/entries", json={"bot_id": bot}, headers=owner)
    assert again.status_code == 409 and again.json()["type"] == "/problems/already-entered"
    missing = await api.client.post(f"{path}/entries", json={"bot_id": 10**15}, headers=owner)
    assert missing.status_code == 404
    nowhere = await api.client.post(
        "/v1/tournaments/999999999/entries", json={"bot_id": bot}, headers=owner
    )
    assert nowhere.status_code == 404

    second = int(str((await api.bot(owner, bot_server.url))["id"]))
    await api.pool.execute("UPDATE bots SET status = 'unavailable' WHERE id = $1", second)
    unavailable = await api.client.post(f"{path}/entries", json={"bot_id": second}, headers=owner)
    assert (
        unavailable.status_code == 409 and unavailable.json()["type"] == "/problems/bot-unavailable"
    )
    await api.pool.execute("UPDATE bots SET status = 'active' WHERE id = $1", second)
    assert (
        await api.client.post(f"{path}/entries", json={"bot_id": second}, headers=owner)
    ).status_code == 201

    entries = (await api.client.get(f"{path}/entries", params={"limit": 1})).json()
    assert [e["bot_id"] for e in entries["items"]] == [min(bot, second)]
    assert entries["next_cursor"] == min(bot, second)

    started = await api.client.post(f"{path}/start", headers=organiser)
    assert started.status_code == 202 and len(started.json()["queued"]) == 1
    twice = await api.client.post(f"{path}/start", headers=organiser)
    assert twice.status_code == 409 and twice.json()["type"] == "/problems/tournament-state"
    late = await api.client.post(f"{path}/entries", json={"bot_id": bot}, headers=owner)
    assert late.status_code == 409

    # the match is pending (nothing ran it): no seed shown, no replay yet
    (match_id,) = started.json()["queued"]
    match = (await api.client.get(f"/v1/matches/{match_id}")).json()
    assert match["status"] == "pending" and match["seed"] is None and match["games"] == []
    replay = await api.client.get(f"/v1/matches/{match_id}/replay")
    # a pending match's replay is the live spectator document, empty so far
    assert replay.status_code == 200, replay.text
    live = replay.json()
    assert live["live"] is True and live["status"] == "pending" and live["games"] == []
    assert "seed" not in live

    # deleting a bot forfeits its match; with nobody left to pair, the Swiss ends
    assert (await api.client.delete(f"/v1/bots/{bot}", headers=owner)).status_code == 204
    forfeited = (await api.client.get(f"/v1/matches/{match_id}")).json()
    assert forfeited["status"] == "forfeit" and forfeited["winner"] == second
    assert forfeited["reason"] == "withdrawn"
    assert (await api.client.get(f"/v1/matches/{match_id}/replay")).status_code == 404
    detail = (await api.client.get(path)).json()
    assert detail["status"] == "finished"
    assert [s["withdrawn"] for s in detail["standings"]] == [False, True]

    listed = (
        await api.client.get("/v1/tournaments", params={"status": "finished", "limit": 100})
    ).json()
    assert tid in [t["id"] for t in listed["items"]]
    assert all(t["status"] == "finished" for t in listed["items"])
    bad_status = await api.client.get("/v1/tournaments", params={"status": "bogus"})
    assert bad_status.status_code == 400


async def test_rules_are_validated_naming_the_key(idle_api: PlayApi) -> None:
    api = idle_api
    _, key = await api.account()
    cases = [
        ({"rules": {"points_to_win": 20}}, "body.rules.points_to_win"),
        ({"rules": {"colour": "red"}}, "body.rules.colour"),
        ({"rules": {"players": 2}, "mode": "2v2"}, "body.rules.players"),
    ]
    for fields, field in cases:
        body = {"name": "cup", "format": "swiss", "mode": "1v1", **fields}
        response = await api.client.post("/v1/tournaments", json=body, headers=key)
        assert response.status_code == 422, response.text
        assert response.headers["content-type"] == PROBLEM
        assert [e["field"] for e in response.json()["errors"]] == [field]
    bad_format = await api.client.post(
        "/v1/tournaments", json={"name": "cup", "format": "ladder", "mode": "1v1"}, headers=key
    )
    assert bad_format.status_code == 422
    duo = await api.tournament(key, mode="2v2", rules={"flor": False})
    assert duo["settings"]["rules"]["players"] == 4 and duo["settings"]["rules"]["flor"] is False


async def test_challenges_queue_an_unrated_match(idle_api: PlayApi, bot_server: BotServer) -> None:
    api = idle_api
    _, mine = await api.account()
    _, theirs = await api.account()
    a = int(str((await api.bot(mine, bot_server.url))["id"]))
    b = int(str((await api.bot(theirs, bot_server.url))["id"]))
    response = await api.client.post(
        "/v1/challenges",
        json={"bot_a": a, "bot_b": b, "rules": {"points_to_win": 15}},
        headers=mine,
    )
    assert response.status_code == 202, response.text
    match = (await api.client.get(f"/v1/matches/{response.json()['match_id']}")).json()
    assert match["rated"] is False and match["tournament_id"] is None
    assert [e["bot_id"] for e in match["entrants"]] == [a, b]
    assert match["rules"]["points_to_win"] == 15
    self_play = await api.client.post("/v1/challenges", json={"bot_a": a, "bot_b": a}, headers=mine)
    assert self_play.status_code == 409
    unknown = await api.client.post(
        "/v1/challenges", json={"bot_a": a, "bot_b": 10**15}, headers=mine
    )
    assert unknown.status_code == 404
    bad_rules = await api.client.post(
        "/v1/challenges", json={"bot_a": a, "bot_b": b, "rules": {"flor": "yes"}}, headers=mine
    )
    assert bad_rules.status_code == 422
    assert bad_rules.json()["errors"][0]["field"] == "body.rules.flor"


async def test_every_write_needs_a_key_and_the_right_owner(
    idle_api: PlayApi, bot_server: BotServer
) -> None:
    api = idle_api
    _, organiser = await api.account("org")
    _, owner = await api.account("owner")
    _, stranger = await api.account("stranger")
    bot = int(str((await api.bot(owner, bot_server.url))["id"]))
    other = int(str((await api.bot(stranger, bot_server.url))["id"]))
    tid = (await api.tournament(organiser))["id"]
    bad_key = {"Authorization": "Bearer ta_not-a-real-key"}
    writes: list[tuple[str, dict[str, object] | None, dict[str, str] | None]] = [
        ("/v1/tournaments", {"name": "x", "format": "swiss", "mode": "1v1"}, None),
        (f"/v1/tournaments/{tid}/entries", {"bot_id": bot}, stranger),
        (f"/v1/tournaments/{tid}/start", None, owner),
        ("/v1/challenges", {"bot_a": bot, "bot_b": other}, stranger),
    ]
    for path, body, wrong_owner in writes:
        for headers in ({}, bad_key, {"Authorization": "Basic abc"}):
            response = await api.client.post(path, json=body, headers=headers)
            assert response.status_code == 401, (path, headers, response.text)
            assert response.headers["content-type"] == PROBLEM
            assert response.headers["www-authenticate"].startswith("Bearer")
        if wrong_owner is not None:
            response = await api.client.post(path, json=body, headers=wrong_owner)
            assert response.status_code == 403, (path, response.text)
            assert response.json()["type"] == "/problems/forbidden"
    # nothing was changed by the refused calls
    assert (await api.client.get(f"/v1/tournaments/{tid}/entries")).json()["items"] == []
    assert (await api.client.get(f"/v1/tournaments/{tid}")).json()["status"] == "registering"


async def test_reads_of_missing_things_are_404_problems(idle_api: PlayApi) -> None:
    for path in (
        "/v1/tournaments/987654321",
        "/v1/matches/987654321",
        "/v1/matches/987654321/replay",
        "/v1/bots/987654321/matches",
    ):
        response = await idle_api.client.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"] == PROBLEM
    bad_mode = await idle_api.client.get("/v1/leaderboards/3v3")
    assert bad_mode.status_code == 400
    assert (await idle_api.client.get("/v1/leaderboards/2v2")).json()["mode"] == "2v2"
