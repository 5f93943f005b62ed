"""A bot with memory (tests/services/api/memory_bot.py) plays default challenges over real HTTP
through the platform and predicts its opponent's hands no better than chance; with mirrored
deals, the control, it predicts every hand of every second game exactly."""

from __future__ import annotations

import math

import msgspec
import pytest

from arena.match.replay import Replay
from arena.sdk import BotServer, strategy_decider
from tests.services.api.memory_bot import CHANCE, MemoryBot, Score, score
from tests.services.helpers.api_play_helpers import PlayApi

pytestmark = pytest.mark.anyio

MATCHES = 10
GAMES = 4  # every game but the first is predicted from the one before


async def _play(api: PlayApi, deals: str | None, matches: int, games: int) -> Score:
    memory = MemoryBot()
    servers = [memory.server(), BotServer(strategy_decider("heuristic", 2), name="plain")]
    for server in servers:
        server.start()
    try:
        _, me = await api.account("mem")  # one owner for both: mirrored is allowed then
        bots = await api.bots(me, servers)
        replays: dict[str, Replay] = {}
        for _ in range(matches):
            body: dict[str, object] = {
                "bot_a": bots[0],
                "bot_b": bots[1],
                "games_per_match": games,
                "rules": {"points_to_win": 15},
            }
            if deals is not None:
                body["deals"] = deals
            created = await api.client.post("/v1/challenges", json=body, headers=me)
            assert created.status_code == 202, created.text
            match_id = created.json()["match_id"]
            response = await api.client.get(f"/v1/matches/{match_id}/replay")
            assert response.status_code == 200, response.text
            replay = msgspec.json.decode(response.content, type=Replay)
            assert replay.deals == (deals or "independent")
            replays[str(match_id)] = replay
    finally:
        for server in servers:
            server.stop()
    return score(memory, replays)


async def test_a_bot_with_memory_predicts_default_deals_no_better_than_chance(
    play_api: PlayApi,
) -> None:
    result = await _play(play_api, None, MATCHES, GAMES)
    assert result.hands >= MATCHES * (GAMES - 1) * 5, result  # enough hands to judge
    # hits ~ Binomial(cards, 3/37): 4.5 standard deviations above chance would be a leak
    bound = CHANCE + 4.5 * math.sqrt(CHANCE * (1 - CHANCE) / result.cards)
    assert result.rate <= bound, result
    assert result.exact <= 1, result  # a whole hand by luck: about 1 in 7,770 per hand


async def test_the_control_a_bot_with_memory_reads_mirrored_deals_perfectly(
    play_api: PlayApi,
) -> None:
    result = await _play(play_api, "mirrored", 3, 2)
    assert result.hands >= 3 * 5, result
    assert result.exact == result.hands and result.rate == 1.0, result
