"""The in-page viewer's data (``services.web.views.frames``) is the server's viewer, step by
step: the deltas, expanded as ``live.js`` does, give at every step the table, the caption and
the score ``replay_view`` renders for that step, in every view (a seat's view keeps the
other seats' cards hidden)."""

from __future__ import annotations

from typing import Any

import msgspec

from services.web.views.frames import frames
from services.web.views.replay import replay_view
from tests.services.web.test_views import SIDES, replay_2v2


def _expand(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    state: dict[str, Any] = {"seats": []}
    out = []
    for delta in steps:
        state = {**state, **{k: v for k, v in delta.items() if k != "seats"}}
        seats = list(state["seats"])
        for i, seat in delta.get("seats", {}).items():
            while len(seats) <= int(i):
                seats.append(None)
            seats[int(i)] = seat
        state["seats"] = seats
        out.append(state)
    return out


def test_every_step_is_the_servers_in_every_view() -> None:
    replay = replay_2v2()
    for view in ("all", "seat0", "seat1", "seat2", "seat3"):
        found = frames(replay, SIDES, 1, view)
        assert found is not None
        data = msgspec.to_builtins(found)  # the JSON live.js reads
        states = _expand(data["steps"])
        for step, state in enumerate(states):
            server = replay_view(replay, SIDES, 1, step, view, live=False)
            assert server is not None
            assert state["score"] == list(server.table.score)
            assert state["caption"] == server.table.caption
            assert state["hand"] == server.table.hand
            for s in server.table.seats:
                mine = state["seats"][s.seat]
                assert mine["cards"] == s.cards, (view, step, s.seat)
                assert mine["played"] == s.played
                assert bool(mine.get("bubble")) == (s.bubble is not None)
            assert data["timeline"][step]["text"] == server.timeline[-1].text
        if view == "seat1":  # the other seats' unplayed cards never leave the server
            hidden = {
                c
                for s in states
                for i, seat in enumerate(s["seats"])
                if i != 1
                for c in seat["cards"]
                if c
            }
            assert hidden == set()


def test_a_game_out_of_range_has_no_frames() -> None:
    assert frames(replay_2v2(), SIDES, 2, "all") is None
    assert frames(replay_2v2(), SIDES, 0, "all") is None
