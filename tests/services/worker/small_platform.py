"""A fresh platform as ``make run`` sets it up, for the ladder's small-pool tests and the
``ladder_small_pool`` bench: the API, one worker on every queue, Celery beat (the ladder's tick
every 5 s, the rating fit every 30 s), the house account's two bots (heuristic and random, SDK
servers on 127.0.0.1) with their warm-up round robin and both ladders, and then other owners'
bots that join the ladders through the API, as a newcomer's would."""

from __future__ import annotations

import contextlib
import secrets
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from arena.sdk import BotServer, strategy_decider
from services.launch.house_bots import HouseBot, join_ladders, register_house, warm_up
from services.launch.processes import beat_argv
from tests.services.worker.processes import api_process, celery_worker, start, stop, wait_for


@contextlib.contextmanager
def beat(env: dict[str, str], data: Path, log: Path) -> Iterator[None]:
    data.mkdir(parents=True, exist_ok=True)
    argv = beat_argv(data)
    argv[0] = sys.executable
    process = start(argv, env, log)
    try:
        wait_for(lambda: "beat: Starting" in log.read_text(errors="replace"), 30, "beat", log)
        yield
    finally:
        stop(process)


@dataclass
class Platform:
    api: str
    client: httpx.Client
    house: list[HouseBot]
    servers: list[BotServer] = field(default_factory=list)
    bots: dict[int, str] = field(default_factory=dict)  # bot id -> its owner's API key

    def join(self, strategy: str, ladders: tuple[str, ...], seed: int) -> int:
        """A bot of a new owner (an SDK server playing ``strategy``) on ``ladders``."""
        name = f"{strategy}-{secrets.token_hex(3)}"
        account = self.client.post("/v1/accounts", json={"name": f"owner-{name}"})
        assert account.status_code == 201, account.text
        key = account.json()["api_key"]
        server = BotServer(strategy_decider(strategy, seed), name=name, host="127.0.0.1", port=0)
        server.start()
        self.servers.append(server)
        auth = {"authorization": f"Bearer {key}"}
        created = self.client.post("/v1/bots", json={"name": name, "url": server.url}, headers=auth)
        assert created.status_code == 201, created.text
        bot_id = int(created.json()["id"])
        for ladder in ladders:
            joined = self.client.post(
                f"/v1/ladders/{ladder}/entries", json={"bot_id": bot_id}, headers=auth
            )
            assert joined.status_code == 201, joined.text
        self.bots[bot_id] = key
        return bot_id

    def table(self, ladder: str) -> dict[str, Any]:
        answer = self.client.get(f"/v1/ladders/{ladder}")
        assert answer.status_code == 200, answer.text
        table: dict[str, Any] = answer.json()
        return table


@contextlib.contextmanager
def fresh_platform(env: dict[str, str], tmp: Path) -> Iterator[Platform]:
    """The platform running, with the house bots warmed up and on both ladders."""
    names = (("house-heuristic", "heuristic"), ("house-random", "random"))
    house_servers = [
        BotServer(strategy_decider(strategy, k), name=name, host="127.0.0.1", port=0)
        for k, (name, strategy) in enumerate(names)
    ]
    for server in house_servers:
        server.start()
    try:
        with (
            celery_worker(env, tmp / "worker.log"),
            beat(env, tmp / "beat", tmp / "beat.log"),
            api_process(env, tmp / "api.log") as api,
            httpx.Client(base_url=api, timeout=30, trust_env=False) as client,
        ):
            house = [
                HouseBot(name, strategy, 0, server.url)
                for (name, strategy), server in zip(names, house_servers, strict=True)
            ]
            state = tmp / "house.json"
            register_house(api, state, house)
            warm_up(api, state, house)
            assert join_ladders(api, state, house) == []
            platform = Platform(api, client, house, servers=list(house_servers))
            try:
                yield platform
            finally:
                for server in platform.servers[len(house_servers) :]:
                    server.stop()
    finally:
        for server in house_servers:
            server.stop()
