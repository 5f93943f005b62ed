"""The ladder through the workflow, on a real PostgreSQL: joining and its refusals, the
matchmaker's ticks (owners, one match at a time, hourly caps, priority of tournaments), the
day's committed seeds and their reveal, pausing after walkovers and resuming, and a ladder
that places its bots as matches are played and the pool refitted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import msgspec
import pytest

from arena.client.connection import BotConnection
from arena.client.signing import new_secret
from arena.match.replay import EntrantRecord
from engine.rules import Rules
from services import flow
from services.base.config import LadderSettings
from services.db import bot_health
from services.db import ladder as db_ladder
from services.db import matches as db_matches
from services.domain import seeds
from services.domain.match_order import EntrantOrder
from services.flow import ladder as flow_ladder
from services.flow.errors import BotNotFound, BotUnavailable
from services.worker import senders
from services.worker.results import store
from services.worker.results.fit import refit
from tests.services.helpers.flow_helpers import (
    BOX,
    InProcessSender,
    in_process,
    make_account,
    make_bot,
    over_http,
)

pytestmark = pytest.mark.anyio

SETTINGS = LadderSettings(entries_per_account=2, hourly_cap=60, pair_per_day=3, pause_after=2)
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


async def answered(pool: asyncpg.Pool, bot_id: int) -> None:
    await bot_health.record_check(pool, bot_id, ok=True, error=None, failures_to_unavailable=3)


async def ladder_bots(pool: asyncpg.Pool, owners: int, per_owner: int = 1) -> list[int]:
    bots = []
    for _ in range(owners):
        owner = await make_account(pool, "ladder")
        for _ in range(per_owner):
            bot = await make_bot(pool, owner)
            await answered(pool, bot)
            await flow_ladder.join(pool, "1v1", bot, owner, SETTINGS)
            bots.append(bot)
    return bots


async def owner_of(pool: asyncpg.Pool, bot_id: int) -> int:
    return int(await pool.fetchval("SELECT owner_id FROM bots WHERE id = $1", bot_id))


async def test_joining_is_for_the_owner_and_capped_per_account(flow_pool: asyncpg.Pool) -> None:
    owner, other = await make_account(flow_pool), await make_account(flow_pool)
    bots = [await make_bot(flow_pool, owner) for _ in range(3)]
    with pytest.raises(flow_ladder.NotYourBot):
        await flow_ladder.join(flow_pool, "1v1", bots[0], other, SETTINGS)
    with pytest.raises(BotNotFound):
        await flow_ladder.join(flow_pool, "1v1", 10**12, owner, SETTINGS)
    first = await flow_ladder.join(flow_pool, "1v1", bots[0], owner, SETTINGS, hourly_cap=500)
    assert first.hourly_cap == SETTINGS.hourly_cap  # never above the platform's cap
    again = await flow_ladder.join(flow_pool, "1v1", bots[0], owner, SETTINGS)
    assert again == first
    await flow_ladder.join(flow_pool, "1v1", bots[1], owner, SETTINGS)
    with pytest.raises(flow_ladder.LadderFull):
        await flow_ladder.join(flow_pool, "1v1", bots[2], owner, SETTINGS)
    # the other ladder has its own count
    await flow_ladder.join(flow_pool, "2v2-individual", bots[2], owner, SETTINGS)
    await flow_pool.execute("UPDATE bots SET status = 'unavailable' WHERE id = $1", bots[2])
    with pytest.raises(BotUnavailable):
        await flow_ladder.join(flow_pool, "1v1", bots[2], owner, SETTINGS)
    await flow_ladder.leave(flow_pool, "1v1", bots[1], owner)
    with pytest.raises(flow_ladder.NotOnLadder):
        await flow_ladder.leave(flow_pool, "1v1", bots[1], owner)


async def test_a_tick_pairs_other_owners_one_match_a_bot_with_committed_seeds(
    flow_pool: asyncpg.Pool,
) -> None:
    await flow_pool.execute("DELETE FROM ladder_entries")
    bots = await ladder_bots(flow_pool, owners=3, per_owner=2)
    ids = await flow_ladder.tick(flow_pool, SETTINGS, NOW)
    assert len(ids) == 3  # six bots, one match each
    matches = await db_matches.get_matches(flow_pool, ids)
    seated = [b for m in matches for b in m.bots]
    assert sorted(seated) == sorted(bots)
    for match in matches:
        owners = {await owner_of(flow_pool, b) for b in match.bots}
        assert len(owners) == 2 and match.rated and match.ladder_pool == "1v1"
    # still placing, each bot may play a second match at once (placing_at_once, 2), no more
    # (how many the greedy picks find depends on the matchmaker's order and today's meetings)
    second: list[int] = []
    while more := await flow_ladder.tick(flow_pool, SETTINGS, NOW):
        second += more
    assert second
    in_play = [b for m in await db_matches.get_matches(flow_pool, ids + second) for b in m.bots]
    assert max(in_play.count(b) for b in bots) == 2
    day = await db_ladder.get_day(flow_pool, "1v1", NOW.date())
    assert day is not None and day.revealed_at is None
    assert day.commitment == seeds.commitment(day.master_seed)
    places = await db_ladder.places(flow_pool, ids)
    for match in matches:
        number = places[match.id].number
        assert match.seed == seeds.ladder_seed(
            day.master_seed, "1v1", NOW.date().isoformat(), number, match.bots
        )
    # the day is revealed only once it is over and its matches have stopped
    tomorrow = NOW + timedelta(days=1)
    await flow_ladder.tick(flow_pool, SETTINGS, tomorrow)
    assert (await db_ladder.get_day(flow_pool, "1v1", NOW.date())).revealed_at is None  # type: ignore[union-attr]
    await flow_pool.execute(
        "UPDATE matches SET status = 'error' WHERE id = ANY($1::bigint[])", ids + second
    )
    await flow_ladder.tick(flow_pool, SETTINGS, tomorrow)
    revealed = await db_ladder.get_day(flow_pool, "1v1", NOW.date())
    assert revealed is not None and revealed.revealed_at is not None


async def test_tournament_matches_waiting_hold_the_ladder_back(flow_pool: asyncpg.Pool) -> None:
    await flow_pool.execute("DELETE FROM ladder_entries")
    await ladder_bots(flow_pool, owners=2)
    owner = await make_account(flow_pool)
    a, b = await make_bot(flow_pool, owner), await make_bot(flow_pool, owner)
    async with flow_pool.acquire() as conn:
        waiting = await db_matches.insert_match(
            conn, bots=(a, b), mode="1v1", seed=1, rated=False, games_per_match=1, rules=Rules()
        )
    await flow_pool.execute("UPDATE matches SET status = 'queued' WHERE id = $1", waiting)
    assert await flow_ladder.tick(flow_pool, SETTINGS, NOW) == []
    await flow_pool.execute("UPDATE matches SET status = 'error' WHERE id = $1", waiting)
    assert len(await flow_ladder.tick(flow_pool, SETTINGS, NOW)) == 1


async def test_a_bot_over_its_hourly_cap_or_paused_waits(flow_pool: asyncpg.Pool) -> None:
    await flow_pool.execute("DELETE FROM ladder_entries")
    bots = await ladder_bots(flow_pool, owners=2)
    owner = await owner_of(flow_pool, bots[0])
    await flow_ladder.update(flow_pool, "1v1", bots[0], owner, SETTINGS, hourly_cap=1)
    (first,) = await flow_ladder.tick(flow_pool, SETTINGS, NOW)
    await flow_pool.execute("UPDATE matches SET status = 'error' WHERE id = $1", first)
    assert await flow_ladder.tick(flow_pool, SETTINGS, NOW) == []  # one an hour for bot 0
    await flow_ladder.update(flow_pool, "1v1", bots[0], owner, SETTINGS, hourly_cap=60)
    assert len(await flow_ladder.tick(flow_pool, SETTINGS, NOW)) == 1


async def test_a_placing_bot_is_not_held_by_the_platform_cap_but_by_its_owners(
    flow_pool: asyncpg.Pool,
) -> None:
    """Placement is a burst (about fifty matches, one at a time): a bot still placing whose
    owner kept the platform's hourly cap plays past it, and those matches do not spend the
    cap later; a placed bot's other matches do, and a cap its owner lowered counts them all."""
    await flow_pool.execute("DELETE FROM ladder_entries")
    tight = msgspec.structs.replace(SETTINGS, hourly_cap=1, pair_per_day=100)
    bots = await ladder_bots(flow_pool, owners=2)
    await flow_pool.execute("UPDATE ladder_entries SET hourly_cap = 1")  # the platform's cap
    for _ in range(3):  # placing: past the cap of one an hour
        (played,) = await flow_ladder.tick(flow_pool, tight, NOW)
        await flow_pool.execute("UPDATE matches SET status = 'done' WHERE id = $1", played)
    for bot in bots:  # both placed
        await flow_pool.execute(
            "INSERT INTO ratings (bot_id, mode) VALUES ($1, '1v1') ON CONFLICT DO NOTHING", bot
        )
        await flow_pool.execute(
            "INSERT INTO rating_intervals (bot_id, mode, rating, low, high, fitted_at) "
            "VALUES ($1, '1v1', 1500, 1450, 1550, now()) ON CONFLICT (bot_id, mode) "
            "DO UPDATE SET low = 1450, high = 1550",
            bot,
        )
    (paced,) = await flow_ladder.tick(flow_pool, tight, NOW)  # placing did not spend the hour
    await flow_pool.execute("UPDATE matches SET status = 'done' WHERE id = $1", paced)
    assert await flow_ladder.tick(flow_pool, tight, NOW) == []  # that one did
    await flow_pool.execute("DELETE FROM rating_intervals WHERE bot_id = ANY($1)", bots)
    roomy = msgspec.structs.replace(SETTINGS, pair_per_day=100)  # the platform's cap is 60
    # placing again, but the owners' caps of one an hour count the placing matches too
    assert await flow_ladder.tick(flow_pool, roomy, NOW) == []


async def test_walkovers_in_a_row_pause_a_bot_and_its_owner_resumes_it(
    flow_pool: asyncpg.Pool,
) -> None:
    """A bot whose server is gone walks over; after ``pause_after`` of them it is paused with
    the cause, keeps its place in the table, and plays again once its owner resumes it."""
    await flow_pool.execute("DELETE FROM ladder_entries")
    good = await ladder_bots(flow_pool, owners=2)
    owner = await make_account(flow_pool)
    gone = await make_bot(flow_pool, owner, url="http://127.0.0.1:9", secret=new_secret())
    await answered(flow_pool, gone)
    await flow_ladder.join(flow_pool, "1v1", gone, owner, SETTINGS)
    played = in_process({})

    def connect(entrant: EntrantOrder, seed: int) -> tuple[EntrantRecord, BotConnection]:
        # the others play in process; the gone bot is called where nothing listens
        return (over_http if entrant.bot_id == gone else played)(entrant, seed)

    run = InProcessSender(connect)
    paused = None
    for k in range(8):
        ids = await flow_ladder.tick(flow_pool, SETTINGS, NOW + timedelta(minutes=k))
        await run(flow_pool, ids)
        entry = await db_ladder.get_entry(flow_pool, "1v1", gone)
        assert entry is not None
        if entry.paused_at is not None:
            paused = entry
            break
    assert paused is not None and paused.pause_cause is not None
    assert paused.pause_cause.startswith("walkover")
    ids = await flow_ladder.tick(flow_pool, SETTINGS, NOW + timedelta(minutes=30))
    for match in await db_matches.get_matches(flow_pool, ids):
        assert gone not in match.bots
    for bot in good:
        assert (await db_ladder.get_entry(flow_pool, "1v1", bot)).paused_at is None  # type: ignore[union-attr]
    # its owner resumes it once the pause's cooldown is over (10 minutes after a first pause)
    with pytest.raises(flow_ladder.ResumeTooSoon) as early:
        await flow_ladder.update(flow_pool, "1v1", gone, owner, SETTINGS, resume=True)
    waited = (early.value.until - paused.paused_at).total_seconds()
    assert waited == SETTINGS.resume_cooldown_s
    with pytest.raises(flow_ladder.ResumeTooSoon):  # leaving and joining again waits as long
        await flow_ladder.leave(flow_pool, "1v1", gone, owner)
        await flow_ladder.join(flow_pool, "1v1", gone, owner, SETTINGS)
    await flow_pool.execute(
        "UPDATE ladder_tallies SET last_paused_at = last_paused_at - interval '11 minutes' "
        "WHERE bot_id = $1",
        gone,
    )
    await flow_ladder.join(flow_pool, "1v1", gone, owner, SETTINGS)
    await flow_pool.execute(
        "UPDATE ladder_entries SET paused_at = now(), pause_cause = 'walkover' WHERE bot_id = $1",
        gone,
    )
    resumed = await flow_ladder.update(flow_pool, "1v1", gone, owner, SETTINGS, resume=True)
    assert resumed.paused_at is None and resumed.failures_in_a_row == 0


async def test_a_ladder_places_its_bots_as_it_plays(flow_pool: asyncpg.Pool) -> None:
    """Eight bots of eight owners (house heuristic and random strategies) play tick after tick
    in process, the pool refitted between ticks: every bot gets a rating interval, no pair
    meets more than the day allows (a pool of eight owners raises the limit while its bots
    place, up to ``pair_per_day_placing``), and the stronger strategy ranks above the weaker."""
    await flow_pool.execute("DELETE FROM ladder_entries")
    await flow_pool.execute("DELETE FROM rating_intervals WHERE mode = '1v1'")
    bots = await ladder_bots(flow_pool, owners=8)
    strong = set(bots[:4])
    run = InProcessSender(in_process({b: "heuristic" for b in strong}))
    settings = LadderSettings(pair_per_day=3, hourly_cap=1000, pair_per_day_placing=6)
    for k in range(30):
        ids = await flow_ladder.tick(flow_pool, settings, NOW + timedelta(seconds=5 * k))
        await run(flow_pool, ids)
        await refit(flow_pool, "1v1")
    met = await db_ladder.met_on(flow_pool, "1v1", NOW.date())
    met = {pair: n for pair, n in met.items() if set(pair) <= set(bots)}  # not earlier tests'
    assert met and max(met.values()) <= settings.pair_per_day_placing
    rows = await db_ladder.table(flow_pool, "1v1", NOW + timedelta(hours=1))
    rated = [r for r in rows if r.bot_id in bots]
    assert all(r.rating is not None and r.low is not None for r in rated)
    top_half = {r.bot_id for r in rated[:4]}
    assert len(top_half & strong) >= 3


@pytest.mark.parametrize("reason", ["placing", "top"])
async def test_a_ladder_result_starts_the_next_match_without_waiting_for_beat(
    flow_pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch, reason: str
) -> None:
    """The trusted worker stores a ladder match (chosen to place a bot, or for any other
    reason), and runs the matchmaker at once: the bots' next match is made and sent before any
    beat tick, so no bot waits idle for beat."""
    await flow_pool.execute("DELETE FROM ladder_entries")
    # nothing else waits to be played (tournaments and challenges would come first)
    await flow_pool.execute(
        "UPDATE matches SET status = 'error' WHERE status IN ('pending', 'queued', 'running')"
    )
    await ladder_bots(flow_pool, owners=2)
    (first,) = await flow_ladder.tick(flow_pool, SETTINGS, datetime.now(UTC))
    sent: list[str] = []

    class Sender:
        secret_box = BOX  # the bots' secrets were sealed with it

        def send_task(self, name: str, args: list[Any], **options: Any) -> object:
            sent.append(name)
            return type("Sent", (), {"id": "t"})()

    monkeypatch.setattr(senders, "current_app", lambda: Sender())
    played = InProcessSender(in_process({}))
    monkeypatch.setattr(flow, "record_result", _store_nothing)  # play, keep the replay
    await played(flow_pool, [first])
    monkeypatch.undo()
    monkeypatch.setattr(senders, "current_app", lambda: Sender())

    assert await db_ladder.placing_match(flow_pool, first)
    await flow_pool.execute("UPDATE matches SET ladder_reason = $2 WHERE id = $1", first, reason)
    assert await db_ladder.ladder_match(flow_pool, first)
    await store.store(flow_pool, first, played.replays[first])
    made = await flow_pool.fetch(
        "SELECT id, status FROM matches WHERE ladder_pool = '1v1' AND id > $1", first
    )
    assert [r["status"] for r in made] == ["queued"] and sent == ["truco.play_match"]


async def _store_nothing(
    pool: asyncpg.Pool, match_id: int, replay: Any, task_id: Any = None
) -> flow.Recorded:
    """``flow.record_result`` that stores nothing (the test stores through the worker)."""
    return flow.Recorded(stored=False)
