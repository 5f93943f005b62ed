"""The ladder through the API and `truco verify ladder`: joining (the bot's handshake first,
owners only), the table and what only the owner sees, a played day exported, revealed and
verified, and every kind of tampering with it found."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import asyncpg
import msgspec
import pytest

from arena.client.connection import BotConnection
from arena.client.signing import new_secret
from arena.match.replay import EntrantRecord
from arena.sdk import BotServer
from services.api.routes.export_serving import cache_of, slots_of
from services.base.config import LadderSettings
from services.db import bot_health
from services.domain.match_order import EntrantOrder
from services.flow import ladder as flow_ladder
from services.tournaments.files.export_document import decode_ladder_day
from services.worker.results.fit import refit
from tests.services.helpers.api_helpers import Api
from tests.services.helpers.flow_helpers import (
    InProcessSender,
    in_process,
    make_account,
    make_bot,
    over_http,
)
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


async def test_resume_checks_that_the_bot_answers_and_waits_its_cooldown(
    api: Api, bot_server: BotServer
) -> None:
    """``truco ladder resume`` (PATCH resume) calls the bot's ``GET /`` first, as joining does:
    a bot still down stays paused (before: resumed, and paused again by its next walkovers);
    and a bot the ladder paused waits its cooldown (409 ``ladder-cooldown``, with the time)."""
    _, headers = await api.account("resumer")
    bot = await api.bot(headers, bot_server.url)
    path = f"/v1/ladders/1v1/entries/{bot['id']}"
    joined = await api.client.post(
        "/v1/ladders/1v1/entries", json={"bot_id": bot["id"]}, headers=headers
    )
    assert joined.status_code == 201, joined.text
    await api.pool.execute(
        "UPDATE ladder_entries SET paused_at = now(), pause_cause = 'walkover: gone' "
        "WHERE bot_id = $1",
        bot["id"],
    )
    await api.pool.execute("UPDATE bots SET url = 'http://127.0.0.1:9' WHERE id = $1", bot["id"])
    down = await api.client.patch(path, json={"resume": True}, headers=headers)
    assert down.status_code == 422, down.text
    assert "GET http://127.0.0.1:9/" in down.json()["detail"]
    entry = next(
        e
        for e in (await api.client.get("/v1/ladders/1v1", headers=headers)).json()["entries"]
        if e["bot_id"] == bot["id"]
    )
    assert entry["paused"]  # still paused
    await api.pool.execute("UPDATE bots SET url = $2 WHERE id = $1", bot["id"], bot_server.url)
    await api.pool.execute(  # the ladder paused it a minute ago
        "INSERT INTO ladder_tallies (pool, bot_id, pauses, last_paused_at) "
        "VALUES ('1v1', $1, 1, now() - interval '1 minute')",
        bot["id"],
    )
    early = await api.client.patch(path, json={"resume": True}, headers=headers)
    assert early.status_code == 409 and early.json()["type"].endswith("/ladder-cooldown")
    await api.pool.execute(
        "UPDATE ladder_tallies SET last_paused_at = now() - interval '11 minutes' "
        "WHERE bot_id = $1",
        bot["id"],
    )
    resumed = await api.client.patch(path, json={"resume": True}, headers=headers)
    assert resumed.status_code == 200 and not resumed.json()["paused"]


async def play_a_day(
    pool: asyncpg.Pool, day: datetime, bots: int = 6, *, reveal: bool = True, gone: bool = False
) -> None:
    """``bots`` bots of as many owners play a few ticks of ``day``; ``gone``: one more, whose
    server is gone, walks over its matches (rated losses on a ladder)."""
    from tests.services.flow.test_ladder_flow import ladder_bots

    await pool.execute("DELETE FROM ladder_entries")
    ids = await ladder_bots(pool, owners=bots)
    strategies = in_process({b: "heuristic" for b in ids[:2]})
    away: set[int] = set()
    if gone:
        owner = await make_account(pool, "gone")
        bot = await make_bot(pool, owner, url="http://127.0.0.1:9", secret=new_secret())
        await bot_health.record_check(pool, bot, ok=True, error=None, failures_to_unavailable=3)
        await flow_ladder.join(pool, "1v1", bot, owner, LadderSettings())
        away.add(bot)

    def connect(entrant: EntrantOrder, seed: int) -> tuple[EntrantRecord, BotConnection]:
        return (over_http if entrant.bot_id in away else strategies)(entrant, seed)

    run = InProcessSender(connect)
    settings = LadderSettings(hourly_cap=1000)
    for k in range(4):
        await run(pool, await flow_ladder.tick(pool, settings, day + timedelta(seconds=5 * k)))
        await refit(pool, "1v1")
    if reveal:
        await flow_ladder.tick(pool, settings, day + timedelta(days=1))  # the day is revealed


async def test_a_ladder_day_verifies_and_tampering_fails(api: Api) -> None:
    day = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    await play_a_day(api.pool, day, gone=True)
    url = "/v1/ladders/1v1/days/2026-11-20"
    summary = (await api.client.get(url)).json()
    assert summary["master_seed"] is not None and len(summary["matches"]) >= 9
    walked = await api.pool.fetchval(
        "SELECT count(*) FROM rating_history h JOIN matches m ON m.id = h.match_id "
        "JOIN match_results r ON r.match_id = m.id WHERE m.ladder_day = $1 "
        "AND r.result->>'reason' = 'walkover'",
        day.date(),
    )
    assert walked  # a walkover on the ladder is rated, and the verification agrees
    assert {m["reason"] for m in summary["matches"]} <= {"placing", "top", "uncertain"}
    exported = await api.client.get(url + "/export")
    assert exported.status_code == 200
    assert "etag" in exported.headers  # a revealed day: served from its files
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
    # issue 33, 4: the day comes a page at a time, by number; the pages add up to the day
    summary = (await api.client.get(url, params={"limit": 500})).json()
    assert summary["total"] == len(summary["matches"]) and summary["next_after"] is None
    pages: list[dict[str, object]] = []
    after: int | None = None
    while not pages or after is not None:
        params = {"limit": 4} if after is None else {"after": after, "limit": 4}
        page = (await api.client.get(url, params=params)).json()
        assert len(page["matches"]) <= 4 and page["total"] == len(summary["matches"])
        pages.extend(page["matches"])
        after = page["next_after"]
    assert pages == summary["matches"]
    assert [m["number"] for m in pages] == sorted(m["number"] for m in pages)
    for bad in ({"limit": 0}, {"limit": 501}, {"after": -1}):
        assert (await api.client.get(url, params=bad)).status_code == 400

    # issue 33, 7: a revealed day's export is made once into files (88 downloads in 24 s were
    # 88 readings of the day) and takes an export slot like a tournament's
    app = api.client._transport.app  # type: ignore[attr-defined]
    cache, slots = cache_of(app.state), slots_of(app.state)
    made = cache.made
    again = await api.client.get(url + "/export", headers={"accept-encoding": "gzip"})
    assert again.status_code == 200 and cache.made == made
    assert again.headers["content-encoding"] == "gzip" and "etag" in again.headers
    assert decode_ladder_day(again.content).numbers == doc.numbers
    unchanged = await api.client.get(
        url + "/export", headers={"if-none-match": again.headers["etag"]}
    )
    assert unchanged.status_code == 304 and unchanged.content == b""
    assert len(list(cache.directory.glob("ladder-1v1-2026-11-20-*.meta"))) == 1
    held = [slots.acquire("127.0.0.1") for _ in range(slots.per_address)]
    try:
        busy = await api.client.get(url + "/export")
        assert busy.status_code == 429 and busy.json()["type"].endswith("/too-many-exports")
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    assert slots.in_slots == 0 and slots.by_address == {}
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
