"""Individual 2v2 end to end: 8 bots of 8 owners play a Swiss (and a round robin) through the
real API (uvicorn), real Celery workers on Redis, the run's PostgreSQL and SDK bots on
127.0.0.1. Every match has four bots, partners rotate, and every bot receives requests for one
seat only, with another seat's seña only when the rules let that seat see it."""

from __future__ import annotations

import secrets
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from arena.sdk import BotServer, strategy_decider
from arena.wire import structs as wire
from arena.wire.protocol import ActRequest
from engine.actions import SENAS, Action
from tests.services.worker.processes import api_process, celery_worker, wait_for_row

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


class Recorder:
    """A bot's decide function: a built-in strategy that adds a seña to every card it plays,
    remembering every request it received."""

    def __init__(self, strategy: str, seed: int) -> None:
        self.inner = strategy_decider(strategy, seed)
        self.requests: list[ActRequest] = []
        self.lock = threading.Lock()

    def __call__(self, req: ActRequest) -> Action:
        with self.lock:
            self.requests.append(req)
        action = self.inner(req)
        if action.action == "play":
            sena = SENAS[(len(self.requests) + req.seat) % len(SENAS)]
            return Action(action.action, action.card, action.say, sena)
        return action


@pytest.fixture
def api_stack(stack_env: dict[str, str], tmp_path: Path) -> Iterator[httpx.Client]:
    with (
        celery_worker(stack_env, tmp_path / "worker.log"),
        api_process(stack_env, tmp_path / "api.log") as url,
        httpx.Client(base_url=url, timeout=15, trust_env=False) as client,
    ):
        yield client


def _register_field(
    client: httpx.Client, count: int
) -> tuple[list[int], dict[int, int], dict[int, Recorder], list[dict[str, str]], list[BotServer]]:
    """``count`` owners (accounts), each registering one bot."""
    bot_ids: list[int] = []
    owner_of: dict[int, int] = {}
    recorders: dict[int, Recorder] = {}
    auths: list[dict[str, str]] = []
    servers: list[BotServer] = []
    for k in range(count):
        account = client.post("/v1/accounts", json={"name": f"i2-{k}-{secrets.token_hex(3)}"})
        assert account.status_code == 201, account.text
        auth = {"authorization": f"Bearer {account.json()['api_key']}"}
        auths.append(auth)
        recorder = Recorder("heuristic" if k % 2 == 0 else "random", k)
        server = BotServer(recorder, name=f"i2bot{k}", host="127.0.0.1", port=0)
        server.start()
        servers.append(server)
        created = client.post(
            "/v1/bots",
            json={"name": f"i2-{k}-{secrets.token_hex(3)}", "url": server.url},
            headers=auth,
        )
        assert created.status_code == 201, created.text
        bot_id = created.json()["id"]
        bot_ids.append(bot_id)
        owner_of[bot_id] = account.json()["id"]
        recorders[bot_id] = recorder
    return bot_ids, owner_of, recorders, auths, servers


def _run_event(
    client: httpx.Client, auths: list[dict[str, str]], bot_ids: list[int], format: str
) -> int:
    body = {
        "name": f"individual {format}",
        "format": format,
        "mode": "2v2",
        "partnership": "individual",
        "games_per_match": 2,
        "rules": {"points_to_win": 15},
    }
    created = client.post("/v1/tournaments", json=body, headers=auths[0])
    assert created.status_code == 201, created.text
    assert created.json()["partnership"] == "individual"
    tournament_id = int(created.json()["id"])
    for bot_id, auth in zip(bot_ids, auths, strict=True):  # each owner enters its own bot
        entry = client.post(
            f"/v1/tournaments/{tournament_id}/entries", json={"bot_id": bot_id}, headers=auth
        )
        assert entry.status_code == 201, entry.text
    started = client.post(f"/v1/tournaments/{tournament_id}/start", headers=auths[0])
    assert started.status_code == 202, started.text
    return tournament_id


def _check_seats_and_senas(recorders: dict[int, Recorder]) -> Counter[str]:
    """Each bot got requests for one seat per game, and saw another seat's seña only when
    that seat's draw included it. Returns counts of señas received by partners/opponents."""
    received: Counter[str] = Counter()
    for bot_id, recorder in recorders.items():
        assert recorder.requests, f"bot {bot_id} was never called"
        seats: dict[str, set[int]] = defaultdict(set)
        for req in recorder.requests:
            seats[req.game_id].add(req.seat)
            assert req.observation.seat == req.seat
            for event in req.observation.events:
                if not isinstance(event, wire.ActionTaken) or event.seat == req.seat:
                    continue
                if event.sena is not None:
                    assert req.seat in event.sena_seen_by
                    received["partner" if event.seat % 2 == req.seat % 2 else "opponent"] += 1
        assert all(len(s) == 1 for s in seats.values()), f"bot {bot_id} played two seats"
    return received


async def test_individual_swiss_of_8_bots_from_8_owners(
    pool: asyncpg.Pool, api_stack: httpx.Client
) -> None:
    client = api_stack
    bot_ids, owner_of, recorders, auths, servers = _register_field(client, 8)
    try:
        began = time.monotonic()
        tournament_id = _run_event(client, auths, bot_ids, "swiss")
        await wait_for_row(
            pool,
            "SELECT status = 'finished' FROM tournaments WHERE id = $1",
            tournament_id,
            timeout=240,
        )
        elapsed = time.monotonic() - began
        detail = client.get(f"/v1/tournaments/{tournament_id}").json()
    finally:
        for server in servers:
            server.stop()
    print(f"\nindividual 2v2 Swiss, 8 bots, 8 matches through API + workers: {elapsed:.1f}s")
    assert detail["status"] == "finished" and len(detail["rounds"]) == 4
    partners: Counter[frozenset[int]] = Counter()
    rated: Counter[int] = Counter()
    for round_ in detail["rounds"]:
        assert len(round_["matches"]) == 2  # 8 bots: two tables, nobody sits out
        for match in round_["matches"]:
            entrants = match["entrants"]
            assert match["status"] == "done" and len(entrants) == 4
            assert len({owner_of[e["bot_id"]] for e in entrants}) == 4  # four owners
            for side in (0, 1):
                pair = frozenset(e["bot_id"] for e in entrants if e["side"] == side)
                assert len(pair) == 2
                partners[pair] += 1
            assert len(match["winners"]) in (0, 2)
            full = client.get(f"/v1/matches/{match['id']}").json()
            assert full["partnership"] == "individual"
            if full["reason"] != "walkover":  # a bot too slow to answer on a busy machine
                rated.update(e["bot_id"] for e in entrants)
            replay = client.get(f"/v1/matches/{match['id']}/replay")
            assert replay.status_code == 200 and len(replay.json()["entrants"]) == 4
    assert max(partners.values()) == 1 and len(partners) == 16  # partners rotate
    standings = detail["standings"]
    assert sorted(row["bot_id"] for row in standings) == sorted(bot_ids)
    assert sum(row["points"] for row in standings) == pytest.approx(4 * 2 * 2)  # 2 a match won
    received = _check_seats_and_senas(recorders)
    assert received["partner"] > 0
    board = client.get("/v1/leaderboards/2v2-individual").json()["entries"]
    ratings = {e["bot_id"]: e["rating"] for e in board}
    assert set(bot_ids) <= set(ratings)
    assert sum(ratings[b] for b in bot_ids) == pytest.approx(8 * 1500)
    assert {e["bot_id"]: e["matches"] for e in board if e["bot_id"] in bot_ids} == rated
    assert sum(rated.values()) >= 16  # most of the 32 bot-matches are played, not walkovers
    team_board = client.get("/v1/leaderboards/2v2").json()["entries"]
    assert not set(bot_ids) & {e["bot_id"] for e in team_board}


async def test_individual_round_robin_and_refusals(
    pool: asyncpg.Pool, api_stack: httpx.Client
) -> None:
    client = api_stack
    bot_ids, _, recorders, auths, servers = _register_field(client, 4)
    try:
        for bad, field in (
            ({"format": "single_elimination", "mode": "2v2"}, "body.partnership"),
            ({"format": "swiss", "mode": "1v1"}, "body.partnership"),
        ):
            refused = client.post(
                "/v1/tournaments",
                json={"name": "no", "partnership": "individual", **bad},
                headers=auths[0],
            )
            assert refused.status_code == 422, refused.text
            assert refused.json()["errors"][0]["field"] == field
        tournament_id = _run_event(client, auths, bot_ids, "round_robin")
        await wait_for_row(
            pool,
            "SELECT status = 'finished' FROM tournaments WHERE id = $1",
            tournament_id,
            timeout=180,
        )
        detail = client.get(f"/v1/tournaments/{tournament_id}").json()
    finally:
        for server in servers:
            server.stop()
    # 4 bots: 3 rounds, one table each; every bot partners each of the others once
    assert len(detail["rounds"]) == 3
    partners: Counter[frozenset[int]] = Counter()
    for round_ in detail["rounds"]:
        (match,) = round_["matches"]
        assert match["status"] == "done" and len(match["entrants"]) == 4
        for side in (0, 1):
            partners[frozenset(e["bot_id"] for e in match["entrants"] if e["side"] == side)] += 1
    assert len(partners) == 6 and set(partners.values()) == {1}
    assert len(detail["standings"]) == 4
    _check_seats_and_senas(recorders)
