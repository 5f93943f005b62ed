"""The game boundary (arena/game/boundary.py): Truco is the registered game, and the runner, the
judge and the replay verifier play through the Game object they are given, not the engine."""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import arena.game.boundary
from arena.client.connection import InProcessBot, random_decider
from arena.game.boundary import GAMES, game_named, register
from arena.game.truco import TRUCO, Truco
from arena.match.replay import Decision, EntrantRecord, VerifyError
from arena.match.runner import MatchSettings, run_match
from arena.match.verify import verify_replay
from arena.wire.protocol import ActRequest, ActResponse
from engine.actions import Action
from engine.events import ActionTaken, HandStarted
from engine.rules import Rules
from engine.state import State


class LastResort(Truco):
    """Truco whose fallback is the LAST legal action (the documented one plays the weakest
    card or answers no): a runner that hard-coded the fallback would not play these."""

    def __init__(self) -> None:
        self.applied = 0

    def fallback(self, legal: Sequence[Action]) -> Action:
        return legal[-1]

    def apply(self, state: State, action: Action, seat: int) -> tuple[State, list]:  # type: ignore[type-arg]
        self.applied += 1
        return super().apply(state, action, seat)


def always_wrong(request: ActRequest) -> ActResponse:
    return ActResponse(action="vale_nueve")


def test_truco_is_the_registered_game() -> None:
    assert GAMES == {"truco": TRUCO} and game_named("truco") is TRUCO
    with pytest.raises(KeyError):
        game_named("chess")


def test_a_game_registers_itself_and_the_boundary_names_none() -> None:
    """Registration is the game module's own act (OpenSpiel's way): a fresh interpreter that
    imports only the boundary module has Truco registered (the package imports its games), and
    the boundary's source imports no game."""
    code = "from arena.game.boundary import GAMES; print(sorted(GAMES))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['truco']"
    boundary = ast.parse(Path(arena.game.boundary.__file__).read_text())
    imported = {n.module for n in ast.walk(boundary) if isinstance(n, ast.ImportFrom)}
    assert not any(m and m.startswith("arena") for m in imported), imported


def test_a_second_game_under_a_taken_name_is_refused() -> None:
    register(TRUCO)  # the same object again: nothing changes
    assert GAMES == {"truco": TRUCO}
    with pytest.raises(ValueError, match="'truco' is already registered"):
        register(LastResort())
    assert GAMES == {"truco": TRUCO}


def test_the_runner_plays_the_fallback_and_the_rules_of_the_game_it_is_given() -> None:
    game = LastResort()
    entrants = [
        (EntrantRecord("wrong", "x"), InProcessBot("wrong", always_wrong)),
        (EntrantRecord("random", "x"), InProcessBot("random", random_decider(3))),
    ]
    settings = MatchSettings(rules=Rules(points_to_win=15), games_per_match=4, fault_limit=1000)
    replay = asyncio.run(run_match("g1", 5, settings, entrants, game=game))
    assert game.applied > 0
    faulted = 0
    for played in replay.games:
        state = TRUCO.new_game(settings.rules, played.seed)
        pending: Decision | None = None
        for event in played.events:
            if isinstance(event, Decision):
                pending = event
            elif isinstance(event, ActionTaken):
                legal = TRUCO.legal_actions(state)
                if pending is not None and pending.fault is not None:
                    assert (event.action, event.card) == legal[-1].key  # the game's fallback
                    assert pending.fault == "illegal_action" and pending.fallback
                    faulted += 1
                state, _ = TRUCO.apply(state, Action(event.action, event.card), event.seat)
    assert faulted >= 4
    # the replay verifies through the game: a game whose apply refuses everything fails it
    verify_replay(replay, game)

    class Refusing(Truco):
        def apply(self, state: State, action: Action, seat: int) -> tuple[State, list]:  # type: ignore[type-arg]
            raise self.error("refused")

    with pytest.raises(VerifyError, match="refused"):
        verify_replay(replay, Refusing())


def test_the_game_describes_its_events() -> None:
    state = TRUCO.new_game(Rules(flor=False), 2)
    (deal,) = TRUCO.initial_events(state)
    assert isinstance(deal, HandStarted)
    names, teams = ["ana", "beto"], ("los de ana", "los de beto")
    assert "is mano" in TRUCO.describe(deal, names, teams)
    card = TRUCO.legal_actions(state)[0]
    _, events = TRUCO.apply(state, card, TRUCO.to_act(state))
    line = TRUCO.describe(events[0], names, teams)
    assert line.startswith(f"{names[state.to_act]} plays the ")
