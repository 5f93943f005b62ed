"""The live feed, item by item (no Redis): on random 2v2 matches with señas and faults, what a
spectator has been shown of the hand in play never holds a card still in anyone's hand, a
deal, a seña or a fault's detail; a decision item is the runner's own record."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.client.connection import InProcessBot
from arena.match.replay import Decision, EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.wire.protocol import ActRequest, ActResponse
from engine.actions import SENAS
from engine.events import Event
from engine.rules import Rules
from engine.state import State
from services.live import publisher
from tests.engine.strategies import cards_in


def chatty(seed: int) -> Any:
    """A random bot that adds señas and now and then answers something illegal (a fault)."""
    rng = random.Random(seed)

    def decide(request: ActRequest) -> ActResponse:
        if rng.random() < 0.15:
            return ActResponse(action="vale_nueve")
        choice = request.legal_actions[rng.randrange(len(request.legal_actions))]
        sena = rng.choice(SENAS) if rng.random() < 0.4 else None
        return ActResponse(action=choice.action, card=choice.card, sena=sena)

    return decide


def keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | set().union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_in(v) for v in value))
    return set()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 4]))
def test_a_spectator_never_sees_a_card_still_in_a_hand(seed: int, players: int) -> None:
    writer = publisher.LivePublisher(None, "", 1)
    shown: list[dict[str, Any]] = []  # the events of the game in play, as published
    decisions: list[Decision] = []

    def progress(index: int, state: State, decision: Decision | None, events: list[Event]) -> None:
        item = msgspec.json.decode(msgspec.json.encode(writer.item(index, state, decision, events)))
        assert item["game"] == index + 1 and item["score"] == list(state.score)
        if decision is None:
            shown.clear()
        else:
            decisions.append(decision)
            assert item["events"][0] == msgspec.to_builtins(publisher.decision_item(decision))
        shown.extend(item["events"])
        assert not keys_in(item) & {"deal", "sena", "sena_seen_by", "detail", "seed"}
        starts = [k for k, e in enumerate(shown) if e["type"] == "hand_started"]
        in_play = [e for e in shown[starts[-1] :] if e["type"] not in ("hand_ended", "game_ended")]
        in_hands = {card for cards in state.cards for card in cards}
        assert not cards_in(in_play) & in_hands

    rules = Rules(players=players, points_to_win=15, sena_seen_by_opponents=0.5)
    entrants = [
        (EntrantRecord(f"b{k}", "x"), InProcessBot(f"b{k}", chatty(seed + k))) for k in range(2)
    ]
    replay = asyncio.run(
        run_match(
            "feed",
            seed,
            MatchSettings(rules=rules, games_per_match=2, fault_limit=1000),
            entrants,
            progress,  # type: ignore[arg-type]
        )
    )
    recorded = [e for game in replay.games for e in game.events if isinstance(e, Decision)]
    assert decisions == recorded  # the runner hands out the very records it stores
    assert any(d.fault == "illegal_action" for d in decisions) or len(decisions) < 60
