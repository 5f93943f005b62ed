"""The scenario-file runner (docs/scenarios.md): scripted hands with known outcomes.

``run_scenario(data)`` plays a decoded scenario and returns its :class:`ScenarioOutcome`;
``check_scenario(data)`` also compares it with the file's ``expect`` and returns the first
difference, or None. Both raise :class:`ScenarioError` for a file that is not a valid scenario.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.actions import Action, action_from_dict
from engine.apply import apply
from engine.cards import envido_points
from engine.errors import EngineError, IllegalAction, InvalidAction
from engine.events import HandEnded
from engine.legal import legal_actions
from engine.rules import Rules
from engine.start import new_game, with_deal
from engine.state import State


class ScenarioError(EngineError, ValueError):
    """The file is not a valid scenario."""


class ScenarioOutcome(msgspec.Struct, omit_defaults=True):
    score: tuple[int, int]
    hand_winners: list[int | None]
    game_over: bool
    winner: int | None
    envido_points: list[int]
    illegal: dict[str, int] | None = None
    legal_after: list[str] | None = None


KNOWN_KEYS = {"name", "rules", "score", "hands", "expect", "seed", "description"}
EXPECT_KEYS = {
    "score",
    "hand_winners",
    "game_over",
    "winner",
    "illegal",
    "envido_points",
    "legal_after",
}


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ScenarioError(message)


def _parse_action(raw: Any, where: str) -> tuple[int, Action]:
    _require(isinstance(raw, dict), f"{where}: an action must be an object")
    _require("seat" in raw and "action" in raw, f"{where}: an action needs 'seat' and 'action'")
    seat = raw["seat"]
    _require(isinstance(seat, int) and not isinstance(seat, bool), f"{where}: bad seat {seat!r}")
    body = {k: v for k, v in raw.items() if k != "seat"}
    try:
        return seat, action_from_dict(body)
    except InvalidAction as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def run_scenario(data: Any) -> ScenarioOutcome:
    """Play a scenario and report what came out, whatever its ``expect`` says."""
    _require(isinstance(data, dict), "a scenario must be a JSON object")
    unknown = set(data) - KNOWN_KEYS
    _require(not unknown, f"unknown scenario keys: {', '.join(sorted(unknown))}")
    try:
        rules = Rules.from_dict(data.get("rules") or {})
    except EngineError as exc:
        raise ScenarioError(str(exc)) from None
    hands = data.get("hands")
    _require(isinstance(hands, list) and len(hands) > 0, "'hands' must be a non-empty list")
    expect = data.get("expect") or {}
    _require(isinstance(expect, dict), "'expect' must be an object")
    legal_spec = expect.get("legal_after")
    if legal_spec is not None:
        _require(
            isinstance(legal_spec, dict) and {"hand", "action", "seat"} <= set(legal_spec),
            "'legal_after' needs 'hand', 'action' and 'seat'",
        )

    first = hands[0]
    _require(isinstance(first, dict), "each hand must be an object")
    try:
        state = new_game(
            rules,
            int(data.get("seed", 0)),
            score=data.get("score", [0, 0]),
            mano=first.get("mano", 0),
        )
    except EngineError as exc:
        raise ScenarioError(str(exc)) from None

    hand_winners: list[int | None] = []
    illegal: dict[str, int] | None = None
    legal_after: list[str] | None = None

    def note_legal(hand: int, index: int, current: State) -> None:
        nonlocal legal_after
        if legal_spec and legal_spec["hand"] == hand and legal_spec["action"] == index:
            seat = legal_spec["seat"]
            words = {a.action for a in legal_actions(current)} if current.to_act == seat else set()
            legal_after = sorted(words)

    last_deal = state.deal
    for h, hand in enumerate(hands):
        where = f"hand {h}"
        _require(isinstance(hand, dict), f"{where}: must be an object")
        if state.game_over:
            raise ScenarioError(f"{where}: the game was already over")
        _require(state.hand == h, f"{where}: hand {h - 1} was not over when its actions ran out")
        try:
            if "deal" in hand:
                state = with_deal(state, hand["deal"], hand.get("mano"))
            elif "mano" in hand and hand["mano"] != state.mano:
                state = with_deal(state, state.deal, hand["mano"])
        except EngineError as exc:
            raise ScenarioError(f"{where}: {exc}") from None
        last_deal = state.deal
        results: list[int | None] = []
        actions = hand.get("actions", [])
        _require(isinstance(actions, list), f"{where}: 'actions' must be a list")
        note_legal(h, -1, state)
        for j, raw in enumerate(actions):
            seat, action = _parse_action(raw, f"{where}, action {j}")
            try:
                state, events = apply(state, action, seat)
            except (IllegalAction, InvalidAction):
                illegal = {"hand": h, "action": j}
                break
            results.extend(e.winner for e in events if isinstance(e, HandEnded))
            note_legal(h, j, state)
        hand_winners.append(results[0] if results else None)
        if illegal is not None:
            break
    return ScenarioOutcome(
        score=state.score,
        hand_winners=hand_winners,
        game_over=state.game_over,
        winner=state.winner,
        envido_points=[envido_points(cards) for cards in last_deal],
        illegal=illegal,
        legal_after=legal_after,
    )


def check_scenario(data: Any) -> tuple[ScenarioOutcome, str | None]:
    """Run a scenario and compare with its ``expect``: (outcome, first difference or None)."""
    outcome = run_scenario(data)
    expect = data.get("expect") or {}
    unknown = set(expect) - EXPECT_KEYS
    if unknown:
        raise ScenarioError(f"unknown 'expect' keys: {', '.join(sorted(unknown))}")
    if outcome.illegal is not None and "illegal" not in expect:
        h, j = outcome.illegal["hand"], outcome.illegal["action"]
        return outcome, f"action {j} of hand {h} was rejected as illegal, which was not expected"
    actual: dict[str, Any] = {
        "score": list(outcome.score),
        "hand_winners": outcome.hand_winners,
        "game_over": outcome.game_over,
        "winner": outcome.winner,
        "envido_points": outcome.envido_points,
        "illegal": outcome.illegal,
    }
    for key in ("illegal", "score", "hand_winners", "game_over", "winner", "envido_points"):
        if key in expect:
            wanted = expect[key]
            if isinstance(wanted, list) and key != "hand_winners":
                wanted = list(wanted)
            if actual[key] != wanted:
                return outcome, f"{key}: expected {wanted!r}, got {actual[key]!r}"
    if "legal_after" in expect:
        wanted_words = sorted(set(expect["legal_after"].get("actions", [])))
        got = outcome.legal_after
        if got is None:
            return outcome, "legal_after: that point of the scenario was never reached"
        if got != wanted_words:
            return outcome, f"legal_after: expected {wanted_words}, got {got}"
    return outcome, None
