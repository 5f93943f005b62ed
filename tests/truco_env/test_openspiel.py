"""The OpenSpiel game: OpenSpiel's random simulation test and one of its algorithms playing it."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import truco_env
from engine import DECK
from truco_env.encoding import blocks


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2, "flor": True, "points_to_win": 15},
        {"players": 2, "flor": False, "points_to_win": 30},
        {"players": 4, "flor": True, "points_to_win": 15},
    ],
)
def test_random_simulation(params: dict[str, object]) -> None:
    game = pyspiel.load_game(truco_env.register_openspiel(), params)
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


def test_registration_is_idempotent_and_loadable_by_name() -> None:
    assert truco_env.register_openspiel() == truco_env.register_openspiel() == "python_truco"
    game = pyspiel.load_game("python_truco")
    assert game.num_players() == 2 and game.num_distinct_actions() == 54


def test_deals_are_chance_nodes_and_tensors_show_only_own_cards() -> None:
    game = pyspiel.load_game("python_truco", {"players": 4})
    state = game.new_initial_state()
    rng = np.random.RandomState(0)
    for _ in range(12):
        assert state.is_chance_node()
        assert len(state.chance_outcomes()) == 40 - len(state.dealt)
        tensor = np.asarray(state.information_state_tensor(0))
        assert not blocks(tensor)["own_cards"].any()  # nothing dealt to seat 0 is known yet
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randint(len(outcomes))][0])
    assert not state.is_chance_node()
    for seat in range(4):
        own = blocks(np.asarray(state.observation_tensor(seat)))["own_cards"]
        assert {DECK[i] for i in np.flatnonzero(own)} == set(state.engine.cards[seat])
        assert " ".join(state.engine.cards[seat]) in state.information_state_string(seat)
        others = {c for s in range(4) if s != seat for c in state.engine.cards[s]}
        assert not any(card in state.information_state_string(seat) for card in others)


def test_information_set_mcts_plays_whole_games() -> None:
    game = pyspiel.load_game("python_truco", {"players": 2, "points_to_win": 15})
    rng = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(
        game,
        evaluator,
        uct_c=2.0,
        max_simulations=8,
        random_state=rng,
        allow_inconsistent_action_sets=True,
    )
    bot.set_resampler(lambda state, player: state.resample_hidden(player, rng))
    decisions = 0
    for game_index in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = outcomes[rng.randint(len(outcomes))][0]
            elif state.current_player() == game_index % 2:
                action = bot.step(state)
                assert action in state.legal_actions()
                decisions += 1
            else:
                legal = state.legal_actions()
                action = legal[rng.randint(len(legal))]
            state.apply_action(action)
        assert sorted(state.returns()) == [-1.0, 1.0]
    assert decisions > 0


def test_resampling_keeps_what_the_player_knows() -> None:
    game = pyspiel.load_game("python_truco", {"players": 2})
    state = game.new_initial_state()
    rng = np.random.RandomState(1)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randint(len(outcomes))][0])
    state.apply_action(state.legal_actions()[0])
    samples = [state.resample_hidden(0, rng) for _ in range(5)]
    for sample in samples:
        assert sample.information_state_string(0) == state.information_state_string(0)
        assert sample.engine.cards[0] == state.engine.cards[0]
        assert set(sample.engine.cards[1]).isdisjoint(sample.engine.cards[0])
        assert len(sample.engine.cards[1]) == len(state.engine.cards[1])
    assert any(s.engine.cards[1] != state.engine.cards[1] for s in samples)
