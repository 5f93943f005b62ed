"""The table's pure parts on plain data (issue 35): the narration in both languages and in the
second person for the person, the names that tell seats apart, the hand's summary, and what a
view's events may hold (R-11: for random games, no view's events carry a card of a seat it may
not see before that card is played)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from engine.events import (
    ActionTaken,
    Declaration,
    EnvidoSettled,
    FlorSettled,
    GameEnded,
    HandEnded,
    HandStarted,
    RoundEnded,
    Shown,
)
from engine.rules import Rules
from services.web import i18n
from services.web.views.common import BotLink
from services.web.views.hand_summary import hand_summary
from services.web.views.narration import SENTENCES, Narrator
from services.web.views.table_events import table_events
from services.web.views.table_names import table_names, told_apart

POT = Path(__file__).resolve().parents[4] / "services/web/locale/messages.pot"


def spanish() -> Any:
    class Lang:
        def __enter__(self) -> None:
            i18n.activate("es")

        def __exit__(self, *exc: object) -> None:
            i18n.activate("en")

    return Lang()


def test_every_sentence_is_a_translated_catalogue_message() -> None:
    pot = POT.read_text(encoding="utf-8")
    for key, sentence in SENTENCES.items():
        assert f'msgid "{sentence}"' in pot, key
    with spanish():
        translated = {k: i18n.gettext(v) for k, v in SENTENCES.items()}
    untranslated = [k for k, v in translated.items() if v == SENTENCES[k] and "%(" not in v[:3]]
    assert [k for k in untranslated if k not in {"envido", "flor", "truco"}] == []


def test_the_person_is_spoken_to_and_the_others_named() -> None:
    narrator = Narrator(
        ["Vos", "house (1)", "house (compañero)", "house (2)"], ("nosotros", "ellos"), 0
    )
    with spanish():
        assert (
            narrator.line(ActionTaken(seat=0, action="play", card="4B")) == "Jugaste el 4 de bastos"
        )
        assert narrator.line(ActionTaken(seat=0, action="truco")) == "Cantaste truco"
        assert narrator.line(ActionTaken(seat=0, action="mazo")) == "Te fuiste al mazo"
        assert narrator.line(ActionTaken(seat=1, action="play", card="1E")) == (
            "house (1) jugó el ancho de espadas"
        )
        assert (
            narrator.line(ActionTaken(seat=3, action="no_quiero")) == "house (2) dijo «no quiero»"
        )
        assert narrator.line(ActionTaken(seat=2, action="play", card="7O", sena="tres")) == (
            "house (compañero) jugó el siete de oros, con seña: un tres"
        )
        assert narrator.line(HandStarted(hand=2, mano=0, deal=(), score=(0, 0))) == (
            "Mano 3: reparte house (2), sos mano"
        )
        assert narrator.line(HandStarted(hand=0, mano=1, deal=(), score=(0, 0))) == (
            "Mano 1: repartís vos, es mano house (1)"
        )
        envido = EnvidoSettled(
            chain=("envido", "real_envido"),
            querido=True,
            winner=1,
            points=5,
            declarations=(Declaration(0, 27), Declaration(1, 31), Declaration(2, None)),
            score=(0, 5),
        )
        assert narrator.line(envido) == (
            "Envido, real envido: querido. Dijiste «tengo 27». house (1) dijo «tengo 31». "
            "house (compañero) dijo «son buenas». 5 para ellos"
        )
        ended = HandEnded(
            hand=0,
            winner=1,
            points=2,
            reason="rounds",
            shown=(Shown(1, ("7E", "6E")),),
            score=(0, 7),
        )
        assert narrator.line(ended) == (
            "Mano 1 para ellos: 2 (por vueltas). house (1) mostró siete de espadas, 6 de espadas"
        )
        assert (
            narrator.line(GameEnded(winner=0, score=(15, 9))) == "Fin de la partida: ganamos 15 a 9"
        )
    assert narrator.line(ActionTaken(seat=0, action="envido")) == "You called envido"
    assert narrator.line(
        RoundEnded(round=0, plays=((0, "4B"), (1, "1E")), winner=1, next_leader=1)
    ) == ("Round 1 to ellos, with the ancho de espadas")


def test_names_tell_every_seat_apart() -> None:
    links = [BotLink("ana", 1), BotLink("bot", 2), BotLink("ana", 1), BotLink("bot", 2)]
    assert [n.name for n in told_apart(links)] == ["ana (1)", "bot (1)", "ana (2)", "bot (2)"]
    assert [n.name for n in told_apart([BotLink("a"), BotLink("b")])] == ["a", "b"]
    person = table_names(
        [BotLink("house", 5), BotLink("house", 6), BotLink("house", 5), BotLink("person")],
        ("person & house", "house"),
        [False, False, False, True],
    )
    assert person.you == 3
    assert [n.name for n in person.seats] == ["house (1)", "house (partner)", "house (2)", "You"]
    assert person.seats[1].id == 6  # the partner keeps its link
    assert person.teams == ("Them", "Us") and person.team_words == ("them", "us")


def test_a_hands_summary_says_what_it_came_to() -> None:
    narrator = Narrator(["ana", "beto"], ("ana", "beto"))
    events = [
        HandStarted(hand=4, mano=0, deal=(), score=(10, 3)),
        FlorSettled(
            sung=(0,),
            bet="flor",
            outcome="alone",
            winner=0,
            points=3,
            declarations=(),
            score=(13, 3),
        ),
        RoundEnded(round=0, plays=((0, "1E"), (1, "4C")), winner=0, next_leader=0),
        HandEnded(
            hand=4,
            winner=0,
            points=1,
            reason="mazo",
            shown=(Shown(0, ("1E", "7E", "3E")),),
            score=(14, 3),
        ),
    ]
    summary = hand_summary(events, narrator, ("ana", "beto"))
    assert summary is not None and summary.hand == 5
    assert summary.lines[0] == "Flor (alone). 3 to ana"
    assert summary.lines[1] == "Round 1 to ana, with the ancho de espadas"
    assert summary.shown == [("ana", ["1E", "7E", "3E"])]
    assert summary.points == "This hand: ana +4, beto +0"
    assert summary.score == "Score: ana 14, beto 3"
    assert hand_summary(events[:-1], narrator, ("ana", "beto")) is None


def _played(seed: int, players: int, flor: bool) -> Replay:
    names = ["a", "b", "c", "d"][: 2 if players == 2 else 4]
    bots = [
        (
            EntrantRecord(name, f"builtin:{name}"),
            InProcessBot(name, strategy_decider("random", seed + k)),
        )
        for k, name in enumerate(names)
    ]
    rules = Rules(players=players, points_to_win=15, flor=flor)
    return asyncio.run(run_match("m", seed, MatchSettings(rules=rules, games_per_match=1), bots))


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**31),
    players=st.sampled_from([2, 4]),
    flor=st.booleans(),
)
def test_no_view_sees_a_card_before_it_is_played(seed: int, players: int, flor: bool) -> None:
    replay = _played(seed, players, flor)
    sides = (
        [BotLink(e.name) for e in replay.entrants[0::2]],
        [BotLink(e.name) for e in replay.entrants[1::2]],
    )
    deals = [e for e in replay.games[0].events if isinstance(e, HandStarted)]
    for viewer in [f"seat{s}" for s in range(players)]:
        steps = table_events(replay, sides, 1, viewer)
        assert steps is not None
        found = msgspec.to_builtins(steps)  # as the page's script reads it
        assert found["view"] == viewer
        me = int(viewer[4:])
        hand = -1
        played: set[str] = set()
        for event in found["events"]:
            if event["type"] == "hand_started":
                hand = event["hand"]
                played = set()
                dealt = deals[hand].deal
                assert event["deal"][me] == list(dealt[me])
                assert all(cards == [None] * 3 for s, cards in enumerate(event["deal"]) if s != me)
            if event["type"] == "action" and event.get("card"):
                played.add(event["card"])
            if event["type"] == "hand_ended":
                continue  # the cards shown to prove the points are public
            hidden = {c for s, cards in enumerate(deals[hand].deal) if s != me for c in cards}
            text = msgspec.json.encode(event).decode()
            assert not [c for c in hidden - played if f'"{c}"' in text], event
