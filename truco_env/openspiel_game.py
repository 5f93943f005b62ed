"""Truco as an OpenSpiel Python game: ``python_truco``.

Each hand's deal is a run of chance nodes (one card at a time, uniform over the cards left, three
per seat in seat order), so OpenSpiel's algorithms see the luck explicitly; the engine plays the
rest. Parameters: ``players`` (2 or 4), ``flor`` (bool), ``points_to_win`` (15 or 30). Returns
come at the end: +1 for each seat of the winning team, -1 for the others (zero-sum).

The information-state string is perfect recall (every deal the player received and every action
taken, in order); the tensors are ``truco_env.encoding`` of what the seat may know now (the whole
current hand, the scores and the señas it saw), the same as the PettingZoo observation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from engine import DECK, Rules, State, apply, legal_actions, new_game, observation
from engine.start import with_deal
from truco_env.actions import NUM_ACTIONS, action_index, describe, index_action
from truco_env.encoding import SIZE, blocks, encode

GAME_NAME = "python_truco"
_DEFAULTS: dict[str, Any] = {"players": 2, "flor": True, "points_to_win": 30}
# a hand has at most a few dozen decisions and every hand scores at least one point
_MAX_DECISIONS_PER_HAND = 40


def _game_type() -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Python Argentine Truco",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS),
    )


def _game_info(rules: Rules) -> pyspiel.GameInfo:
    hands = 2 * rules.points_to_win  # each hand gives at least one point to one team
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=len(DECK),
        num_players=rules.players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=hands * (_MAX_DECISIONS_PER_HAND + 3 * rules.players),
    )


class TrucoGame(pyspiel.Game):  # type: ignore[misc]
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        self.rules = Rules.from_dict(
            {
                "players": int(merged["players"]),
                "flor": bool(merged["flor"]),
                "points_to_win": int(merged["points_to_win"]),
            }
        )
        super().__init__(_game_type(), _game_info(self.rules), merged)

    def new_initial_state(self) -> TrucoState:
        return TrucoState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> TrucoObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        return TrucoObserver(perfect_recall)


class TrucoState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: TrucoGame) -> None:
        super().__init__(game)
        self.engine: State = new_game(game.rules, 0)
        self.dealt: list[str] = []  # cards dealt so far in the current hand
        self.dealing = True
        self.memory: list[list[str]] = [[] for _ in range(game.rules.players)]

    # ------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        if self.engine.game_over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.dealing:
            return int(pyspiel.PlayerId.CHANCE)
        return self.engine.to_act

    def _legal_actions(self, player: int) -> list[int]:
        if self.dealing or self.engine.game_over or player != self.engine.to_act:
            return []
        return sorted(action_index(a) for a in legal_actions(self.engine))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [i for i, card in enumerate(DECK) if card not in self.dealt]
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        if self.dealing:
            self._deal_card(DECK[action])
            return
        seat = self.engine.to_act
        hand = self.engine.hand
        self.engine, _ = apply(self.engine, index_action(action), seat)
        for memory in self.memory:
            memory.append(f"s{seat}:{describe(action)}")
        if not self.engine.game_over and self.engine.hand != hand:
            self.dealing, self.dealt = True, []

    def _deal_card(self, card: str) -> None:
        self.dealt.append(card)
        players = self.engine.players
        if len(self.dealt) < 3 * players:
            return
        deal = [self.dealt[3 * s : 3 * s + 3] for s in range(players)]
        self.engine = with_deal(self.engine, deal)
        self.dealing = False
        for seat, memory in enumerate(self.memory):
            score = self.engine.score
            memory.append(
                f"hand{self.engine.hand} {score[0]}-{score[1]} cards:{' '.join(deal[seat])}"
            )

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {DECK[action]}"
        return describe(action)

    def is_terminal(self) -> bool:
        return bool(self.engine.game_over)

    def returns(self) -> list[float]:
        players = self.engine.players
        if not self.engine.game_over:
            return [0.0] * players
        return [1.0 if seat % 2 == self.engine.winner else -1.0 for seat in range(players)]

    def __str__(self) -> str:
        hands = " | ".join(" ".join(cards) for cards in self.engine.cards)
        return f"hand {self.engine.hand} score {self.engine.score} cards [{hands}]"

    # ------------------------------------------------------------ for observers
    def tensor_for(self, seat: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        vector = encode(observation(self.engine, seat))
        if self.dealing:  # the placeholder deal is nobody's: hide it until the hand is dealt
            parts = blocks(vector)
            for name in ("own_cards", "has_flor", "envido_points"):
                parts[name][:] = 0.0
        return vector

    def observation_text(self, seat: int) -> str:
        obs = observation(self.engine, seat)
        cards = "" if self.dealing else " ".join(obs.cards)
        table = " ".join(f"{s}:{c}" for rnd in obs.rounds for s, c in rnd)
        return (
            f"p{seat} hand{obs.hand} score {obs.score[0]}-{obs.score[1]} mano {obs.mano} "
            f"cards [{cards}] table [{table}] truco {obs.truco or '-'}"
            f"{'?' if obs.truco_pending else ''} envido {'/'.join(obs.envido) or '-'}"
        )

    def resample_hidden(self, seat: int, rng: np.random.RandomState) -> TrucoState:
        """A copy whose cards unseen by ``seat`` (others' unplayed cards) are dealt again at
        random, consistent with its own cards and every card played; for ISMCTS."""
        clone: TrucoState = self.clone()
        if self.dealing or self.engine.game_over:
            return clone
        engine = self.engine
        played = {card for plays in (*_rounds(engine), engine.trick) for _, card in plays}
        known = set(engine.cards[seat]) | played
        pool = [card for card in DECK if card not in known]
        order = rng.permutation(len(pool))
        new_cards, new_deal, at = [], [], 0
        for s, cards in enumerate(engine.cards):
            if s == seat:
                new_cards.append(cards)
                new_deal.append(engine.deal[s])
                continue
            fresh = tuple(pool[i] for i in order[at : at + len(cards)])
            at += len(cards)
            new_cards.append(fresh)
            new_deal.append(tuple(c for c in engine.deal[s] if c not in cards) + fresh)
        replaced = engine.clone()
        replaced.cards, replaced.deal = tuple(new_cards), tuple(new_deal)
        clone.engine = replaced
        return clone


def _rounds(engine: State) -> list[tuple[tuple[int, str], ...]]:
    from engine.events import RoundEnded

    return [event.plays for event in engine.log if isinstance(event, RoundEnded)]


class TrucoObserver:
    """The PyObserver: one flat tensor (``truco_env.encoding``) and a string per player."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(SIZE, np.float32)
        self.dict = blocks(self.tensor)

    def set_from(self, state: TrucoState, player: int) -> None:
        self.tensor[:] = state.tensor_for(player)

    def string_from(self, state: TrucoState, player: int) -> str:
        if self.perfect_recall:
            return f"p{player} " + " ".join(state.memory[player])
        return state.observation_text(player)


_registered = False


def register() -> str:
    """Register ``python_truco`` with OpenSpiel (idempotent) and return the name."""
    global _registered
    if not _registered:
        pyspiel.register_game(_game_type(), TrucoGame)
        _registered = True
    return GAME_NAME
