"""An author's path end to end, with the API served by uvicorn, a real Celery worker, and SDK
bots on 127.0.0.1: a bot registered with the secret its author chose plays at once; one
registered with a wrong secret loses by walkover with a cause that says 401 in the API, on the
match page and on the bot page; one that answers nonsense forfeits with its cause; a rotation
keeps the bot playing on either secret."""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.client.signing import new_secret
from arena.sdk import BotServer
from arena.wire.protocol import ActResponse
from tests.services.worker.processes import api_process, celery_worker

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def _finished(client: httpx.Client, match_id: int, timeout: float = 90) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        match: dict[str, Any] = client.get(f"/v1/matches/{match_id}").json()
        if match["status"] in ("done", "forfeit", "error"):
            return match
        assert time.monotonic() < deadline, f"match {match_id} still {match['status']}"
        time.sleep(0.2)


async def test_secret_first_then_register_and_a_wrong_secret_is_explained(
    stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    with (
        celery_worker(stack_env, tmp_path / "worker.log"),
        api_process(stack_env, tmp_path / "api.log") as url,
        httpx.Client(base_url=url, timeout=10, trust_env=False) as client,
    ):
        account = client.post("/v1/accounts", json={"name": f"af-{secrets.token_hex(3)}"})
        auth = {"authorization": f"Bearer {account.json()['api_key']}"}

        def register(server_secret: str, registered_secret: str) -> tuple[int, BotServer]:
            server = bot_server_factory("random", server_secret)
            created = client.post(
                "/v1/bots",
                json={
                    "name": f"af-{secrets.token_hex(3)}",
                    "url": server.url,
                    "signing_secret": registered_secret,
                },
                headers=auth,
            )
            assert created.status_code == 201, created.text
            assert created.json()["signing_secret"] == registered_secret
            return int(created.json()["id"]), server

        def challenge(a: int, b: int) -> dict[str, Any]:
            sent = client.post(
                "/v1/challenges",
                json={
                    "bot_a": a,
                    "bot_b": b,
                    "games_per_match": 2,
                    "rules": {"points_to_win": 15},
                },
                headers=auth,
            )
            assert sent.status_code == 202, sent.text
            return _finished(client, int(sent.json()["match_id"]))

        # the secret first: the bot starts with it and is registered with it
        mine = new_secret()
        bot, bot_server = register(mine, mine)
        rival_secret = new_secret()
        rival, _ = register(rival_secret, rival_secret)
        played = challenge(bot, rival)
        assert played["status"] == "done" and played["reason"] in ("games", "tantos", "draw")
        assert played["cause"] is None and played["causes"] == []
        assert sum(g["score"][0] + g["score"][1] for g in played["games"]) > 0

        # a bot started with one secret and registered with another
        wrong, _ = register(new_secret(), new_secret())
        lost = challenge(wrong, rival)
        assert lost["reason"] == "walkover" and lost["winner"] == rival
        cause = lost["cause"]
        assert cause == lost["causes"][0]
        assert {k: cause[k] for k in ("side", "bot_id", "call", "kind", "status")} == {
            "side": 0,
            "bot_id": wrong,
            "call": "start",
            "kind": "http_status",
            "status": 401,
        }
        assert cause["summary"] == "signature rejected (401) on /start"
        assert "127.0.0.1" not in str(cause)
        page = client.get(f"/matches/{lost['id']}").text
        assert "signature rejected (401) on /start" in page
        bot_page = client.get(f"/bots/{wrong}").text
        assert "Recent faults" in bot_page and "HTTP error × 1" in bot_page  # worded, not the kind
        assert "signature rejected (401)" in bot_page

        # a bot that answers nonsense forfeits; the trusted worker recomputes the cause
        cheat_secret = new_secret()
        with BotServer(
            lambda request: ActResponse(action="nonsense"), name="cheat", secret=cheat_secret
        ) as cheat_server:
            created = client.post(
                "/v1/bots",
                json={
                    "name": f"af-cheat-{secrets.token_hex(3)}",
                    "url": cheat_server.url,
                    "signing_secret": cheat_secret,
                },
                headers=auth,
            )
            assert created.status_code == 201, created.text
            cheat = int(created.json()["id"])
            forfeited = challenge(cheat, rival)
        assert forfeited["reason"] == "forfeit" and forfeited["winner"] == rival
        assert forfeited["cause"]["call"] == "act"
        assert forfeited["cause"]["kind"] == "illegal_action"
        assert forfeited["cause"]["summary"] == "illegal action on /act"
        assert forfeited["cause"]["detail"].startswith("fault 5 in game 1: 'nonsense'")
        assert "illegal action on /act" in client.get(f"/matches/{forfeited['id']}").text

        # rotation: the bot still on its old secret plays, and so it does after switching
        rotated = client.post(f"/v1/bots/{bot}/secret", json={}, headers=auth)
        assert rotated.status_code == 200, rotated.text
        assert challenge(bot, rival)["causes"] == []  # the bot still checks the old one
        bot_server.secret = rotated.json()["signing_secret"]  # the author switches
        assert challenge(bot, rival)["causes"] == []
