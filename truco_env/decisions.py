"""Decision datasets: one row per decision a seat made in a finished match's replay.

A row holds what that seat knew when it decided (``engine.observation`` at that moment: its own
cards, never another seat's unplayed ones), the legal actions, the action applied, the bot's
latency and fault (a faulted decision's action is the platform's fallback, marked
``fallback``), and the game's final outcome for the seat's team (+1 won, -1 lost, 0 unfinished).
With ``tensors=True`` a row also carries the environment's encoding (``observation_tensor``,
``action_mask``, ``action_index``), the same as ``truco_env.aec_env`` gives a learner.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from arena.match.replay import Decision, GameRecord, Replay
from engine import Action, Observation, Rules, apply, legal_actions, new_game, observation
from engine.events import ActionTaken

ROW_FORMAT = "truco-decisions/1"


def _outcome(game: GameRecord, seat: int) -> int:
    if game.winner is None:
        return 0
    return 1 if game.teams[seat % 2] == game.winner else -1


def game_rows(
    replay: Replay, game: GameRecord, *, tensors: bool = False
) -> Iterator[dict[str, Any]]:
    """The decision rows of one game, in the order they were made."""
    rules: Rules = replay.rules
    state = new_game(rules, game.seed)
    pending: Decision | None = None
    index = 0
    for event in game.events:
        if isinstance(event, Decision):
            pending = event
            continue
        if not isinstance(event, ActionTaken):
            continue
        seat = event.seat
        obs = observation(state, seat)
        legal = legal_actions(state)
        action = Action(event.action, event.card, event.say, event.sena)
        row: dict[str, Any] = {
            "format": ROW_FORMAT,
            "match_id": replay.match_id,
            "game": game.number,
            "decision": index,
            "seat": seat,
            "entrant": replay.entrants[game.entrant_at(seat)].name,
            "observation": msgspec.to_builtins(obs),
            "legal_actions": [msgspec.to_builtins(a) for a in legal],
            "action": msgspec.to_builtins(action),
            "latency_ms": pending.latency_ms if pending and pending.seat == seat else None,
            "fault": pending.fault if pending and pending.seat == seat else None,
            "fallback": bool(pending and pending.seat == seat and pending.fallback),
            "outcome": _outcome(game, seat),
        }
        if tensors:
            row.update(tensor_fields(obs, legal, action))
        yield row
        state, _ = apply(state, action, seat)
        pending = None
        index += 1


def replay_rows(replay: Replay, *, tensors: bool = False) -> Iterator[dict[str, Any]]:
    """Every decision row of a match's replay."""
    for game in replay.games:
        yield from game_rows(replay, game, tensors=tensors)


def tensor_fields(obs: Observation, legal: list[Action], action: Action) -> dict[str, Any]:
    """The environment's encoding of one decision (needs numpy: the ``rl`` extra)."""
    import numpy as np

    from truco_env.actions import NUM_ACTIONS, action_index
    from truco_env.encoding import encode

    mask = np.zeros(NUM_ACTIONS, np.int8)
    for option in legal:
        mask[action_index(option)] = 1
    return {
        "observation_tensor": encode(obs).tolist(),
        "action_mask": mask.tolist(),
        "action_index": action_index(action),
    }


def row_observation(row: dict[str, Any]) -> Observation:
    """The row's observation decoded back into the engine's type (for re-encoding)."""
    return msgspec.convert(row["observation"], Observation)
