"""The live feed's one definition, for its writer (the bot-calling worker) and its readers
(the API's replay and streams, the web pages): where it is kept, its items, and the games a
spectator has seen so far (docs/live.md; the Redis I/O is ``services.live.publisher``).

* **Where**: one Redis list per match, :func:`live_key`; every write of it also publishes the
  match's id on :func:`live_channel`.
* **Items**: a run's :class:`LiveHeader` first (a match task that runs again starts a new
  run; readers keep only the last run), then one :class:`LiveItem` per decision: the game,
  its teams and score, and the events the decision caused as a spectator sees them (the
  runner's ``decision`` record without its detail, ``hand_started`` without its deal, no
  seña). Items are JSON; the field order is the wire's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import msgspec

from arena.match.replay import Decision, ReplayEvent
from engine.events import (
    ActionTaken,
    EnvidoCancelled,
    EnvidoSettled,
    FlorSettled,
    GameEnded,
    HandEnded,
    HandStarted,
    RoundEnded,
    TrucoSettled,
)
from engine.observe import HandShown, Visible

LIVE_FORMAT: Final = "truco-arena-live/1"
LIVE_TTL_S: Final = 3600
"""A live list expires this long after its last write (the trusted worker deletes it sooner,
once the result is stored)."""


def live_key(prefix: str, match_id: int) -> str:
    return f"{prefix}live:{match_id}"


def live_channel(prefix: str) -> str:
    """The pub/sub channel on which each write of a match's items publishes the match's id."""
    return f"{prefix}live-written"


LiveEvent = (
    Decision
    | HandShown
    | ActionTaken
    | RoundEnded
    | EnvidoSettled
    | EnvidoCancelled
    | FlorSettled
    | TrucoSettled
    | HandEnded
    | GameEnded
)
"""An event as a spectator is shown it: the runner's decision record (seat, latency, fault
kind) and the game's events through the spectator's view (``engine.observe``), where a
``hand_started`` is a :class:`~engine.observe.HandShown`, without its deal."""


class DealShown(ValueError):
    """A ``hand_started`` with its deal reached the spectator's feed."""


def spectator_events(visible: Iterable[Visible]) -> list[LiveEvent]:
    """Events as ``Game.visible(events, SPECTATOR)`` gives them, as the feed's type: a
    ``hand_started`` that still holds its deal never gets this far (:class:`DealShown`)."""
    shown: list[LiveEvent] = []
    for event in visible:
        if isinstance(event, HandStarted):
            raise DealShown(f"hand {event.hand}: a deal is not for spectators")
        shown.append(event)
    return shown


class LiveHeader(msgspec.Struct, frozen=True):
    """The first item of a run."""

    run: str
    header: bool = True
    format: str = LIVE_FORMAT


class LiveItem(msgspec.Struct, frozen=True):
    """One decision as a spectator sees it: the events it caused, typed on both sides."""

    run: str
    game: int
    teams: tuple[int, int]
    score: tuple[int, int]
    events: list[LiveEvent]


class LiveGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game of the last run as seen so far (``GET /v1/matches/{id}/replay``'s live games
    too): ``teams`` are the entrant indexes seated as team 0 and team 1, ``score`` is by team,
    ``events`` what a spectator has been shown (docs/rules.md, R-11)."""

    number: int
    teams: tuple[int, int]
    score: tuple[int, int]
    events: list[LiveEvent]


class _Read(msgspec.Struct, frozen=True):
    """Any item, as read: every field optional, unknown ones ignored."""

    run: str | None = None
    header: bool = False
    game: int | None = None
    teams: tuple[int, int] = (0, 1)
    score: tuple[int, int] = (0, 0)
    events: list[LiveEvent] = []


_DECODER = msgspec.json.Decoder(_Read)
_ENCODER = msgspec.json.Encoder()


def encode(item: LiveHeader | LiveItem) -> bytes:
    return _ENCODER.encode(item)


def decode(raw: bytes | str | None) -> LiveHeader | LiveItem | None:
    """An item read back; None for anything else (garbage, a foreign value)."""
    if not raw:
        return None
    try:
        read = _DECODER.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if read.run is None:
        return None
    if read.header:
        return LiveHeader(read.run)
    if read.game is None:
        return None
    return LiveItem(read.run, read.game, read.teams, read.score, read.events)


def last_run(raws: Iterable[bytes | str]) -> list[LiveGame]:
    """The games of the list's last run, in order, each with every event seen so far (none
    before the run's header)."""
    items = [item for item in map(decode, raws) if item is not None]
    starts = [k for k, item in enumerate(items) if isinstance(item, LiveHeader)]
    if not starts:
        return []
    run = items[starts[-1]].run
    latest: dict[int, LiveItem] = {}
    events: dict[int, list[LiveEvent]] = {}
    for item in items[starts[-1] + 1 :]:
        if isinstance(item, LiveItem) and item.run == run:
            latest[item.game] = item
            events.setdefault(item.game, []).extend(item.events)
    return [
        LiveGame(number=n, teams=latest[n].teams, score=latest[n].score, events=events[n])
        for n in sorted(latest)
    ]


def viewer_events(events: Sequence[LiveEvent], players: int) -> list[ReplayEvent]:
    """A live game's events for the replay viewer, which folds a stored game's events: its
    ``hand_started`` gets one empty hand a seat (the spectator's view of a deal)."""
    empty: tuple[tuple[str, ...], ...] = tuple(() for _ in range(players))
    return [
        HandStarted(event.hand, event.mano, empty, event.score)
        if isinstance(event, HandShown)
        else event
        for event in events
    ]
