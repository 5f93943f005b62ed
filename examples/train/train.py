"""Train a linear Truco policy by self-play in the PettingZoo environment (numpy only).

    python examples/train/train.py --minutes 4 --out policy.npz

Each batch plays games in ``truco_env.aec_env()`` (1v1, flor, to 30): the learner against a mix
of ``builtin:random`` and frozen copies of itself. REINFORCE with a per-hand reward: each
decision is credited with the points its team won minus the points it lost in that hand (/4),
plus the game's result (+-1) spread thinly, normalised per batch. At the end it plays 400 games
against ``random`` and 200 against ``heuristic`` (greedy policy, mano alternating) and prints the
scores, the last line as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from policy import LinearPolicy

import truco_env
from arena.bots import get_strategy
from engine import Rules, apply, legal_actions, new_game, observation
from truco_env.aec import TrucoAEC


@dataclass
class Episode:
    feats: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    hands: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)


def play_training_game(
    env: TrucoAEC,
    learner: LinearPolicy,
    opponent: LinearPolicy | None,
    seat: int,
    rng: np.random.Generator,
    seed: int,
) -> Episode:
    env.reset(seed=seed)
    episode = Episode()
    gained: dict[int, list[int]] = {}
    before = env.state.score
    hand = env.state.hand
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        if env.seat(agent) == seat:
            feats = LinearPolicy.features(obs["observation"])
            action = learner.act(feats, mask, rng)
            episode.feats.append(feats)
            episode.masks.append(mask)
            episode.actions.append(action)
            episode.hands.append(hand)
        elif opponent is None:
            legal = np.flatnonzero(mask)
            action = int(legal[rng.integers(len(legal))])
        else:
            action = opponent.act(LinearPolicy.features(obs["observation"]), mask, rng)
        env.step(action)
        score = env.state.score
        if env.state.hand != hand or env.state.game_over:
            team = seat % 2
            gained[hand] = [score[team] - before[team], score[1 - team] - before[1 - team]]
            before, hand = score, env.state.hand
    won = 1.0 if env.state.winner == seat % 2 else -1.0
    for h in episode.hands:
        mine, theirs = gained.get(h, [0, 0])
        episode.returns.append(float(np.clip(mine - theirs, -4, 4)) / 4.0 + 0.5 * won)
    return episode


class Adam:
    """Adam steps for the policy's two weight arrays."""

    def __init__(self, policy: LinearPolicy, lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = [np.zeros_like(policy.w), np.zeros_like(policy.u)]
        self.v = [np.zeros_like(policy.w), np.zeros_like(policy.u)]

    def step(self, params: list[np.ndarray], grads: list[np.ndarray]) -> None:
        self.t += 1
        for i, (param, grad) in enumerate(zip(params, grads, strict=True)):
            self.m[i] = 0.9 * self.m[i] + 0.1 * grad
            self.v[i] = 0.999 * self.v[i] + 0.001 * grad * grad
            m_hat = self.m[i] / (1 - 0.9**self.t)
            v_hat = self.v[i] / (1 - 0.999**self.t)
            param += self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def update(policy: LinearPolicy, episodes: list[Episode], adam: Adam, entropy: float) -> None:
    returns = np.concatenate([e.returns for e in episodes])
    if len(returns) == 0:
        return
    adv = (returns - returns.mean()) / (returns.std() + 1e-8)
    grad_w, grad_u = np.zeros_like(policy.w), np.zeros_like(policy.u)
    i = 0
    for e in episodes:
        for feats, mask, action in zip(e.feats, e.masks, e.actions, strict=True):
            gw, gu = policy.gradient(feats, mask, action, float(adv[i]), entropy)
            grad_w += gw
            grad_u += gu
            i += 1
    adam.step([policy.w, policy.u], [grad_w / len(returns), grad_u / len(returns)])


def evaluate(policy: LinearPolicy, opponent: str, games: int, seed: int) -> float:
    """The policy's share of games won against a built-in strategy (1v1, flor, to 30)."""
    strategy = get_strategy(opponent)
    wins = 0
    for g in range(games):
        rng = random.Random(seed + g)
        state = new_game(Rules(), seed + g, mano=g % 2)
        me = (g // 2) % 2
        while not state.game_over:
            seat = state.to_act
            legal = legal_actions(state)
            obs = observation(state, seat)
            action = policy.best(obs, legal) if seat == me else strategy.decide(obs, legal, rng)
            state, _ = apply(state, action, seat)
        wins += state.winner == me
    return wins / games


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=4.0, help="training time (default 4)")
    parser.add_argument("--out", default="policy.npz", help="where to save the policy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=16, help="games per update")
    parser.add_argument("--lr", type=float, default=0.02, help="Adam's step size")
    parser.add_argument(
        "--self-play", type=float, default=0.25, help="share of games against its own copies"
    )
    parser.add_argument("--entropy", type=float, default=0.02, help="entropy bonus")
    parser.add_argument("--eval-random", type=int, default=400)
    parser.add_argument("--eval-heuristic", type=int, default=200)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    env = truco_env.aec_env(players=2, flor=True, points_to_win=30)
    policy = LinearPolicy()
    adam = Adam(policy, args.lr)
    snapshots: list[LinearPolicy] = []
    start = time.monotonic()
    games = updates = 0
    while time.monotonic() - start < args.minutes * 60:
        batch = []
        for _ in range(args.batch):
            opponent = None
            if snapshots and rng.random() < args.self_play:
                opponent = snapshots[int(rng.integers(len(snapshots)))]
            seed = int(rng.integers(2**62))
            batch.append(play_training_game(env, policy, opponent, games % 2, rng, seed))
            games += 1
        update(policy, batch, adam, args.entropy)
        updates += 1
        if updates % 25 == 0:
            snapshots = [*snapshots[-4:], policy.copy()]
            elapsed = time.monotonic() - start
            print(f"{elapsed:6.0f} s  {games} games  {updates} updates", flush=True)
    trained_s = time.monotonic() - start
    policy.save(Path(args.out))
    vs_random = evaluate(policy, "random", args.eval_random, seed=10_000)
    vs_heuristic = evaluate(policy, "heuristic", args.eval_heuristic, seed=20_000)
    print(f"trained {games} games in {trained_s:.0f} s; saved {args.out}")
    print(f"won {vs_random:.1%} of {args.eval_random} games against builtin:random")
    print(f"won {vs_heuristic:.1%} of {args.eval_heuristic} games against builtin:heuristic")
    print(
        json.dumps(
            {
                "games": games,
                "train_s": round(trained_s, 1),
                "vs_random": vs_random,
                "vs_heuristic": vs_heuristic,
                "eval_games": {"random": args.eval_random, "heuristic": args.eval_heuristic},
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
