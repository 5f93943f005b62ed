"""A person at the table: a seat whose decisions come from outside (a web page), not a bot.

:class:`HumanSeat` answers the runner's calls like any :class:`~arena.client.connection.
BotConnection`: ``act`` shows the person their own seat's request (the observation and the
legal actions the runner built for that seat, nothing more) as a :class:`Turn` and waits for
:meth:`HumanSeat.submit`, at most ``clock_s`` seconds. Everything else is the runner's usual
handling of a fault: no answer in time is a ``timeout`` fault (the fallback action is played),
and once the person has :meth:`~HumanSeat.leave`-d every call is an instant fault, so the
fault limit forfeits the match. Same rules, same replay, same verification as a bot's match.

**The thinking time of a game** (``bank_s``, a chess clock; issue 33, 9): the time the person
takes over one game's decisions comes off a bank, refilled when a game starts, and each
decision's clock is the smaller of ``clock_s`` and what is left. An answer just before each
clock ran out held a session for a whole match (an hour and more of 60-second clocks); with
the bank spent, every decision is a timeout at once and the fault limit forfeits. So a session
lasts at most its games' banks of the person's time, however they act.

:func:`check_choice` (is this answer one of the turn's legal actions, for this turn?) is pure.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec

from arena.client.bot_client import Fault, TimeBank
from arena.client.connection import Answer
from arena.wire.faults import CallFaultKind
from arena.wire.protocol import (
    ActRequest,
    ActResponse,
    EndRequest,
    StartRequest,
    legal_answer,
)
from arena.wire.structs import Observation
from engine.actions import SENA_SET, SENAS

LEFT_DETAIL = "the person left the table"
BANK_SPENT_DETAIL = "the thinking time of this game is spent"


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """A decision the person owes: its number (counted over the whole match), the request the
    runner sent to this seat, and the clock for it (``clock_ms``)."""

    number: int
    request: ActRequest
    clock_ms: int


class Rejected(msgspec.Struct, frozen=True):
    """Why an answer is refused: ``stale`` (not the turn now open) or ``illegal``."""

    kind: str
    detail: str


def check_choice(turn: Turn | None, number: int, response: ActResponse) -> Rejected | None:
    """None when ``response`` may answer turn ``number`` (the open ``turn``: one of its legal
    actions by word and card), else why not."""
    if turn is None or turn.number != number:
        now = "no decision is open" if turn is None else f"the open decision is {turn.number}"
        return Rejected("stale", f"decision {number} is not open ({now})")
    if response.sena is not None:
        if turn.request.observation.players < 4:
            return Rejected("illegal", "señas are played in 2v2 only")
        if response.sena not in SENA_SET:
            return Rejected(
                "illegal", f"unknown seña {response.sena[:40]!r}; the señas: {', '.join(SENAS)}"
            )
    if legal_answer(response, turn.request.legal_actions) is None:
        shown = response.action if response.card is None else f"{response.action} {response.card}"
        legal = ", ".join(
            a.action if a.card is None else f"{a.action} {a.card}"
            for a in turn.request.legal_actions
        )
        return Rejected("illegal", f"{shown!r} is not a legal action now; legal: {legal}")
    return None


@dataclass
class HumanSeat:
    """One person's seat (see the module docstring). ``changed`` is set on every change of
    what the person may see (a new turn, a game's start or end), for a page's stream."""

    name: str
    clock_s: float
    bank_s: float | None = None
    """The person's thinking time for one game (None: only the clock of each decision)."""
    now: Callable[[], float] = time.monotonic
    bank_left: float | None = None  # of the game being played
    turn: Turn | None = None
    deadline: float | None = None  # ``now()`` when the open turn times out
    observation: Observation | None = None  # the latest this seat was shown
    game_number: int = 0
    last_end: EndRequest | None = None
    left: bool = False
    closed: bool = False
    version: int = 0
    _numbers: int = 0
    _answer: asyncio.Future[ActResponse | None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    # --- what the page sees --------------------------------------------------------------

    def touch(self) -> None:
        """Tell whoever waits (:meth:`wait_change`) that something changed."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, version: int, timeout_s: float) -> int:
        """Wait (at most ``timeout_s``) until the version is past ``version``; the version."""
        if self.version > version:
            return self.version
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout_s)
        return self.version

    def clock_left_ms(self) -> int | None:
        if self.deadline is None:
            return None
        return max(0, round((self.deadline - self.now()) * 1000))

    def bank_left_ms(self) -> int | None:
        """The game's thinking time left now (the open decision's time taken off)."""
        if self.bank_left is None:
            return None
        if self.deadline is None or self.turn is None:
            return round(self.bank_left * 1000)
        spent = self.turn.clock_ms / 1000 - (self.deadline - self.now())
        return max(0, round((self.bank_left - max(0.0, spent)) * 1000))

    # --- from the page -------------------------------------------------------------------

    def submit(self, number: int, response: ActResponse) -> Rejected | None:
        """The person's answer to turn ``number``: None when taken, else why not."""
        rejected = check_choice(self.turn, number, response)
        if rejected is not None:
            return rejected
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(response)
        self.turn = None
        self.deadline = None
        self.touch()
        return None

    def leave(self) -> None:
        """The person left (closed the page, pressed leave): every later call is a fault."""
        self.left = True
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(None)
        self.touch()

    # --- the runner's calls --------------------------------------------------------------

    async def open(self) -> Fault | None:
        return Fault("connect", LEFT_DETAIL, 0.0) if self.left else None

    async def start(self, request: StartRequest) -> Fault | None:
        self.game_number = request.game_number
        self.bank_left = self.bank_s
        self.touch()
        return None

    def clock_for_decision(self) -> float:
        """The clock of the next decision: ``clock_s``, or what is left of the game's bank."""
        if self.bank_left is None:
            return self.clock_s
        return max(0.0, min(self.clock_s, self.bank_left))

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        if self.left:
            return Answer(None, Fault("connect", LEFT_DETAIL, 0.0), 0.0)
        self.observation = request.observation
        clock = self.clock_for_decision()
        if clock <= 0:  # the game's thinking time is spent: a timeout at once
            self.touch()
            return Answer(None, Fault("timeout", BANK_SPENT_DETAIL, 0.0), 0.0)
        self._numbers += 1
        started = self.now()
        self.turn = Turn(number=self._numbers, request=request, clock_ms=round(clock * 1000))
        self.deadline = started + clock
        loop = asyncio.get_running_loop()
        self._answer = answer = loop.create_future()
        self.touch()
        try:
            response = await asyncio.wait_for(asyncio.shield(answer), clock)
        except TimeoutError:
            response = None
            timed_out = True
        else:
            timed_out = False
        elapsed = self.now() - started
        latency = elapsed * 1000
        if self.bank_left is not None:
            self.bank_left = max(0.0, self.bank_left - elapsed)
        if self.turn is not None:  # not answered: the turn closes
            self.turn = None
            self.deadline = None
            self.touch()
        if response is None:
            kind: CallFaultKind = "timeout" if timed_out else "connect"
            detail = f"no decision in {clock:g} s" if timed_out else LEFT_DETAIL
            return Answer(None, Fault(kind, detail, latency), latency)
        return Answer(response, None, latency)

    async def end(self, request: EndRequest) -> None:
        self.observation = request.observation
        self.last_end = request
        self.touch()

    async def close(self) -> None:
        self.closed = True
        self.turn = None
        self.deadline = None
        self.touch()
