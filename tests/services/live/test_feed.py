"""The live feed's items on plain data: the bytes the writer makes, what readers make of them,
the last run only, garbage ignored."""

from __future__ import annotations

import pytest

from arena.match.replay import Decision
from engine.events import ActionTaken, HandStarted
from engine.observe import HandShown
from services.live.feed import (
    DealShown,
    LiveEvent,
    LiveGame,
    LiveHeader,
    LiveItem,
    decode,
    encode,
    last_run,
    spectator_events,
    viewer_events,
)


def _item(run: str, game: int, score: int, *events: LiveEvent) -> bytes:
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
        _item("r1", 1, 1, ActionTaken(seat=0, action="truco")),
        b"not json",
        b'{"run": 5}',
        _item("r1", 1, 2, ActionTaken(seat=1, action="quiero")),
        _item("r1", 2, 0),
        encode(LiveHeader("r2")),
        _item("r2", 1, 4),
        _item("r1", 1, 7),  # a late write of the old run
    ]
    assert last_run(raws[:7]) == [
        LiveGame(
            number=1,
            teams=(0, 1),
            score=(2, 0),
            events=[ActionTaken(seat=0, action="truco"), ActionTaken(seat=1, action="quiero")],
        ),
        LiveGame(number=2, teams=(0, 1), score=(0, 0), events=[]),
    ]
    assert last_run(raws) == [LiveGame(number=1, teams=(0, 1), score=(4, 0), events=[])]
    assert last_run(raws[:1]) == []
    garbage = (b"", b"[]", b"not json", b'{"game": 1}', b'{"run":"r","game":1,"events":[{}]}')
    assert [decode(r) for r in garbage] == [None] * 5  # an event of no known type: not an item
    assert decode(raws[1]) == LiveHeader("r1")


def test_the_viewer_folds_a_spectators_hand_started_as_a_deal_of_empty_hands() -> None:
    (event,) = viewer_events([HandShown(1, 0, (0, 0))], players=4)
    assert event == HandStarted(hand=1, mano=0, deal=((), (), (), ()), score=(0, 0))


def test_a_deal_never_enters_the_feed() -> None:
    """The writer types what ``Game.visible`` gives it: a ``hand_started`` that still held its
    deal (a viewer that was not the spectator's) is refused, never published."""
    deal = (("1E", "2E", "3E"), ("4E", "5E", "6E"))
    assert spectator_events([HandShown(0, 0, (0, 0))]) == [HandShown(0, 0, (0, 0))]
    with pytest.raises(DealShown):
        spectator_events([HandStarted(hand=0, mano=0, deal=deal, score=(0, 0))])
