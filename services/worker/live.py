"""Live matches: what a spectator may see of a match while it is played (docs/rules.md, R-11).

The bot-calling worker (no database) publishes as it plays; the API and the web pages read.

* **Where**: one Redis list per match, ``{TRUCO_REDIS_PREFIX}live:{match_id}``; it expires an
  hour after its last write and the trusted worker deletes it once the result is stored.
* **What**: one JSON item per decision: ``{"run", "game", "teams", "score", "events"}`` where
  ``events`` is the arena's ``decision`` record (seat, latency, fault kind; never the fault's
  detail) followed by the ENGINE events that decision caused, passed through
  :func:`engine.observe.spectator_view` (no señas). A new hand is a ``hand_started`` event
  WITHOUT its deal. The first item of a run is a header ``{"run", "header": true}``: a match
  task that runs again (redelivered) starts a new run, and readers keep only the last run.
* **Status**: when the task starts playing it sends ``truco.match_started`` (queue
  ``results``); the trusted worker sets ``matches.status = 'running'`` if the match is still
  pending or queued (a late message never reopens a finished match).

Publishing is best effort: a Redis error is logged once and the match goes on unpublished.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable, MutableMapping, Sequence
from typing import Any, cast

import msgspec
import redis
import redis.asyncio

from arena.client import Fault, TimeBank
from arena.connection import Answer, BotConnection
from arena.deals import game_seed, seating
from arena.match import MatchSettings, seat_entrants
from arena.protocol import ActRequest, EndRequest, StartRequest
from engine.events import ActionTaken, Event, GameEnded
from engine.observe import spectator_view
from engine.play import new_game
from engine.state import State
from services.config import RedisSettings
from services.worker.names import MATCH_STARTED

logger = logging.getLogger(__name__)

LIVE_FORMAT = "truco-arena-live/1"
LIVE_TTL_S = 3600
REDIS_TIMEOUT_S = 0.5


def live_key(prefix: str, match_id: int) -> str:
    return f"{prefix}live:{match_id}"


# --- publishing (the bot-calling worker) ----------------------------------------------------


class RecordingBot:
    """A bot connection that remembers its last ``/act`` call (seat, answer) for the publisher."""

    def __init__(self, inner: BotConnection) -> None:
        self.inner = inner
        self.name = inner.name
        self.last: tuple[int, Answer] | None = None

    async def open(self) -> Fault | None:
        return await self.inner.open()

    async def start(self, request: StartRequest) -> Fault | None:
        return await self.inner.start(request)

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        answer = await self.inner.act(request, bank)
        self.last = (request.seat, answer)
        return answer

    async def end(self, request: EndRequest) -> None:
        await self.inner.end(request)

    async def close(self) -> None:
        await self.inner.close()


def _fault_kind(answer: Answer, taken: ActionTaken | None) -> str | None:
    """The decision's fault kind: the transport's, or ``illegal_action`` when what was applied
    is not what the bot answered (the runner played the fallback)."""
    if answer.fault is not None:
        return answer.fault.kind
    response = answer.response
    if response is None or taken is None:
        return None
    said = (response.action, response.card, response.say, response.sena)
    if said != (taken.action, taken.card, taken.say, taken.sena):
        return "illegal_action"
    return None


def hand_marker(state: State) -> dict[str, Any]:
    """A hand's start as a spectator sees it: everything of ``hand_started`` but the deal."""
    return {
        "type": "hand_started",
        "hand": state.hand,
        "mano": state.mano,
        "score": list(state.score),
    }


class LivePublisher:
    """Turns run_match's ``progress(game index, state)`` calls into spectator items.

    The engine events a decision caused are recovered from the state's hand log (this hand's
    events after its deal; ``previous`` holds the hand that just ended).
    """

    def __init__(
        self,
        client: redis.Redis | None,
        prefix: str,
        match_id: int,
        seed: int,
        settings: MatchSettings,
        bots: Sequence[RecordingBot],
    ) -> None:
        self.client = client
        self.key = live_key(prefix, match_id)
        self.seed = seed
        self.settings = settings
        self.bots = bots
        self.run = secrets.token_hex(6)
        self._game = -1
        self._hand = 0
        self._seen: tuple[Event, ...] = ()
        self._broken = client is None

    def begin(self) -> None:
        """Start this run's items (a new header; older runs' items are dropped by readers)."""
        self._push({"run": self.run, "header": True, "format": LIVE_FORMAT}, reset=True)

    def items_for(self, index: int, state: State) -> list[dict[str, Any]]:
        """The spectator events of the decision that led to ``state`` (pure; tests use it)."""
        out: list[dict[str, Any]] = []
        if index != self._game:
            first = new_game(self.settings.rules, game_seed(self.seed, index, self.settings.deals))
            out.append(hand_marker(first))
            self._game, self._hand, self._seen = index, first.hand, ()
        if not state.game_over and state.hand == self._hand:
            caused: list[Event] = list(state.log[len(self._seen) :])
            new_hand = False
        else:  # the hand ended: the rest of it, then (unless the game is over) the new one
            caused = list(state.previous[len(self._seen) :])
            new_hand = not state.game_over
        if new_hand:
            caused += list(state.log)
        if state.game_over and state.winner is not None:
            caused.append(GameEnded(state.winner, state.score))
        taken = next((e for e in caused if isinstance(e, ActionTaken)), None)
        decision = self._decision(taken)
        if decision is not None:
            out.append(decision)
        engine = [msgspec.to_builtins(e) for e in spectator_view(caused)]
        if new_hand:
            ended = len(state.previous) - len(self._seen)
            engine.insert(ended, hand_marker(state))
        out += engine
        self._hand, self._seen = state.hand, state.log
        return out

    def _decision(self, taken: ActionTaken | None) -> dict[str, Any] | None:
        if taken is None:
            return None
        seats = seat_entrants(max(self._game, 0), len(self.bots), self.settings.rules.players)
        bot = self.bots[seats[taken.seat]]
        if bot.last is None:
            return None
        seat, answer = bot.last
        record: dict[str, Any] = {
            "type": "decision",
            "seat": seat,
            "latency_ms": round(answer.latency_ms, 2),
        }
        fault = _fault_kind(answer, taken)
        if fault is not None:
            record["fault"] = fault
        return record

    def progress(self, index: int, state: State) -> None:
        """run_match's progress callback: publish one item per decision."""
        try:
            events = self.items_for(index, state)
        except Exception:  # never let the live view break a match
            logger.exception("live view of %s: could not build the item", self.key)
            return
        teams = seating(index)
        self._push(
            {
                "run": self.run,
                "game": index + 1,
                "teams": list(teams),
                "score": list(state.score),
                "events": events,
            }
        )

    def _push(self, item: dict[str, Any], reset: bool = False) -> None:
        if self._broken or self.client is None:
            return
        try:
            pipe = self.client.pipeline(transaction=True)
            if reset:
                pipe.delete(self.key)
            pipe.rpush(self.key, json.dumps(item, separators=(",", ":")))
            pipe.expire(self.key, LIVE_TTL_S)
            pipe.execute()
        except redis.RedisError as exc:
            self._broken = True
            logger.warning("live view of %s is off for this match: %s", self.key, exc)


def send_started(match_id: int) -> None:
    """Tell the trusted worker that the match is being played (best effort)."""
    from services.worker.dispatch import current_app
    from services.worker.names import RESULTS

    try:
        current_app().send_task(MATCH_STARTED, args=[match_id], queue=RESULTS)
    except Exception as exc:  # the status is cosmetic; the match must go on
        logger.warning("could not send %s for match %s: %s", MATCH_STARTED, match_id, exc)


def clear_live(client: redis.Redis, prefix: str, match_id: int) -> None:
    """Drop a match's live items (the trusted worker, after storing the result)."""
    try:
        client.delete(live_key(prefix, match_id))
    except redis.RedisError as exc:
        logger.warning("could not delete the live view of match %s: %s", match_id, exc)


# --- reading (the API and the web pages) ----------------------------------------------------


def live_document(
    match_id: int,
    status: str,
    entrants: list[dict[str, Any]],
    items: Sequence[bytes | str],
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The spectator replay of a live match from its Redis items (last run only).

    ``{"format", "live": true, "match_id", "status", "rules", "entrants", "games":
    [{"number", "teams", "score", "events"}]}``: no seeds, no deals, no señas.
    """
    decoded: list[dict[str, Any]] = []
    for raw in items:
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            decoded.append(item)
    headers = [k for k, item in enumerate(decoded) if item.get("header")]
    run = decoded[headers[-1]].get("run") if headers else None
    games: dict[int, dict[str, Any]] = {}
    for item in decoded[headers[-1] + 1 if headers else 0 :]:
        if item.get("run") != run or not isinstance(item.get("game"), int):
            continue
        game = games.setdefault(
            item["game"],
            {"number": item["game"], "teams": item.get("teams"), "score": [0, 0], "events": []},
        )
        game["score"] = item.get("score", game["score"])
        game["events"].extend(item.get("events") or [])
    return {
        "format": LIVE_FORMAT,
        "live": True,
        "match_id": match_id,
        "status": status,
        "rules": rules or {},
        "entrants": entrants,
        "games": [games[n] for n in sorted(games)],
    }


class LiveReader:
    """Reads live items from Redis (asyncio client, short timeouts; errors read as empty)."""

    def __init__(self, url: str, prefix: str) -> None:
        self.prefix = prefix
        self.client: redis.asyncio.Redis = redis.asyncio.Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
        )

    async def items(self, match_id: int) -> list[bytes | str]:
        try:
            found = await cast(
                Awaitable[list[bytes | str]],
                self.client.lrange(live_key(self.prefix, match_id), 0, -1),
            )
        except (redis.RedisError, OSError) as exc:
            logger.warning("live view of match %s unreadable: %s", match_id, exc)
            return []
        return found

    async def length(self, match_id: int) -> int:
        try:
            return await cast(Awaitable[int], self.client.llen(live_key(self.prefix, match_id)))
        except (redis.RedisError, OSError):
            return 0

    async def aclose(self) -> None:
        await self.client.aclose()


READER_STATE_KEY = "live_reader"


def reader_for(state: MutableMapping[str, Any], redis: RedisSettings) -> LiveReader:
    """The app's reader (made on first use, kept in the app's ``state``): the API's Redis
    (``REDIS_URL``, else the workers' local default) and key prefix (``TRUCO_REDIS_PREFIX``,
    which must be the workers')."""
    found = state.get(READER_STATE_KEY)
    if isinstance(found, LiveReader):
        return found
    reader = LiveReader(redis.url_or_local, redis.prefix)
    state[READER_STATE_KEY] = reader
    return reader


def to_replay_events(events: list[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """Live events as replay events (for the web viewer): a ``hand_started`` gets an empty
    deal (one empty hand per seat), so the viewer's spectator mode can fold them."""
    out = []
    for event in events:
        if event.get("type") == "hand_started":
            event = {**event, "deal": [[] for _ in range(players)]}
        out.append(event)
    return out


__all__ = [
    "LIVE_FORMAT",
    "LIVE_TTL_S",
    "MATCH_STARTED",
    "LivePublisher",
    "LiveReader",
    "RecordingBot",
    "clear_live",
    "hand_marker",
    "live_document",
    "live_key",
    "reader_for",
    "send_started",
    "to_replay_events",
]
