"""The ladder through the API and `truco verify ladder`: joining (the bot's handshake first,
owners only), the table and what only the owner sees, a played day exported, revealed and
verified, and every kind of tampering with it found."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import asyncpg
import msgspec
import pytest

from arena.sdk import BotServer
from services.base.config import LadderSettings
from services.flow import ladder as flow_ladder
from services.tournaments.files.export_document import decode_ladder_day
from services.worker.results.fit import refit
from tests.services.helpers.api_helpers import Api
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_bot
from truco_cli.verify_event import Discrepancy
from truco_cli.verify_ladder import verify_ladder_day

pytestmark = pytest.mark.anyio


async def test_join_show_resume_and_leave(api: Api, bot_server: BotServer) -> None:
    _, headers = await api.account("ladder")
    _, stranger = await api.account("other")
    bot = await api.bot(headers, bot_server.url)
    path = "/v1/ladders/1v1/entries"
    refused = await api.client.post(path, json={"bot_id": bot["id"]}, headers=stranger)
    assert refused.status_code == 403
    missing = await api.client.post(path, json={"bot_id": 10**12}, headers=headers)
    assert missing.status_code == 404
    assert (await api.client.post(path, json={"bot_id": bot["id"]})).status_code == 401
    assert (await api.client.get("/v1/ladders/3v3")).status_code == 404
    joined = await api.client.post(
        path, json={"bot_id": bot["id"], "hourly_cap": 5}, headers=headers
    )
    assert joined.status_code == 201, joined.text
    entry = joined.json()
    placement = entry["placement"]
    assert entry["hourly_cap"] == 5 and placement["matches"] == 0
    # no match yet: waiting for it, or, alone on the ladder, for opponents (it needs one)
    if placement["opponents"]:
        assert placement["state"] == "waiting"
    else:
        # 46 matches at even odds, at most 16 meetings a day a pair: three bots of other owners
        assert placement["state"] == "needs_opponents" and placement["needed"] == 3
    public = (await api.client.get("/v1/ladders/1v1")).json()
    mine = next(e for e in public["entries"] if e["bot_id"] == bot["id"])
    assert mine["hourly_cap"] is None and mine["pause_cause"] is None  # the owner's only
    await api.pool.execute(
        "UPDATE ladder_entries SET paused_at = now(), pause_cause = 'walkover: gone' "
        "WHERE bot_id = $1",
        bot["id"],
    )
    own = (await api.client.get("/v1/ladders/1v1", headers=headers)).json()
    mine = next(e for e in own["entries"] if e["bot_id"] == bot["id"])
    assert mine["paused"] and mine["pause_cause"] == "walkover: gone"
    resumed = await api.client.patch(f"{path}/{bot['id']}", json={"resume": True}, headers=headers)
    assert resumed.status_code == 200 and not resumed.json()["paused"]
    gone = await api.client.delete(f"{path}/{bot['id']}", headers=stranger)
    assert gone.status_code == 403
    assert (await api.client.delete(f"{path}/{bot['id']}", headers=headers)).status_code == 204
    assert (await api.client.delete(f"{path}/{bot['id']}", headers=headers)).status_code == 404


async def test_a_bot_that_does_not_answer_cannot_join(api: Api) -> None:
    """The health check first: a bot whose server is gone is refused with the reason."""
    _, headers = await api.account("ladder")
    me = (await api.client.get("/v1/accounts/me", headers=headers)).json()
    silent = await make_bot(api.pool, me["id"], url="http://127.0.0.1:9")
    answer = await api.client.post(
        "/v1/ladders/1v1/entries", json={"bot_id": silent}, headers=headers
    )
    assert answer.status_code == 422, answer.text
    assert "GET http://127.0.0.1:9/" in answer.json()["detail"]


async def play_a_day(
    pool: asyncpg.Pool, day: datetime, bots: int = 6, *, reveal: bool = True
) -> None:
    from tests.services.flow.test_ladder_flow import ladder_bots

    await pool.execute("DELETE FROM ladder_entries")
    ids = await ladder_bots(pool, owners=bots)
    run = InProcessSender(in_process({b: "heuristic" for b in ids[:2]}))
    settings = LadderSettings(hourly_cap=1000)
    for k in range(4):
        await run(pool, await flow_ladder.tick(pool, settings, day + timedelta(seconds=5 * k)))
        await refit(pool, "1v1")
    if reveal:
        await flow_ladder.tick(pool, settings, day + timedelta(days=1))  # the day is revealed


async def test_a_ladder_day_verifies_and_tampering_fails(api: Api) -> None:
    day = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    await play_a_day(api.pool, day)
    url = "/v1/ladders/1v1/days/2026-11-20"
    summary = (await api.client.get(url)).json()
    assert summary["master_seed"] is not None and len(summary["matches"]) >= 9
    assert {m["reason"] for m in summary["matches"]} <= {"placing", "top", "uncertain"}
    exported = await api.client.get(url + "/export")
    assert exported.status_code == 200
    doc = decode_ladder_day(exported.content)
    lines: list[str] = []
    outcome = verify_ladder_day(doc, say=lines.append)
    assert outcome.complete, lines
    assert any("derived from the day's master seed" in line for line in lines)

    def tampered(change: object) -> None:
        bad = copy.deepcopy(doc)
        change(bad)  # type: ignore[operator]
        with pytest.raises(Discrepancy):
            verify_ladder_day(bad, say=lambda _: None)

    played = next(k for k, m in enumerate(doc.matches) if m.replay is not None)

    def seed(d: object) -> None:
        d.matches[played].seed += 1  # type: ignore[attr-defined]
        d.matches[played].replay.seed += 1  # type: ignore[attr-defined]

    def number(d: object) -> None:
        d.numbers[played] += 1000  # type: ignore[attr-defined]

    def master(d: object) -> None:
        d.master_seed = "00" * 32  # type: ignore[attr-defined]

    def result(d: object) -> None:
        r = d.matches[played].result  # type: ignore[attr-defined]
        r["games_won"] = [r["games_won"][1] + 1, r["games_won"][0]]

    def rating(d: object) -> None:
        d.matches[played].rating_changes[0].after += 3  # type: ignore[attr-defined]

    def event(d: object) -> None:
        events = d.matches[played].replay.games[0].events  # type: ignore[attr-defined]
        events.pop()

    for change in (seed, number, master, result, rating, event):
        tampered(change)
    assert (await api.client.get("/v1/ladders/1v1/days/2026-10-01")).status_code == 404
    assert (await api.client.get("/v1/ladders/1v1/days/yesterday")).status_code == 400


async def test_the_day_s_master_seed_stays_hidden_while_it_runs(api: Api) -> None:
    now = datetime.now(UTC)
    await play_a_day(api.pool, now, bots=4, reveal=False)
    today = now.date().isoformat()
    found = await api.client.get(f"/v1/ladders/1v1/days/{today}")
    assert found.status_code == 200
    assert found.json()["master_seed"] is None
    doc = decode_ladder_day((await api.client.get(f"/v1/ladders/1v1/days/{today}/export")).content)
    assert doc.master_seed is None
    assert msgspec.json.encode(doc)  # still a whole document
