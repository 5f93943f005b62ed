"""A replay's verification by re-simulation, through the game (:mod:`arena.game.boundary`).

:func:`verify_replay` checks that every game's seed is the one the match seed and ``deals``
give, plays every game again through the game's rules from its seed and the actions taken,
recomputes the result, and raises :class:`~arena.match.replay.VerifyError` on any difference.
"""

from __future__ import annotations

import msgspec

from arena.game.boundary import TrucoGame
from arena.game.deals import game_seed, seating
from arena.game.truco import TRUCO
from arena.match.replay import (
    FORMAT,
    LEGACY_FORMAT,
    Decision,
    GameRecord,
    Replay,
    ReplayEvent,
    StartFault,
    VerifyError,
    decide_result,
)
from engine.actions import Action
from engine.events import ActionTaken, Event
from engine.rules import Rules


def _engine_events(events: list[ReplayEvent]) -> list[Event]:
    return [e for e in events if not isinstance(e, Decision | StartFault)]


def verify_game(rules: Rules, game: GameRecord, rules_of: TrucoGame = TRUCO) -> None:
    """Play ``game`` again through ``rules_of`` from its seed and the recorded actions."""
    recorded = _engine_events(game.events)
    state = rules_of.new_game(rules, game.seed)
    produced: list[Event] = rules_of.initial_events(state)
    for event in recorded:
        if isinstance(event, ActionTaken):
            action = Action(event.action, event.card, event.say, event.sena)
            try:
                state, caused = rules_of.apply(state, action, event.seat)
            except rules_of.error as exc:
                raise VerifyError(
                    f"game {game.number}: recorded {action} is illegal: {exc}"
                ) from None
            produced.extend(caused)
    if len(produced) != len(recorded):
        raise VerifyError(
            f"game {game.number}: {len(recorded)} events recorded, {len(produced)} re-simulated"
        )
    for index, (a, b) in enumerate(zip(recorded, produced, strict=True)):
        if a != b:
            raise VerifyError(
                f"game {game.number}, event {index}: recorded "
                f"{msgspec.json.encode(a).decode()} but re-simulation gives "
                f"{msgspec.json.encode(b).decode()}"
            )
    score = rules_of.score(state)
    if score != tuple(game.score):
        raise VerifyError(f"game {game.number}: score {game.score} recorded, {score} played")
    if game.forfeit is None:
        winner = rules_of.winner(state)
        if not rules_of.over(state) or winner is None:
            raise VerifyError(f"game {game.number}: the game was not finished")
        if game.winner != game.teams[winner]:
            raise VerifyError(f"game {game.number}: winner {game.winner} recorded")


def verify_replay(replay: Replay, rules_of: TrucoGame = TRUCO) -> None:
    """Re-simulate every game and recompute the result; raise :class:`VerifyError` if anything
    differs from what the replay records."""
    if replay.format not in (FORMAT, LEGACY_FORMAT):
        raise VerifyError(f"unknown replay format {replay.format!r}, expected {FORMAT!r}")
    for game in replay.games:
        expected_seed = game_seed(replay.seed, game.number - 1, replay.deals, replay.attempt)
        if game.seed != expected_seed:
            raise VerifyError(
                f"game {game.number}: seed {game.seed} recorded, but match seed {replay.seed} "
                f"with {replay.deals} deals, attempt {replay.attempt}, gives {expected_seed}"
            )
        if tuple(game.teams) != seating(game.number - 1):
            raise VerifyError(f"game {game.number}: seating {game.teams} recorded")
        verify_game(replay.rules, game, rules_of)
    if replay.result.walkover:
        return
    expected = decide_result(replay.games)
    recorded = replay.result
    fields = ["games_won", "tantos", "winner", "reason", "forfeit", "faults"]
    if recorded.causes:  # replays from before causes were recorded have none
        fields.append("causes")
    for field in fields:
        if getattr(expected, field) != getattr(recorded, field):
            raise VerifyError(
                f"result {field}: recorded {getattr(recorded, field)!r}, "
                f"games give {getattr(expected, field)!r}"
            )
