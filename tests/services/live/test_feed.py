"""The live feed's items on plain data: the bytes the writer makes, what readers make of them,
the last run only, garbage ignored."""

from __future__ import annotations

import msgspec

from arena.match.replay import Decision
from engine.events import HandStarted
from engine.observe import HandShown
from services.live.feed import (
    LiveGame,
    LiveHeader,
    LiveItem,
    decode,
    encode,
    last_run,
    viewer_events,
)


def _item(run: str, game: int, score: int, *events: object) -> bytes:
    return encode(LiveItem(run, game, (0, 1), (score, 0), list(events)))


def test_the_wire_keeps_its_field_order_and_a_decision_its_three_fields() -> None:
    decision = Decision(seat=1, latency_ms=12.5, fault="timeout")
    raw = _item("r", 1, 3, decision, HandShown(2, 1, (3, 0)))
    assert raw == (
        b'{"run":"r","game":1,"teams":[0,1],"score":[3,0],"events":['
        b'{"type":"decision","seat":1,"latency_ms":12.5,"fault":"timeout"},'
        b'{"type":"hand_started","hand":2,"mano":1,"score":[3,0]}]}'
    )
    assert encode(LiveHeader("r")) == (b'{"run":"r","header":true,"format":"truco-arena-live/1"}')


def test_readers_keep_the_last_run_and_ignore_garbage() -> None:
    raws = [
        _item("r0", 1, 9),  # before any header: not shown
        encode(LiveHeader("r1")),
        _item("r1", 1, 1, {"type": "action", "seat": 0, "action": "truco"}),
        b"not json",
        b'{"run": 5}',
        _item("r1", 1, 2, {"type": "action", "seat": 1, "action": "quiero"}),
        _item("r1", 2, 0),
        encode(LiveHeader("r2")),
        _item("r2", 1, 4),
        _item("r1", 1, 7),  # a late write of the old run
    ]
    assert last_run(raws[:7]) == [
        LiveGame(
            1,
            (0, 1),
            (2, 0),
            [
                {"type": "action", "seat": 0, "action": "truco"},
                {"type": "action", "seat": 1, "action": "quiero"},
            ],
        ),
        LiveGame(2, (0, 1), (0, 0), []),
    ]
    assert last_run(raws) == [LiveGame(1, (0, 1), (4, 0), [])]
    assert last_run(raws[:1]) == []
    assert [decode(r) for r in (b"", b"[]", b"not json", b'{"game": 1}')] == [None] * 4
    assert decode(raws[1]) == LiveHeader("r1")


def test_the_viewer_folds_a_spectators_hand_started_as_a_deal_of_empty_hands() -> None:
    shown = msgspec.to_builtins(HandShown(1, 0, (0, 0)))
    (event,) = viewer_events([shown], players=4)
    assert event == HandStarted(hand=1, mano=0, deal=((), (), (), ()), score=(0, 0))
