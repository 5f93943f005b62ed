"""The one narration of engine events: the replay page's sentences and the demo's log lines."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game.narrate import card_name, describe, hand_note, log_line, points_gained
from arena.match.replay import StartFault
from engine.agents import RandomAgent
from engine.apply import apply
from engine.events import (
    ActionTaken,
    Declaration,
    EnvidoCancelled,
    EnvidoSettled,
    Event,
    FlorSettled,
    GameEnded,
    HandEnded,
    HandStarted,
    RoundEnded,
    TrucoSettled,
)
from engine.rules import Rules
from engine.start import initial_events, new_game

SEATS = ["ana", "beto"]
TEAMS = ("Ana", "Beto")
ENVIDO = EnvidoSettled(
    chain=("envido", "real_envido"),
    querido=True,
    winner=1,
    points=5,
    declarations=(Declaration(0, 27), Declaration(1, None)),
    score=(0, 5),
)


def test_cards_read_as_rank_and_suit() -> None:
    assert card_name("4E") == "4 de espada"
    assert card_name("1B") == "1 de basto"


def test_sentences_of_the_replay_page() -> None:
    cases: list[tuple[Event | StartFault, str]] = [
        (
            HandStarted(hand=0, mano=1, deal=(("1E",), ("4O",)), score=(0, 0)),
            "Hand 1: cards dealt, beto is mano",
        ),
        (ActionTaken(seat=0, action="play", card="4E"), "ana plays the 4 de espada"),
        (ActionTaken(seat=1, action="truco"), "beto: ¡Truco!"),
        (RoundEnded(round=0, plays=(), winner=None, next_leader=0), "Round 1: parda"),
        (RoundEnded(round=1, plays=(), winner=0, next_leader=0), "Round 2 to Ana"),
        (ENVIDO, "Envido + Real envido querido: 5 to Beto (ana 27, beto son buenas)"),
        (EnvidoCancelled(chain=("envido",), reason="flor_sung"), "Envido cancelled (flor sung)"),
        (
            FlorSettled((0,), "flor", "alone", winner=0, points=3, declarations=(), score=(3, 0)),
            "Flor (alone): 3 to Ana",
        ),
        (TrucoSettled(level="retruco", querido=False, seat=1), "Retruco no querido by beto"),
        (
            HandEnded(hand=2, winner=1, points=2, reason="no_quiero", shown=(), score=(4, 9)),
            "Hand 3 to Beto: 2 (no quiero)",
        ),
        (
            HandEnded(hand=2, winner=None, points=0, reason="game_over", shown=(), score=(15, 9)),
            "Hand 3 ends: the game is over",
        ),
        (GameEnded(winner=0, score=(15, 9)), "Game over: Ana wins 15-9"),
        (StartFault(seat=5, fault="timeout", detail="no answer"), "seat 5 could not start: "
         "timeout (no answer)"),
    ]  # fmt: skip
    for event, sentence in cases:
        assert describe(event, SEATS, TEAMS) == sentence


def test_points_and_hand_notes() -> None:
    assert points_gained(ENVIDO, TEAMS) == "+5 Beto"
    assert points_gained(ActionTaken(seat=0, action="truco"), TEAMS) is None
    assert hand_note(ENVIDO, TEAMS) == "envido 5 → Beto"
    assert hand_note(TrucoSettled(level="vale_cuatro", querido=True, seat=0), TEAMS) == (
        "vale cuatro quiero"
    )
    assert hand_note(RoundEnded(round=0, plays=(), winner=0, next_leader=0), TEAMS) is None


def test_lines_of_the_demo_log() -> None:
    start = HandStarted(hand=0, mano=0, deal=(("1E", "7O"), ("4O", "5B")), score=(3, 2))
    assert log_line(start, SEATS) == (
        "\n── Hand 1 · mano ana · score 3-2\n   ana: 1E 7O   beto: 4O 5B"
    )
    spoken = ActionTaken(seat=1, action="truco", say="va", sena="ancho_de_espada")
    assert log_line(spoken, SEATS) == "         beto  ¡Truco!  “va”  [seña: ancho_de_espada]"
    assert log_line(ActionTaken(seat=0, action="play", card="1E"), SEATS) == (
        "          ana  plays 1E"
    )
    assert log_line(RoundEnded(round=0, plays=(), winner=1, next_leader=1), SEATS) == (
        "               · round 1 won by beto"
    )
    assert log_line(ENVIDO, SEATS) == (
        "               · envido querido (ana 27, beto son buenas): 5 to team 1"
    )
    assert log_line(TrucoSettled(level="truco", querido=True, seat=1), SEATS) is None
    ended = HandEnded(hand=0, winner=0, points=1, reason="mazo", shown=(), score=(4, 2))
    assert log_line(ended, SEATS) == "               · hand to team 0 (mazo): +1 → 4-2"
    assert log_line(GameEnded(winner=1, score=(12, 15)), SEATS) == "\nTeam 1 wins 12-15."


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.sampled_from([2, 4]), flor=st.booleans())
def test_every_event_of_a_game_has_words(seed: int, players: int, flor: bool) -> None:
    rules = Rules(players=players, points_to_win=15, flor=flor)
    agents = [RandomAgent(seed + s) for s in range(players)]
    seats = [f"p{s}" for s in range(players)]
    state = new_game(rules, seed)
    events = list(initial_events(state))
    while not state.game_over:
        state, more = apply(state, agents[state.to_act].choose(state))
        events.extend(more)
    for event in events:
        sentence = describe(event, seats, TEAMS)
        assert sentence and "seat " not in sentence  # every seat is named
        line = log_line(event, seats)
        assert (line is None) == isinstance(event, TrucoSettled)
    winner = events[-1]
    assert isinstance(winner, GameEnded)
    assert log_line(winner, seats) == (
        f"\nTeam {winner.winner} wins {winner.score[0]}-{winner.score[1]}."
    )
