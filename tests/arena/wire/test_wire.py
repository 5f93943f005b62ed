"""The bot API is the protocol's own (arena.wire.protocol, arena.wire.structs), pinned and converted.

* The JSON Schema of every protocol type equals the committed
  ``api-spec/bot-protocol-v1.schema.json``: a change to what bots receive, from whatever
  cause, fails here (change the file only with a new protocol version, docs/protocol.md).
* No engine type is part of a request: every struct a request can hold is the protocol's.
* The converters lose nothing: engine -> wire -> engine gives back the same observation, on
  random games, and the wire copy encodes to the same bytes the engine's does today.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.wire import protocol
from arena.wire import structs as wire
from arena.wire.openapi import REF
from engine.events import ActionTaken
from engine.observe import observation
from engine.rules import Rules
from tests.engine.strategies import random_game, rules_strategy

SCHEMA = Path(__file__).resolve().parents[3] / "api-spec" / "bot-protocol-v1.schema.json"
TYPES = (
    protocol.BotInfo,
    protocol.StartRequest,
    protocol.ActRequest,
    protocol.ActResponse,
    protocol.EndRequest,
)


def protocol_schema() -> object:
    """The JSON Schema of every protocol type, as JSON values."""
    _, components = msgspec.json.schema_components(TYPES, ref_template=REF)
    return json.loads(msgspec.json.encode(components))


def test_the_wire_schema_is_the_committed_one() -> None:
    committed = json.loads(SCHEMA.read_text())
    assert protocol_schema() == committed, (
        "the bot API changed: what bots receive is version 1 of the protocol; restore it, or "
        "publish a new version (docs/protocol.md) and rewrite api-spec/bot-protocol-v1.schema.json"
    )


def _structs(tp: object, found: set[type]) -> None:
    """Every msgspec Struct type reachable from a type annotation."""
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        if tp in found:
            return
        found.add(tp)
        for hint in typing.get_type_hints(tp, include_extras=True).values():
            _structs(hint, found)
        return
    for arg in typing.get_args(tp):
        _structs(arg, found)


def test_every_type_a_request_holds_belongs_to_the_protocol() -> None:
    found: set[type] = set()
    for tp in TYPES:
        _structs(tp, found)
    assert {wire.Observation, wire.Rules, wire.Action, wire.ActionTaken} <= found
    outside = {t.__module__ + "." + t.__qualname__ for t in found} - {
        f"{t.__module__}.{t.__qualname__}"
        for t in found
        if t.__module__
        in (
            "arena.wire.protocol",
            "arena.wire.structs",
        )
    }
    assert not outside, f"engine types on the wire: {sorted(outside)}"


@settings(max_examples=25, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**63 - 1))
def test_the_converters_lose_nothing(rules: Rules, seed: int) -> None:
    for before, _, _, _ in random_game(rules, seed):
        seat = before.to_act
        engine_view = observation(before, seat)
        sent = wire.observation_to_wire(engine_view)
        assert wire.observation_from_wire(sent) == engine_view
        assert msgspec.json.encode(sent) == msgspec.json.encode(engine_view)
        decoded = msgspec.json.decode(msgspec.json.encode(sent), type=wire.Observation)
        assert decoded == sent


def test_a_converted_event_tuple_is_reused_only_for_that_very_tuple() -> None:
    """``events_to_wire`` keeps conversions by the identity of the engine's tuple: the same
    tuple gets the same wire tuple back; any other tuple, however made, its own conversion."""
    played = (ActionTaken(0, "play", "7O"), ActionTaken(1, "play", "1E"))
    first = wire.events_to_wire(played)
    assert first == (wire.ActionTaken(0, "play", "7O"), wire.ActionTaken(1, "play", "1E"))
    assert wire.events_to_wire(played) is first
    for card in ("4C", "5C", "6C", "7C") * 300:  # short-lived tuples: their ids come round again
        one = (ActionTaken(1, "play", card),)
        assert wire.events_to_wire(one) == (wire.ActionTaken(1, "play", card),)
    assert wire.events_to_wire(played) == first
