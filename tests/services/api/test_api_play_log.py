"""The person's log (``PlayView.log``, :mod:`services.api.play_log`) on a real server: a whole
2v2 with flor played through the stream, by a person who answers at once, shows every event of
the stored replay in order, exactly once, as the person's seat sees it: the person's own three
cards in each deal and nobody else's, no seña the person did not see, the decision records, the
seating of each game. A whole 1v1 read by long polls with ``?since=`` gets the same. No card of
another seat is in any view before it is played (R-11), even to a person who polls hard."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest

from arena.match.replay import Decision, Replay, StartFault, load_replay
from engine.events import HandStarted
from engine.observe import Seat, visible
from services.db import play_matches as db_play
from services.db.pool import create_pool
from services.play.log import person_seat
from tests.services.helpers.api_helpers import settings as app_settings
from tests.services.helpers.flow_helpers import make_account, make_bot
from tests.services.helpers.sse_client import Served, messages, serve

pytestmark = pytest.mark.anyio
WAIT_S = 120


@pytest.fixture
def served(api_database_url: str) -> Iterator[Served]:
    with serve(app_settings(api_database_url)) as served:
        yield served


async def _house(url: str) -> None:
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        if not await db_play.house_bots(pool, house_account=None):
            owner = await make_account(pool, "house-owner")
            await make_bot(pool, owner, url="builtin:heuristic", prefix="house-h")
    finally:
        await pool.close()


def expected_log(replay: Replay) -> list[tuple[int, dict[str, Any]]]:
    """Every event of ``replay`` as the person's seat sees it, game by game (the start
    faults aside: the runner reports none of them as progress)."""
    out: list[tuple[int, dict[str, Any]]] = []
    for index, game in enumerate(replay.games):
        seat = person_seat(index, len(replay.entrants), replay.rules.players)
        for event in game.events:
            if isinstance(event, StartFault):
                continue
            if isinstance(event, Decision):
                shown: dict[str, Any] = {
                    "type": "decision",
                    "seat": event.seat,
                    "latency_ms": round(event.latency_ms, 1),
                }
                if event.fault:
                    shown["fault"] = event.fault
            elif isinstance(event, HandStarted):
                shown = {
                    "type": "hand_started",
                    "hand": event.hand,
                    "mano": event.mano,
                    "score": list(event.score),
                    "deal": [
                        list(c) if s == seat else [None] * len(c) for s, c in enumerate(event.deal)
                    ],
                }
            else:
                shown = msgspec.to_builtins(visible(event, Seat(seat)))
            out.append((game.number, msgspec.json.decode(msgspec.json.encode(shown))))
    return out


def _hidden_cards(replay: Replay) -> dict[tuple[int, int], set[str]]:
    """(game, hand) -> the cards dealt to the seats other than the person's."""
    hidden: dict[tuple[int, int], set[str]] = {}
    for index, game in enumerate(replay.games):
        seat = person_seat(index, len(replay.entrants), replay.rules.players)
        for event in game.events:
            if isinstance(event, HandStarted):
                hidden[(game.number, event.hand)] = {
                    c for s, cards in enumerate(event.deal) if s != seat for c in cards
                }
    return hidden


def _answer(view: dict[str, Any]) -> dict[str, Any]:
    legal = view["turn"]["legal_actions"]
    # sing what there is to sing (envido, flor, truco), else play a card
    calls = [a for a in legal if a["action"] not in ("play", "mazo", "no_quiero")]
    choice = calls[0] if calls and view["turn"]["number"] % 3 else legal[0]
    body = {"number": view["turn"]["number"], "action": choice["action"]}
    if choice.get("card"):
        body["card"] = choice["card"]
    if view["observation"]["players"] == 4 and choice["action"] == "play":
        body["sena"] = "tres"
    return body


async def test_a_2v2_with_flor_on_the_stream_logs_every_event_once_in_order(
    served: Served, api_database_url: str
) -> None:
    await _house(api_database_url)
    async with httpx.AsyncClient(base_url=served.base, timeout=WAIT_S) as client:
        created = await client.post(
            "/v1/play", json={"players": 4, "flor": True, "points_to_win": 15, "games": 2}
        )
        assert created.status_code == 201, created.text
        play_id, token = created.json()["id"], created.json()["token"]
        items: list[dict[str, Any]] = []
        views: list[dict[str, Any]] = []
        async with client.stream(
            "GET", f"/v1/play/{play_id}/stream", params={"token": token}
        ) as response:
            async with asyncio.timeout(WAIT_S):
                async for message in messages(response):
                    view = message.json()
                    views.append(view)
                    items.extend(view["log"])
                    if message.event == "end":
                        break
                    if view["turn"] is not None:
                        await client.post(
                            f"/v1/play/{play_id}/act",
                            json=_answer(view),
                            headers={"X-Play-Token": token},
                            params={"since": 10**9},  # no log in the answer: the stream has it
                        )
        replay = load_replay((await client.get(f"/v1/play/{play_id}/replay")).content)
    assert [item["n"] for item in items] == list(range(len(items)))  # none lost, none twice
    assert [(i["game"], i["event"]) for i in items] == expected_log(replay)
    # the seating of each game: the person moves one seat a game, the partner across
    seatings = views[-1]["seating"]
    assert [s["game"] for s in seatings] == [g.number for g in replay.games]
    for index, seating in enumerate(seatings):
        you = person_seat(index, 4, 4)
        roles = {s["seat"]: s["role"] for s in seating["seats"]}
        assert roles[you] == "you" and roles[(you + 2) % 4] == "partner"
        assert sorted(roles.values()) == ["partner", "rival", "rival", "you"]
    # nothing of another seat's hand in any view before it is played
    hidden = _hidden_cards(replay)
    played: set[tuple[int, int, str]] = set()
    hand = 0
    for item in items:
        event = item["event"]
        if event["type"] == "hand_started":
            hand = event["hand"]
        if event["type"] == "action" and event.get("card"):
            played.add((item["game"], hand, event["card"]))
        text = msgspec.json.encode(event).decode()
        for card in hidden.get((item["game"], hand), set()):
            if (item["game"], hand, card) not in played and event["type"] != "hand_ended":
                assert f'"{card}"' not in text, (card, event)
    # the person's señas went with their cards, and the partner's log shows only seen ones
    assert any(e.get("sena") == "tres" for _, e in expected_log(replay))


async def test_long_polls_with_since_read_the_same_log(
    served: Served, api_database_url: str
) -> None:
    await _house(api_database_url)
    async with httpx.AsyncClient(base_url=served.base, timeout=WAIT_S) as client:
        created = await client.post("/v1/play", json={"flor": True})
        assert created.status_code == 201, created.text
        play_id, token = created.json()["id"], created.json()["token"]
        headers = {"X-Play-Token": token}
        items: list[dict[str, Any]] = []
        view = created.json()["view"]
        async with asyncio.timeout(WAIT_S):
            while True:
                params = {"after": view["version"], "since": len(items)}
                answer = await client.get(f"/v1/play/{play_id}", headers=headers, params=params)
                assert answer.status_code == 200, answer.text
                view = answer.json()
                items.extend(view["log"])
                if view["status"] != "playing":
                    break
                if view["turn"] is not None:
                    acted = await client.post(
                        f"/v1/play/{play_id}/act",
                        json=_answer(view),
                        headers=headers,
                        params={"since": len(items)},
                    )
                    assert acted.status_code == 200, acted.text
                    items.extend(acted.json()["log"])
        # without ?since= a view holds the current game's log from its start
        whole = (await client.get(f"/v1/play/{play_id}", headers=headers)).json()["log"]
        replay = load_replay((await client.get(f"/v1/play/{play_id}/replay")).content)
    assert [item["n"] for item in items] == list(range(len(items)))
    assert [(i["game"], i["event"]) for i in items] == expected_log(replay)
    assert whole == items
    assert view["to_act"] is None and view["seating"][0]["seats"][0]["role"] == "you"
