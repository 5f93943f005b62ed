"""Live spectator replays: a match played by the play task's code against SDK bots on
127.0.0.1 is published to Redis in batches; after every write nothing a spectator may not see
is there (no deal, no seña, no seed, no card still in a hand); afterwards the feed equals the
spectator view of the full replay. Then the real stack: a Celery worker plays a slow match
while the API serves its live document, /health answers 503 without a worker, 200 with one."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import anyio
import asyncpg
import httpx
import msgspec
import pytest
import redis

from arena.client.signing import generate_secret
from arena.match.replay import Decision, Replay, StartFault
from arena.match.runner import MatchSettings
from arena.match.verify import verify_replay
from arena.sdk import ActRequest, BotServer, strategy_decider
from arena.wire.protocol import ActResponse
from engine.actions import Action
from engine.events import HandStarted
from engine.observe import SPECTATOR, visible
from engine.rules import Rules
from engine.state import State
from services.base.config import RateLimits, RedisSettings, Secret, SecretSettings, Settings
from services.domain.match_order import EntrantOrder, MatchOrder
from services.launch.app import create_app
from services.live import feed as live_feed
from services.live import publisher as live
from services.live.reader import READER_STATE_KEY
from services.worker.matches import play_match as play
from services.worker.results import dispatch
from services.worker.results.store import LIVE_LINGER_S
from tests.servers import RedisTarget
from tests.services.worker.fixtures import SECRET_KEY, make_account, make_bot
from tests.services.worker.processes import celery_worker

pytestmark = pytest.mark.anyio
CARD = re.compile(r"^(1[0-2]|[1-7])[EBOC]$")


def _seen(raws: list[Any]) -> dict[str, Any]:
    """What a reader makes of the list: the last run's games, as plain JSON values."""
    return {
        "live": True,
        "games": msgspec.json.decode(msgspec.json.encode(live_feed.last_run(raws))),
    }


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | set().union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_in(v) for v in value)) if value else set()
    return set()


def assert_spectator_safe(document: dict[str, Any], state: State | None = None) -> None:
    """No deal, seña or seed anywhere; no card still in a hand among this hand's events."""
    assert document["live"] is True
    assert not keys_in(document) & {"deal", "sena", "sena_seen_by", "seed", "detail"}
    if state is None or not document["games"]:
        return
    events = document["games"][-1]["events"]
    starts = [k for k, e in enumerate(events) if e.get("type") == "hand_started"]
    current = events[starts[-1] :] if starts else events
    # at a hand's end R-11 shows the proof cards: only the hand still in play must hide them
    current = [e for e in current if e.get("type") not in ("hand_ended", "game_ended")]
    in_hands = {card for hand in state.cards for card in hand}
    assert not cards_in(current) & in_hands, (cards_in(current) & in_hands, current)


def expected_spectator_events(replay: Replay, game: int) -> list[dict[str, Any]]:
    """The full replay's game as the live feed must have shown it."""
    out: list[dict[str, Any]] = []
    for event in replay.games[game].events:
        if isinstance(event, StartFault):
            continue
        if isinstance(event, Decision):
            record: dict[str, Any] = {
                "type": "decision",
                "seat": event.seat,
                "latency_ms": event.latency_ms,
            }
            if event.fault is not None:
                record["fault"] = event.fault
            out.append(record)
        elif isinstance(event, HandStarted):
            out.append(
                {
                    "type": "hand_started",
                    "hand": event.hand,
                    "mano": event.mano,
                    "score": list(event.score),
                }
            )
        else:
            out.append(msgspec.to_builtins(visible(event, SPECTATOR)))
    normalised: list[dict[str, Any]] = msgspec.json.decode(msgspec.json.encode(out))
    return normalised


def _message(bots: list[BotServer], keys: list[str], match_id: int, **kw: Any) -> MatchOrder:
    settings = MatchSettings(rules=Rules(points_to_win=15, **kw), games_per_match=2)
    entrants = [
        EntrantOrder(bot_id=20 + i, name=f"b{i}", url=bot.url, secret=key)
        for i, (bot, key) in enumerate(zip(bots, keys, strict=True))
    ]
    return MatchOrder(match_id, 777, settings, entrants)


@pytest.mark.parametrize("players", [2, 4])
async def test_the_live_feed_shows_only_what_spectators_may_see(
    worker_env: RedisTarget,
    bot_server_factory: Any,
    monkeypatch: pytest.MonkeyPatch,
    players: int,
) -> None:
    keys = [generate_secret(), generate_secret()]
    bots = [bot_server_factory("heuristic", keys[0]), bot_server_factory("random", keys[1])]
    match_id = 600 + players
    message = _message(bots, keys, match_id, players=players, sena_seen_by_opponents=0.5)
    settings = play.app.settings
    reader = redis.Redis.from_url(worker_env.url)
    key = live_feed.live_key(settings.redis.prefix, match_id)
    checked: list[int] = []
    latest: list[tuple[int, State]] = []
    progress, flush = live.LivePublisher.progress, live.LivePublisher.flush

    def remember(self: live.LivePublisher, index: int, state: State, *rest: Any) -> None:
        latest[:] = [(index, state)]
        progress(self, index, state, *rest)

    def check_after(self: live.LivePublisher, reset: bool = False) -> None:
        flush(self, reset)
        play.live_writes(worker_env.url).flush()  # written by the feed's own thread
        if not latest:
            return
        index, state = latest[0]
        document = _seen(reader.lrange(key, 0, -1))
        assert_spectator_safe(document, state)
        assert document["games"][-1]["number"] == index + 1
        checked.append(index)

    monkeypatch.setattr(live.LivePublisher, "progress", remember)
    monkeypatch.setattr(live.LivePublisher, "flush", check_after)
    replay = await play.play(message, allow_loopback=True, live=settings)
    verify_replay(replay)
    assert len(checked) > 5 and set(checked) == {0, 1}
    latest.clear()

    document = _seen(reader.lrange(key, 0, -1))
    assert [g["number"] for g in document["games"]] == [1, 2]
    for k, game in enumerate(document["games"]):
        assert game["events"] == expected_spectator_events(replay, k)
        assert game["score"] == list(replay.games[k].score)
        assert game["teams"] == list(replay.games[k].teams)
    assert reader.ttl(key) > 3000

    # a second run of the same match (a redelivered task) replaces the first in readers' eyes
    again = live.LivePublisher(reader, settings.redis.prefix, match_id)
    again.begin()
    assert _seen(reader.lrange(key, 0, -1))["games"] == []
    live.clear_live(reader, settings.redis.prefix, match_id)
    assert not reader.exists(key)
    reader.close()


# --- the real stack -------------------------------------------------------------------------


def slow_decider(delay_s: float) -> Any:
    decide = strategy_decider("random", 5)

    def slow(request: ActRequest) -> Action | ActResponse:
        time.sleep(delay_s)
        return decide(request)

    return slow


@pytest.mark.slow
async def test_real_worker_live_replay_and_health(
    pool: asyncpg.Pool, stack_env: dict[str, str], tmp_path: Path
) -> None:
    from services import flow

    owner = await make_account(pool)
    keys = [generate_secret(), generate_secret()]
    servers = []
    for k, key in enumerate(keys):
        server = BotServer(
            slow_decider(0.03), name=f"slow{k}", secret=key, host="127.0.0.1", port=0
        )
        server.start()
        servers.append(server)
    settings = Settings(
        redis=RedisSettings(url=stack_env["REDIS_URL"], prefix=stack_env["TRUCO_REDIS_PREFIX"]),
        secrets=SecretSettings(key=Secret(SECRET_KEY)),
    )
    app = create_app(settings, pool=pool, rate_limits=RateLimits(enabled=False))
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            down = await client.get("/health")
            assert down.status_code == 503
            assert "workers" in down.json()["detail"]
            assert down.json()["checks"] == {"database": "ok", "broker": "ok", "workers": "error"}

            bots = [
                await make_bot(pool, owner, s.url, k) for s, k in zip(servers, keys, strict=True)
            ]
            match_id = await flow.create_challenge(
                pool,
                bots[0],
                bots[1],
                mode="1v1",
                rules={"points_to_win": 15},
                games_per_match=2,
                rated=False,
            )
            with celery_worker(stack_env, tmp_path / "worker.log"):
                await dispatch.send_matches(pool, [match_id])
                seen_live: list[dict[str, Any]] = []
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline:
                    response = await client.get(f"/v1/matches/{match_id}/replay")
                    assert response.status_code == 200, response.text
                    body = response.json()
                    if not body.get("live"):
                        break
                    assert_spectator_safe(body)
                    assert [e["bot_id"] for e in body["entrants"]] == bots
                    if body["games"] and not seen_live:
                        # the web page of the live match reads the same feed
                        page = await client.get(f"/matches/{match_id}")
                        assert page.status_code == 200
                        assert "has not produced any events yet" not in page.text
                    if body["games"]:
                        seen_live.append(body)
                    await anyio.sleep(0.2)
                else:
                    raise AssertionError("the match did not finish in time")
                assert seen_live, "no live document with events was served"
                assert any(b["status"] == "running" for b in seen_live)
                replay = msgspec.json.decode(response.content, type=Replay)
                verify_replay(replay)
                # the live feed expires soon once the result is stored (its pollers read
                # what is left first)
                reader = redis.Redis.from_url(stack_env["REDIS_URL"])
                key = live_feed.live_key(stack_env["TRUCO_REDIS_PREFIX"], match_id)
                for _ in range(50):
                    if 0 <= reader.ttl(key) <= LIVE_LINGER_S:
                        break
                    await anyio.sleep(0.1)
                assert 0 <= reader.ttl(key) <= LIVE_LINGER_S or not reader.exists(key)
                reader.close()

                page = await client.get(f"/matches/{match_id}")
                assert page.status_code == 200

                app.state.pop("health_cache", None)
                up = await client.get("/health")
                assert up.status_code == 200, up.text
                assert up.json() == {
                    "status": "ok",
                    "database": "ok",
                    "broker": "ok",
                    "workers": "ok",
                }
            log = (tmp_path / "worker.log").read_text(errors="replace")
            assert "Traceback" not in log
            assert "truco.match_started" in log
    finally:
        for server in servers:
            server.stop()
        reader_state = app.state.get(READER_STATE_KEY)
        if reader_state is not None:
            await reader_state.aclose()
