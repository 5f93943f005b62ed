"""Truco as a PettingZoo AEC environment, in the shape of PettingZoo's classic card games.

One episode is one game (to 15 or 30). Agents are ``player_0`` .. ``player_{n-1}``, one per seat;
seats 0 and 2 are a team in 2v2. Each observation is ``{"observation", "action_mask"}``: the
encoding of what that seat may know (``truco_env.encoding``) and a 0/1 mask over the fixed action
space (``truco_env.actions``) with exactly the legal actions of the agent to act (all zeros for
the others). At the game's end each seat of the winning team gets +1 and the others -1.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from engine import Rules, State, apply, legal_actions, new_game, observation
from truco_env.actions import NUM_ACTIONS, action_index, index_action
from truco_env.encoding import SIZE, Vector, encode
from truco_env.render import render_text

Mask = np.ndarray[Any, np.dtype[np.int8]]


def legal_mask(state: State) -> Mask:
    mask = np.zeros(NUM_ACTIONS, np.int8)
    if not state.game_over:
        for action in legal_actions(state):
            mask[action_index(action)] = 1
    return mask


RENDER_MODES = ("ansi", "human")


class TrucoAEC(AECEnv):  # type: ignore[misc]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "truco_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        flor: bool = True,
        points_to_win: int = 30,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None")
        self.rules = Rules.from_dict(
            {"players": players, "flor": flor, "points_to_win": points_to_win}
        )
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agents = self.possible_agents[:]
        self._action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._rng = np.random.default_rng()
        self.state: State = new_game(self.rules, 0)
        self.seed: int = 0

    # ------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    # ------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.seed = int(self._rng.integers(0, 2**63 - 1))
        self.state = new_game(self.rules, self.seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.to_act]

    def seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, Vector | Mask]:
        seat = self.seat(agent)
        obs = encode(observation(self.state, seat))
        if self.state.game_over or seat != self.state.to_act:
            mask = np.zeros(NUM_ACTIONS, np.int8)
        else:
            mask = legal_mask(self.state)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act; None is only for agents whose game is over")
        chosen = index_action(int(action))
        seat = self.seat(agent)
        if not legal_mask(self.state)[int(action)]:
            legal = ", ".join(str(a) for a in legal_actions(self.state))
            raise ValueError(f"{agent} cannot {chosen} now; the legal actions are: {legal}")
        self._cumulative_rewards[agent] = 0.0
        self.state, _ = apply(self.state, chosen, seat)
        if self.state.game_over:
            winner = self.state.winner
            for a in self.agents:
                self.rewards[a] = 1.0 if self.seat(a) % 2 == winner else -1.0
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            self.agent_selection = self.agents[(seat + 1) % len(self.agents)]
        else:
            self.agent_selection = self.possible_agents[self.state.to_act]
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return render_text(self.state)

    def close(self) -> None:
        pass
