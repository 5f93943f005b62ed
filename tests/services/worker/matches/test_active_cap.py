"""The cap on matches playing at once (:mod:`services.worker.matches.active_cap`), on plain numbers, and
the gate built on it (:mod:`services.worker.matches.admission`), with threads but no loop."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from services.worker.matches.active_cap import ActiveCap, CapSettings
from services.worker.matches.admission import Admission
from tests.services.worker.processes import wait_for

SETTINGS = CapSettings(start=10, floor=4, ceiling=60, target_ms=20.0, cut_ms=40.0, window=3)


def feed(
    cap: ActiveCap, samples: list[float], *, waiting: int, playing: int | None = None
) -> list[int]:
    """The cap after each sample; ``playing`` None: as many play as the cap allows."""
    return [
        cap.update(late, cap.limit if playing is None else playing, waiting) for late in samples
    ]


def test_grows_while_on_time_and_held_back() -> None:
    cap = ActiveCap(SETTINGS)
    limits = feed(cap, [1.0] * 20, waiting=100)
    assert limits[:2] == [10, 10]  # not before a full window of samples
    assert limits[2] == 11 and limits[-1] == 28  # +1 (2% of the cap, at least one) a sample
    cap = ActiveCap(SETTINGS)
    assert feed(cap, [1.0] * 200, waiting=100)[-1] == 60  # never past the ceiling


def test_does_not_grow_when_the_cap_holds_nothing_back() -> None:
    nobody_waits = ActiveCap(SETTINGS)
    assert feed(nobody_waits, [1.0] * 10, playing=10, waiting=0)[-1] == 10
    room_left = ActiveCap(SETTINGS)
    assert feed(room_left, [1.0] * 10, playing=6, waiting=50)[-1] == 10


def test_holds_between_the_thresholds() -> None:
    cap = ActiveCap(SETTINGS)
    assert feed(cap, [30.0] * 10, playing=10, waiting=50) == [10] * 10
    assert cap.cuts == 0


def test_cuts_once_per_drain_on_sustained_lag() -> None:
    cap = ActiveCap(SETTINGS, cap=40.0)
    assert feed(cap, [100.0] * 2, playing=40, waiting=50) == [40, 40]  # two late samples: wait
    assert cap.update(100.0, 40, 50) == 30  # three: keep 75% of those playing
    assert cap.cuts == 1 and cap.draining
    # still late while 40 play (the cut has not taken effect): no second cut
    assert feed(cap, [100.0] * 10, playing=35, waiting=50) == [30] * 10
    # down to the cap and still late: the next cut
    assert cap.update(100.0, 30, 50) == 22
    assert cap.cuts == 2


def test_a_cut_is_relative_to_the_matches_playing_and_stops_at_the_floor() -> None:
    cap = ActiveCap(SETTINGS, cap=60.0)
    assert feed(cap, [80.0] * 3, playing=8, waiting=0)[-1] == 6  # 75% of 8, not of 60
    for _ in range(10):
        feed(cap, [80.0] * 3, playing=cap.limit, waiting=0)
    assert cap.limit == SETTINGS.floor


def test_one_late_sample_is_a_pause_not_a_load() -> None:
    cap = ActiveCap(SETTINGS, cap=40.0)
    limits = feed(cap, [1.0, 1.0, 1.0, 250.0, 1.0, 1.0, 1.0], waiting=50)
    assert cap.cuts == 0
    assert limits == [40, 40, 41, 41, 41, 41, 42]  # no growth while the pause is in the window


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        CapSettings(start=2, floor=4)
    with pytest.raises(ValueError):
        CapSettings(target_ms=50.0, cut_ms=40.0)
    with pytest.raises(ValueError):
        CapSettings(keep_share=1.0)


HANG_S = 30.0
"""How long a condition may take before the test calls it never true: a hang guard, not a
stopwatch (a loaded machine only makes the wait longer)."""


def test_the_gate_lets_in_at_most_the_cap_spaced_and_more_as_it_grows() -> None:
    starts: list[float] = []  # when each match's start was let through, noted inside the turn

    def pause(seconds: float) -> None:
        starts.append(time.monotonic())
        time.sleep(seconds)

    admission = Admission(ActiveCap(CapSettings(start=4, floor=1)), start_every_s=0.02, pause=pause)
    entered: list[int] = []
    lock = threading.Lock()

    def match() -> None:
        admission.enter()
        with lock:
            entered.append(threading.get_ident())

    threads = [threading.Thread(target=match) for _ in range(10)]
    for thread in threads:
        thread.start()

    def figures() -> tuple[int, int, int]:
        f = admission.figures()
        return f.playing, f.waiting, len(entered)

    wait_for(lambda: figures() == (4, 6, 4), HANG_S, "4 playing, 6 waiting")
    # never a fifth: the peak is noted under the gate's lock at every start, so a gate that had
    # let a fifth in at any moment so far shows it here (no quiet while to wait out)
    assert admission.figures().peak_playing == 4
    admission.leave()  # a match ends: one more starts
    wait_for(lambda: figures() == (4, 5, 5), HANG_S, "one more started after one left")
    assert admission.figures().peak_playing == 4  # one in for the one out, never more
    deadline = time.monotonic() + HANG_S
    while admission.figures().waiting and time.monotonic() < deadline:
        admission.observe(1.0)  # the loop on time: the cap grows while matches wait
        time.sleep(0.01)
    for thread in threads:
        thread.join(HANG_S)
    after = admission.figures()
    assert (after.playing, after.waiting, after.cap) == (9, 0, 9)  # grown as needed
    assert after.peak_playing == 9 and after.peak_waiting >= 6
    assert len(starts) == 10 == len(entered)
    # spaced: the next start waits for the turn, held start_every_s after each start
    assert min(b - a for a, b in itertools.pairwise(starts)) >= 0.02


def test_a_cut_holds_new_matches_back_until_those_playing_drain() -> None:
    admission = Admission(ActiveCap(CapSettings(start=8, floor=1)), start_every_s=0.0)
    for _ in range(8):
        admission.enter()
    for _ in range(3):
        admission.observe(500.0)  # sustained lag: the cap is cut to 6
    assert admission.figures().cap == 6
    late = threading.Thread(target=admission.enter)
    late.start()
    for _ in range(2):
        admission.leave()
    late.join(0.3)
    assert late.is_alive()  # 6 play: still no room
    admission.leave()
    late.join(5)
    assert not late.is_alive() and admission.figures().playing == 6
