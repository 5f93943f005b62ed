"""The example exchange of docs/protocol.md, produced by the code itself.

Every JSON block of the page between ``<!-- example: NAME -->`` and ``<!-- /example -->`` is
one of :func:`examples` (the arena's own protocol types, encoded as the arena sends them), so
the page shows real requests and answers; ``tests/arena/wire/test_protocol_doc.py`` fails when they
drift. After changing the protocol, rewrite the blocks with::

    PYTHONPATH=$PWD .venv/bin/python -m tests.arena.wire.protocol_doc --write
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import msgspec

from arena.client import signing
from arena.wire.protocol import (
    ActRequest,
    ActResponse,
    BotInfo,
    EndRequest,
    StartRequest,
    act_request,
    end_request,
    start_request,
)
from engine import Action, Rules, State, apply, legal_actions, new_game, observation
from engine.start import with_deal

DOC = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"
MARKER = re.compile(
    r"(<!-- example: (?P<name>[a-z_]+) -->\n```(?:json|http|text)\n)(?P<body>.*?)(```\n<!-- /example -->)",
    re.S,
)

# A made-up secret and message id, so the signature in the page can be recomputed by anyone.
SECRET = "whsec_dHJ1Y28tYXJlbmEtZXhhbXBsZS1rZXktMzJieXRlcyE="
MESSAGE_ID = "msg_2u4RZfPYW1bJ7mQkT0cXhA"
TIMESTAMP = 1767225600  # 2026-01-01 00:00:00 UTC

RULES = Rules(points_to_win=15)
DEAL = (("6E", "5E", "12B"), ("1B", "3C", "7O"))
MATCH_ID = "m_8f3a2c"
GAME_ID = "m_8f3a2c-g1"
TIMEOUT_MS = 1000
BANK_MS = 30000

# The exchange as seat 0 lives it: envido accepted, seat 0 leads the 12B, seat 1 sings truco.
BEFORE_ACT = (
    Action("envido", say="Envido, to start with."),
    Action("quiero"),
    Action("play", "12B"),
    Action("truco"),
)
ANSWER = ActResponse(action="retruco", say="¡Quiero retruco!")
AFTER_ACT = (Action("quiero"), Action("play", "3C"), Action("play", "1B"), Action("play", "6E"))
# How the page shows each example: the protocol type it must decode as.
TYPES: dict[str, type] = {
    "info": BotInfo,
    "start": StartRequest,
    "act": ActRequest,
    "act_answer": ActResponse,
    "end": EndRequest,
}


def _play(state: State, actions: tuple[Action, ...]) -> State:
    for action in actions:
        state, _ = apply(state, action)
    return state


def _pretty(value: object, indent: str = "") -> str:
    """JSON with two-space indents, each value on one line when that fits in 96 columns."""
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if len(indent) + len(flat) <= 96 or not isinstance(value, (dict, list, tuple)) or not value:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_pretty(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    items = [f"{inner}{_pretty(v, inner)}" for v in value]
    return "[\n" + ",\n".join(items) + f"\n{indent}]"


def _json(value: object) -> str:
    return _pretty(msgspec.to_builtins(value)) + "\n"


def examples() -> dict[str, str]:
    """Each example block's text, by name."""
    state = with_deal(new_game(RULES, seed=1, score=(10, 12)), DEAL)
    asked = _play(state, BEFORE_ACT)
    assert asked.to_act == 0
    final = _play(_play(asked, (ANSWER.to_action(),)), AFTER_ACT)
    assert final.game_over
    info = BotInfo(apiversion="1", name="example", author="Ana", version="0.3")
    start = start_request(
        MATCH_ID,
        GAME_ID,
        0,
        RULES,
        game_number=1,
        games_in_match=2,
        team=0,
        entrants=["example", "house-heuristic"],
        timeout_ms=TIMEOUT_MS,
        time_bank_ms=BANK_MS,
    )
    act = act_request(
        MATCH_ID,
        GAME_ID,
        0,
        observation(asked, 0),
        legal_actions(asked),
        timeout_ms=TIMEOUT_MS,
        time_bank_ms=BANK_MS - 14,
        last_latency_ms=3,
    )
    end = end_request(
        MATCH_ID,
        GAME_ID,
        0,
        observation(final, 0),
        score=final.score,
        winner=final.winner,
        entrants=["example", "house-heuristic"],
    )
    body = msgspec.json.encode(start)
    headers = signing.sign(SECRET, MESSAGE_ID, TIMESTAMP, body)
    signed = "\n".join(
        [
            "POST /start HTTP/1.1",
            "content-type: application/json",
            f"webhook-id: {headers['webhook-id']}",
            f"webhook-timestamp: {headers['webhook-timestamp']}",
            f"webhook-signature: {headers['webhook-signature']}",
            "",
            body.decode(),
        ]
    )
    return {
        "info": _json(info),
        "start": _json(start),
        "act": _json(act),
        "act_answer": _json(ANSWER),
        "end": _json(end),
        "signed_start": signed + "\n",
        "signing_inputs": (
            f"secret     {SECRET}\n"
            f"key        base64-decode of {SECRET.removeprefix('whsec_')!r}"
            f" ({len(signing.secret_key(SECRET))} bytes)\n"
            f"signed     {MESSAGE_ID}.{TIMESTAMP}.<the body bytes above>\n"
            f"signature  {headers['webhook-signature']}\n"
        ),
    }


def blocks(text: str) -> dict[str, str]:
    """The example blocks found in the page, by name."""
    return {match["name"]: match["body"] for match in MARKER.finditer(text)}


def rewrite(text: str) -> str:
    """The page with every example block replaced by what the code produces now."""
    wanted = examples()
    return MARKER.sub(lambda m: m.group(1) + wanted[m["name"]] + m.group(4), text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(rewrite(DOC.read_text()))
    else:
        for name, block in examples().items():
            print(f"<!-- example: {name} -->\n{block}")
