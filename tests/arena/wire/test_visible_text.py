"""What a bot's ``say`` may carry into a replay (arena/wire/visible_text.py, docs/protocol.md): issue
21 found NUL and U+202E RIGHT-TO-LEFT OVERRIDE accepted, and an override reorders the replay's
line when it is shown."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.client.connection import InProcessBot, random_decider
from arena.game.narrate import log_line
from arena.match.replay import EntrantRecord, Replay, load_replay
from arena.match.runner import MatchSettings, run_match
from arena.match.verify import verify_replay
from arena.wire.protocol import ActRequest, ActResponse
from arena.wire.visible_text import clean_say, hidden_characters, is_hidden
from engine.events import ActionTaken

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_clean_say_keeps_what_shows_and_drops_what_does_not() -> None:
    assert clean_say(None) is None
    assert clean_say("¡Quiero retruco! ✓ 中文 é") == "¡Quiero retruco! ✓ 中文 é"
    assert clean_say("nul\x00here") == "nul here"
    assert clean_say("two\nlines\u2028three") == "two lines three"
    assert clean_say("\u202etruco\u202c") == "truco"  # the override that reorders the line
    assert clean_say("a\u2067b\u2069c\u200bd\u200de\ufeff") == "abcde"
    assert clean_say("love \u2764\ufe0f h\u034fi \u3164\u2800") == "love \u2764 hi "
    assert hidden_characters("ok\u202e\x00") == ["U+202E RIGHT-TO-LEFT OVERRIDE", "U+0000"]


@given(st.text(max_size=50))
def test_a_cleaned_say_has_nothing_hidden_and_is_clean_already(text: str) -> None:
    cleaned = clean_say(text)
    assert cleaned is not None and not any(is_hidden(c) for c in cleaned)
    assert clean_say(cleaned) == cleaned
    assert len(cleaned) <= len(text)


async def test_a_bots_say_reaches_the_replay_without_controls_or_overrides() -> None:
    def talker(request: ActRequest) -> ActResponse:
        choice = request.legal_actions[0]
        return ActResponse(action=choice.action, card=choice.card, say="gg\x00\u202eevil\u202c")

    replay = await run_match(
        "say",
        7,
        MatchSettings(games_per_match=1),
        [
            (EntrantRecord("talker", "builtin:t"), InProcessBot("talker", talker)),
            (EntrantRecord("b", "builtin:random"), InProcessBot("b", random_decider(2))),
        ],
    )
    said = [e.say for g in replay.games for e in g.events if isinstance(e, ActionTaken) and e.say]
    assert said and set(said) == {"gg evil"}
    seats = ["talker", "b"]
    lines = [log_line(e, seats) for e in replay.games[0].events if isinstance(e, ActionTaken)]
    assert any("“gg evil”" in (line or "") for line in lines)
    verify_replay(replay)  # the trusted side plays the cleaned words again
    # a replay stored before the rule still verifies with the words it recorded
    data = msgspec.to_builtins(replay)
    for event in data["games"][0]["events"]:
        if event.get("say") == "gg evil":
            event["say"] = "gg\x00\u202eevil\u202c"
    old = load_replay(msgspec.json.encode(data))
    assert isinstance(old, Replay)
    verify_replay(old)


async def test_over_http_a_say_with_nul_and_an_override_is_recorded_clean() -> None:
    """The attack of issue 21 as made: a bot server on 127.0.0.1 answers every /act with a
    ``say`` holding NUL and U+202E (JSON escapes, through the guarded client)."""
    from arena.client.signing import generate_secret
    from arena.match.entrants import connect
    from arena.sdk import BotServer

    def talker(request: ActRequest) -> ActResponse:
        choice = request.legal_actions[0]
        return ActResponse(action=choice.action, card=choice.card, say="ok\x00\u202ekcab")

    secret = generate_secret()
    server = BotServer(talker, name="talker", secret=secret, host="127.0.0.1", port=0)
    server.start()
    try:
        http = connect(
            server.url, seed=1, secret=secret, timeout_ms=2000, allow_loopback=True, label="t"
        )
        other = (EntrantRecord("b", "builtin:random"), InProcessBot("b", random_decider(3)))
        replay = await run_match("say-http", 9, MatchSettings(games_per_match=1), [http, other])
    finally:
        server.stop()
    said = {e.say for g in replay.games for e in g.events if isinstance(e, ActionTaken) and e.say}
    assert said == {"ok kcab"}
    stored = msgspec.json.encode(replay).decode()
    assert "\u202e" not in stored and "\\u0000" not in stored
