"""The cluster soak's setting up, through the proxy and the API as users would: a Swiss of
one owner's bots, a 1v1 ladder of bots of owners of their own, and the ladder's bots leaving."""

from __future__ import annotations

import secrets
import time
from typing import Any

import httpx

from tests.services.worker.soak_people import RETRYABLE

SWISS_ROUNDS = 6


def post(client: httpx.Client, path: str, body: object, key: str = "") -> Any:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    answer = client.post(path, json=body, headers=headers)
    assert answer.status_code < 300, (path, answer.status_code, answer.text[:300])
    return answer.json() if answer.content else None


def swiss(client: httpx.Client, urls: list[str]) -> tuple[int, str]:
    """A Swiss of the bots at ``urls`` (one owner), entered, not started: (its id, the key)."""
    key = post(client, "/v1/accounts", {"name": f"swiss-{secrets.token_hex(3)}"})["api_key"]
    tag = secrets.token_hex(3)
    ids = [
        post(client, "/v1/bots", {"name": f"s{tag}-{k}", "url": url}, key)["id"]
        for k, url in enumerate(urls)
    ]
    event = post(
        client,
        "/v1/tournaments",
        {
            "name": "soak swiss",
            "format": "swiss",
            "mode": "1v1",
            "rounds": SWISS_ROUNDS,
            "rules": {"points_to_win": 30},
            "games_per_match": 2,
            "timeout_ms": 3000,
        },
        key,
    )
    for bot_id in ids:
        post(client, f"/v1/tournaments/{event['id']}/entries", {"bot_id": bot_id}, key)
    return int(event["id"]), key


def ladder(client: httpx.Client, urls: list[str]) -> list[tuple[int, str]]:
    """A bot of an owner of its own at each of ``urls`` on the 1v1 ladder: (bot id, key)."""
    joined = []
    tag = secrets.token_hex(3)
    for k, url in enumerate(urls):
        key = post(client, "/v1/accounts", {"name": f"ladder-{tag}-{k}"})["api_key"]
        bot = post(client, "/v1/bots", {"name": f"l{tag}-{k}", "url": url}, key)["id"]
        post(client, "/v1/ladders/1v1/entries", {"bot_id": bot}, key)
        joined.append((int(bot), key))
    return joined


def leave(client: httpx.Client, joined: list[tuple[int, str]]) -> None:
    for bot, key in joined:
        deadline = time.monotonic() + 60
        while True:
            answer = client.delete(
                f"/v1/ladders/1v1/entries/{bot}", headers={"authorization": f"Bearer {key}"}
            )
            if answer.status_code not in RETRYABLE:
                assert answer.status_code == 204, answer.text
                break
            assert time.monotonic() < deadline, answer.text
