"""``deals`` over the API: independent by default; mirrored only between bots of one owner
(challenges) or in a tournament of the organiser's own bots (checked at entry and at start);
shown in GET answers, replays and the tournament page; a result played under other deals than
the match's is not stored."""

from __future__ import annotations

import msgspec
import pytest

from arena.match.replay import Replay
from arena.match.runner import run_match
from arena.match.verify import verify_replay
from arena.sdk import BotServer
from services import flow
from services.db import matches as db_matches
from tests.services.helpers.api_play_helpers import PlayApi
from tests.services.helpers.flow_helpers import BOX, over_http

pytestmark = pytest.mark.anyio
REFUSED = "/problems/mirrored-deals-refused"


def _refusal(response: object, field: str | None) -> None:
    assert response.status_code == 422, response.text  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert body["type"] == REFUSED
    assert "one owner" in body["detail"] and "opponent's whole hand" in body["detail"]
    if field is not None:
        assert [e["field"] for e in body["errors"]] == [field]


async def _replay(api: PlayApi, match_id: int) -> Replay:
    response = await api.client.get(f"/v1/matches/{match_id}/replay")
    assert response.status_code == 200, response.text
    return msgspec.json.decode(response.content, type=Replay)


async def test_challenges_deal_independently_and_mirror_only_between_one_owners_bots(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    _, me = await api.account("me")
    _, other = await api.account("other")
    mine = await api.bots(me, bot_servers[:2])
    theirs = await api.bots(other, bot_servers[2:3])
    fields = {"games_per_match": 2, "rules": {"points_to_win": 15}}

    default = await api.client.post(
        "/v1/challenges", json={"bot_a": mine[0], "bot_b": theirs[0], **fields}, headers=me
    )
    assert default.status_code == 202, default.text
    match_id = default.json()["match_id"]
    match = (await api.client.get(f"/v1/matches/{match_id}")).json()
    assert match["deals"] == "independent" and match["status"] == "done"
    replay = await _replay(api, match_id)
    assert replay.deals == "independent" and replay.games[0].seed != replay.games[1].seed
    verify_replay(replay)

    refused = await api.client.post(
        "/v1/challenges",
        json={"bot_a": mine[0], "bot_b": theirs[0], "deals": "mirrored", **fields},
        headers=me,
    )
    _refusal(refused, "body.deals")
    count = await api.pool.fetchval(
        "SELECT count(*) FROM match_entrants WHERE bot_id = $1", theirs[0]
    )
    assert count == 1  # the refused challenge left no match behind

    own = await api.client.post(
        "/v1/challenges",
        json={"bot_a": mine[0], "bot_b": mine[1], "deals": "mirrored", **fields},
        headers=me,
    )
    assert own.status_code == 202, own.text
    match = (await api.client.get(f"/v1/matches/{own.json()['match_id']}")).json()
    assert match["deals"] == "mirrored"
    replay = await _replay(api, match["id"])
    assert replay.deals == "mirrored" and replay.games[0].seed == replay.games[1].seed
    verify_replay(replay)

    bad = await api.client.post(
        "/v1/challenges", json={"bot_a": mine[0], "bot_b": mine[1], "deals": "dup"}, headers=me
    )
    assert bad.status_code in (400, 422) and "deals" in bad.text


async def test_a_mirrored_tournament_takes_only_the_organisers_bots(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    _, organiser = await api.account("org")
    _, stranger = await api.account("stranger")
    own = await api.bots(organiser, bot_servers[:3])
    (foreign,) = await api.bots(stranger, bot_servers[3:])

    default = await api.tournament(organiser)
    assert default["settings"]["deals"] == "independent"  # type: ignore[index]
    page = await api.client.get(f"/tournaments/{default['id']}")
    assert "Independent deals" in page.text

    created = await api.tournament(organiser, deals="mirrored", games_per_match=2)
    tid = created["id"]
    assert created["settings"]["deals"] == "mirrored"  # type: ignore[index]
    page = await api.client.get(f"/tournaments/{tid}")
    assert page.status_code == 200 and "Mirrored deals" in page.text
    assert "knows its opponent&#39;s whole hand" in page.text

    refused = await api.client.post(
        f"/v1/tournaments/{tid}/entries", json={"bot_id": foreign}, headers=stranger
    )
    _refusal(refused, "body.bot_id")
    # an open bot (one any organiser may enter) is still another owner's bot
    opened = await api.client.patch(f"/v1/bots/{foreign}", json={"open": True}, headers=stranger)
    assert opened.status_code == 200, opened.text
    refused = await api.client.post(
        f"/v1/tournaments/{tid}/entries", json={"bot_id": foreign}, headers=organiser
    )
    _refusal(refused, "body.bot_id")
    for bot in own:
        entered = await api.client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=organiser
        )
        assert entered.status_code == 201, entered.text

    # an entry that got in some other way (say, before the rule) stops the start
    await api.pool.execute(
        "INSERT INTO tournament_entries (tournament_id, bot_id) VALUES ($1, $2)", tid, foreign
    )
    blocked = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    _refusal(blocked, None)
    assert str(foreign) in blocked.json()["detail"]
    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    assert detail["status"] == "registering" and detail["rounds"] == []

    await api.pool.execute(
        "DELETE FROM tournament_entries WHERE tournament_id = $1 AND bot_id = $2", tid, foreign
    )
    started = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    assert started.status_code == 202, started.text
    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    played = [m for r in detail["rounds"] for m in r["matches"] if not m["bye"]]
    assert played
    for summary in played:
        match = (await api.client.get(f"/v1/matches/{summary['id']}")).json()
        assert match["deals"] == "mirrored"
        replay = await _replay(api, match["id"])
        assert replay.deals == "mirrored" and replay.games[0].seed == replay.games[1].seed


async def test_a_result_played_under_other_deals_is_not_stored(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    _, me = await api.account("me")
    bots = await api.bots(me, bot_servers[:2])
    created = await api.client.post(
        "/v1/challenges",
        json={"bot_a": bots[0], "bot_b": bots[1], "games_per_match": 2},
        headers=me,
    )
    assert created.status_code == 202, created.text
    match_id = created.json()["match_id"]
    (spec,) = await flow.match_specs(api.pool, [match_id], secret_box=BOX)
    assert spec.settings.deals == "independent"
    entrants = [over_http(e, 1) for e in spec.entrants]
    forged = msgspec.structs.replace(spec.settings, deals="mirrored")
    replay = await run_match(str(match_id), spec.seed, forged, entrants)
    verify_replay(replay)  # a valid mirrored match, but not the one the platform set up
    with pytest.raises(flow.ResultMismatch, match="independent deals"):
        await flow.record_result(api.pool, match_id, replay)
    match = await db_matches.get_match(api.pool, match_id)
    assert match is not None and match.status == "queued" and match.result is None


async def test_games_per_match_defaults_follow_the_mode(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    """The defaults measured by bench/match_length.py: 6 games in 1v1, 12 in 2v2."""
    api = idle_api
    _, me = await api.account("me")
    bots = await api.bots(me, bot_servers[:2])
    for mode, games in (("1v1", 6), ("2v2", 12)):
        created = await api.tournament(me, mode=mode)
        assert created["settings"]["games_per_match"] == games  # type: ignore[index]
        challenge = await api.client.post(
            "/v1/challenges", json={"bot_a": bots[0], "bot_b": bots[1], "mode": mode}, headers=me
        )
        assert challenge.status_code == 202, challenge.text
        match = (await api.client.get(f"/v1/matches/{challenge.json()['match_id']}")).json()
        assert match["games_per_match"] == games and match["deals"] == "independent"
    given = await api.tournament(me, games_per_match=3)
    assert given["settings"]["games_per_match"] == 3  # type: ignore[index]
