"""A small linear softmax policy over the environment's encoding (numpy only).

Each action's logit is ``W[a] @ [x, c(x), 1]``, where ``c(x)`` are a few products of the open
question and what answers it (``context_features``); a card to play adds ``u @ phi(card)``, a few features
of that card in this position (its strength, whether it beats the best card on the table,
whether it is the hand's weakest or strongest, the round) so one weight vector serves every
card. Illegal actions are masked out, and so are the all-in bets (falta envido, contraflor al
resto) unless nothing else is legal. ``act`` samples while training; ``best`` (the most likely
legal action) is what the served bot plays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine import DECK, Action, Observation, strength
from truco_env.actions import NUM_ACTIONS, action_index, index_action
from truco_env.encoding import SIZE, blocks, encode

Array = npt.NDArray[np.float64]
STRENGTH = np.array([strength(card) for card in DECK], np.float64) / 14.0
CARD_FEATURES = 8
# all-in bets the policy never makes: against a weak opponent they turn a won game into a coin
# flip, and a linear policy learns that too slowly to be worth the training time
NEVER = [action_index(Action(word)) for word in ("falta_envido", "contraflor_al_resto")]


def card_features(x: npt.NDArray[Any]) -> Array:
    """phi(card) for each of the 40 cards (zero rows for cards not held)."""
    parts = blocks(x)
    own = parts["own_cards"] > 0
    phi = np.zeros((len(DECK), CARD_FEATURES))
    if not own.any():
        return phi
    table = parts["current_round"] > 0
    best_on_table = STRENGTH[table].max() if table.any() else -1.0
    held = STRENGTH[own]
    round_ = int(np.argmax(parts["round"]))
    phi[own, 0] = STRENGTH[own]
    phi[own, 1] = (STRENGTH[own] > best_on_table).astype(float)
    phi[own, 2] = (STRENGTH[own] == held.min()).astype(float)
    phi[own, 3] = (STRENGTH[own] == held.max()).astype(float)
    phi[own, 4] = float(not table.any())  # leading the round
    phi[own, 5 + min(round_, 2)] = 1.0
    return phi


def context_features(x: npt.NDArray[Any]) -> Array:
    """A few products the linear policy cannot form itself: the question open now times what
    answers it (envido points for an envido question, card strength for a truco question)."""
    parts = blocks(x)
    own = np.sort(STRENGTH[parts["own_cards"] > 0])[::-1]
    top = np.zeros(3)
    top[: len(own)] = own
    points = float(parts["envido_points"][0])
    envido_open = float(parts["envido_chain"].any() and not parts["envido_settled"][0])
    truco_open = float(parts["truco_pending"][1:].any())
    falta_open = envido_open * float(parts["envido_chain"].reshape(-1, 3)[:, 2].any())
    ours, theirs = parts["score"]
    return np.array(
        [
            *top,
            envido_open * points,
            envido_open * float(points >= 27 / 33),
            envido_open * float(points < 24 / 33),
            falta_open,
            falta_open * points,
            falta_open * float(points >= 30 / 33),
            falta_open * float(ours > theirs),
            truco_open * top[0],
            truco_open * top.sum() / 3,
            truco_open * float(top[0] >= 10 / 14),
            (1 - truco_open) * top.sum() / 3,
            float(parts["round_results"][0]),  # we won round one
            float(parts["round_results"][1]),  # they won round one
        ]
    )


CONTEXT = len(context_features(np.zeros(SIZE)))


class LinearPolicy:
    def __init__(self, w: Array | None = None, u: Array | None = None) -> None:
        self.w: Array = np.zeros((NUM_ACTIONS, SIZE + CONTEXT + 1)) if w is None else w
        self.u: Array = np.zeros(CARD_FEATURES) if u is None else u

    @staticmethod
    def features(x: npt.NDArray[Any]) -> Array:
        return np.concatenate([x.astype(np.float64), context_features(x), [1.0]])

    def probabilities(self, feats: Array, mask: npt.NDArray[Any]) -> Array:
        mask = mask.copy()
        if mask.sum() > mask[NEVER].sum():
            mask[NEVER] = 0
        logits = self.w @ feats
        logits[: len(DECK)] += card_features(feats[:SIZE]) @ self.u
        logits[mask == 0] = -np.inf
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()  # type: ignore[no-any-return]

    def gradient(
        self, feats: Array, mask: npt.NDArray[Any], action: int, advantage: float, entropy: float
    ) -> tuple[Array, Array]:
        """d (advantage * log p(action) + entropy * H(p)) / d (W, u)."""
        p = self.probabilities(feats, mask)
        logp = np.log(p, where=p > 0, out=np.zeros_like(p))
        g = -advantage * p - entropy * p * (logp + -(p * logp).sum())
        g[action] += advantage
        return np.outer(g, feats), g[: len(DECK)] @ card_features(feats[:SIZE])

    def act(self, feats: Array, mask: npt.NDArray[Any], rng: np.random.Generator) -> int:
        return int(rng.choice(NUM_ACTIONS, p=self.probabilities(feats, mask)))

    def best(self, obs: Observation, legal: list[Action]) -> Action:
        """The most likely legal action for this observation (deterministic)."""
        mask = np.zeros(NUM_ACTIONS, np.int8)
        for option in legal:
            mask[action_index(option)] = 1
        p = self.probabilities(self.features(encode(obs)), mask)
        return index_action(int(np.argmax(p)))

    def copy(self) -> LinearPolicy:
        return LinearPolicy(self.w.copy(), self.u.copy())

    def save(self, path: Path) -> None:
        np.savez_compressed(path, w=self.w, u=self.u)

    @classmethod
    def load(cls, path: Path) -> LinearPolicy:
        with np.load(path) as data:
            return cls(data["w"], data["u"])
