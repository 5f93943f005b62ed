"""truco_cli.polling: the one wait loop of `challenge --wait` and `tournament watch`."""

from __future__ import annotations

import pytest

from truco_cli.errors import CommandError
from truco_cli.polling import MIN_INTERVAL_S, poll_until


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def still(last: str) -> CommandError:
    return CommandError.local("Still", f"still {last}", slug="cli/timeout", exit_code=1)


def test_returns_the_first_answer_that_is_done_without_sleeping_after_it() -> None:
    answers = iter(["queued", "playing", "finished", "never asked"])
    fake = FakeTime()
    got = poll_until(
        lambda: next(answers),
        lambda status: status == "finished",
        interval=1.0,
        timeout=None,
        still=still,
        clock=fake.clock,
        sleep=fake.sleep,
    )
    assert got == "finished"
    assert fake.slept == [1.0, 1.0]


def test_the_interval_has_a_floor() -> None:
    answers = iter(["a", "b", "done"])
    fake = FakeTime()
    poll_until(
        lambda: next(answers),
        lambda s: s == "done",
        interval=0.0,
        timeout=None,
        still=still,
        clock=fake.clock,
        sleep=fake.sleep,
    )
    assert fake.slept == [MIN_INTERVAL_S, MIN_INTERVAL_S]


def test_a_timeout_raises_with_the_last_answer_and_fetches_at_least_once() -> None:
    fetched: list[float] = []
    fake = FakeTime()

    def fetch() -> str:
        fetched.append(fake.now)
        return f"playing@{fake.now:g}"

    with pytest.raises(CommandError) as raised:
        poll_until(
            fetch,
            lambda s: False,
            interval=2.0,
            timeout=5.0,
            still=still,
            clock=fake.clock,
            sleep=fake.sleep,
        )
    assert fetched == [0.0, 2.0, 4.0, 6.0]  # the deadline is checked after each fetch
    assert raised.value.problem["detail"] == "still playing@6"


def test_a_zero_timeout_still_fetches_once() -> None:
    fake = FakeTime()
    got = poll_until(
        lambda: "finished",
        lambda s: s == "finished",
        interval=1.0,
        timeout=0.0,
        still=still,
        clock=fake.clock,
        sleep=fake.sleep,
    )
    assert got == "finished" and fake.slept == []
