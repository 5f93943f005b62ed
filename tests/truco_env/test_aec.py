"""The PettingZoo environment: PettingZoo's own API and seed tests, and what the encoding holds."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import truco_env
from engine import apply, new_game
from truco_env.actions import CARD_INDEX, NUM_ACTIONS, index_action
from truco_env.encoding import SIZE, blocks, card_blocks

CONFIGS = [
    {"players": 2, "flor": True, "points_to_win": 30},
    {"players": 2, "flor": False, "points_to_win": 15},
    {"players": 4, "flor": True, "points_to_win": 15},
    {"players": 4, "flor": False, "points_to_win": 30},
]


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_pettingzoo_api_and_seed_tests(config: dict[str, object]) -> None:
    api_test(truco_env.aec_env(**config), num_cycles=300)  # type: ignore[arg-type]
    seed_test(lambda: truco_env.aec_env(**config), num_cycles=300)  # type: ignore[arg-type]


def _play_random(env: truco_env.aec.TrucoAEC, rng: random.Random, check: object) -> list[int]:
    """Play one game with random legal actions, calling ``check(env)`` at every step."""
    chosen = []
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        check(env)  # type: ignore[operator]
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.randrange(len(legal))])
        chosen.append(action)
        env.step(action)
    return chosen


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), config=st.sampled_from(CONFIGS))
def test_encoding_never_holds_another_seats_unplayed_card(
    seed: int, config: dict[str, object]
) -> None:
    env = truco_env.aec_env(**config)  # type: ignore[arg-type]
    env.reset(seed=seed)

    def check(env: truco_env.aec.TrucoAEC) -> None:
        state = env.state
        for agent in env.possible_agents:
            seat = env.seat(agent)
            vector = env.observe(agent)["observation"]
            assert vector.shape == (SIZE,) and vector.min() >= 0 and vector.max() <= 1
            hidden = {c for s, cards in enumerate(state.cards) if s != seat for c in cards}
            for name, _, values in card_blocks(vector):
                leaked = {c for c in hidden if values[CARD_INDEX[c]]}
                assert not leaked, f"{agent} sees {leaked} in {name}"
            own = {c for c in state.cards[seat]}
            assert {c for c in own if blocks(vector)["own_cards"][CARD_INDEX[c]]} == own

    _play_random(env, random.Random(seed), check)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), config=st.sampled_from(CONFIGS))
def test_the_environments_actions_replay_through_the_engine(
    seed: int, config: dict[str, object]
) -> None:
    env = truco_env.aec_env(**config)  # type: ignore[arg-type]
    env.reset(seed=seed)
    chosen = _play_random(env, random.Random(seed), lambda env: None)
    state = new_game(env.rules, env.seed)
    for action in chosen:
        state, _ = apply(state, index_action(action))
    assert state == env.state
    assert state.game_over
    assert not env.agents  # every agent was stepped out after the game


def test_rewards_go_to_the_winning_team() -> None:
    env = truco_env.aec_env(players=4, points_to_win=15)
    env.reset(seed=11)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = random.Random(11)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    winner = env.state.winner
    assert totals == {f"player_{s}": 1.0 if s % 2 == winner else -1.0 for s in range(4)}


def test_an_illegal_action_is_refused_with_the_legal_ones() -> None:
    env = truco_env.aec_env()
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="the legal actions are"):
        env.step(illegal)
    with pytest.raises(ValueError, match="from 0 to"):
        env.step(NUM_ACTIONS)


def test_the_docs_table_is_the_layout() -> None:
    from pathlib import Path

    from truco_env.encoding import LAYOUT

    docs = (Path(__file__).resolve().parents[2] / "docs" / "training.md").read_text()
    at = 0
    for name, size in LAYOUT:
        assert f"| {at}-{at + size - 1} | `{name}` | {size} |" in docs, name
        at += size
    assert f"float32[{SIZE}]" in docs
