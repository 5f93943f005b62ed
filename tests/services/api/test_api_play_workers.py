"""With a Redis shared with the workers, the API process never calls a bot for /play (issue 37):
``POST /v1/play`` against an HTTP bot makes no bot client (the factory that would make one
fails the test) and hands the session to the bot-calling queue as ``truco.play_person``, the
bot's URL and decrypted secret in the order as a match order carries them; the session is in
Redis, so a second app on the same Redis (another API process) reads it and takes its
answer; nothing is played until a worker takes it."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from arena.client.bot_client import BotClient
from arena.client.egress import EgressPolicy
from services.base.config import PlaySettings, RedisSettings
from services.play.items import PlayOrder
from services.worker import senders
from services.worker.names import MATCHES, PLAY_PERSON
from tests.servers import RedisTarget
from tests.services.helpers.api_helpers import NetworkGuard, app_client
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio


class Captured:
    def __init__(self) -> None:
        self.sent: list[tuple[str, list[Any], dict[str, Any]]] = []

    def send_task(self, name: str, args: list[Any], **options: Any) -> object:
        self.sent.append((name, args, options))
        return type("Sent", (), {"id": f"sent-{len(self.sent)}"})()


def _never(url: str, secret: str, policy: EgressPolicy) -> BotClient:
    raise AssertionError(f"the API process made a bot client for {url}")


async def test_the_api_never_calls_a_bot_for_play(
    api_database_url: str, redis_target: RedisTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    captured = Captured()
    monkeypatch.setattr(senders, "current_app", lambda: captured)
    guard = NetworkGuard()
    guard.factory = _never  # type: ignore[method-assign]
    shared = RedisSettings(url=redis_target.url, prefix=f"{redis_target.prefix}workers:")
    fields: dict[str, Any] = {"redis": shared, "play": PlaySettings(per_address=5)}
    async with (
        app_client(api_database_url, guard, settings_fields=fields) as (pool, client),
        app_client(api_database_url, guard, settings_fields=fields) as (_, other),
    ):
        owner = await make_account(pool, "house")
        await pool.execute("UPDATE accounts SET name = 'house' WHERE id = $1", owner)
        bot = await make_bot(pool, owner, url="http://127.0.0.1:9/bot", prefix="house-heuristic")
        await pool.execute("UPDATE bots SET open = true WHERE id = $1", bot)
        created = await client.post("/v1/play", json={"bot_id": bot})
        assert created.status_code == 201, created.text
        play_id, token = created.json()["id"], created.json()["token"]
        assert [(name, options["queue"]) for name, _, options in captured.sent] == [
            (PLAY_PERSON, MATCHES)
        ]
        order = msgspec.convert(captured.sent[0][1][0], PlayOrder)
        assert order.play_id == play_id and [b.url for b in order.bots] == [
            "http://127.0.0.1:9/bot"
        ]
        assert order.bots[0].secret.startswith("whsec_")  # decrypted here: the worker has no key
        # the other process serves it (from Redis); nobody plays it until a worker takes it
        seen = await other.get(f"/v1/play/{play_id}", headers={"X-Play-Token": token})
        assert seen.status_code == 200 and seen.json()["status"] == "playing"
        assert seen.json()["turn"] is None
        left = await other.post(f"/v1/play/{play_id}/leave", headers={"X-Play-Token": token})
        assert left.status_code == 200
    assert guard.connected == [] and guard.resolved == []
