"""The replay document of a match; :mod:`arena.match.verify` checks one by re-simulation.

A replay is one JSON document: the match seed, how its games were dealt (``deals``) and the
rules, the entrants, and per game its engine seed, seating, every event (the engine's events
interleaved with the arena's ``decision`` records: latency, fault, fallback), the final score
and the result.

Format ``truco-arena-replay/2`` names the dealing in ``deals``; version 1 (before independent
deals) had ``duplicate: true|false`` instead, which :func:`load_replay` reads as ``mirrored`` /
``independent``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from arena.game.deals import Deals
from arena.wire.faults import CallFaultKind, FaultKind
from engine.events import Event
from engine.rules import Rules

FORMAT = "truco-arena-replay/2"
LEGACY_FORMAT = "truco-arena-replay/1"  # ``duplicate`` instead of ``deals``


class Decision(msgspec.Struct, frozen=True, tag="decision", omit_defaults=True):
    """One call to a bot's ``/act`` (or a skipped one): what came back and what was played.

    The engine's ``action`` event that follows holds the action actually applied: the bot's
    own answer, or the fallback when ``fault`` is set.
    """

    seat: int
    latency_ms: float
    fault: FaultKind | None = None
    detail: str | None = None
    strikes: int = 0  # the entrant's faults in this game so far
    fallback: bool = False
    status: int | None = None  # the HTTP status of an http_status fault


class StartFault(msgspec.Struct, frozen=True, tag="start_fault", omit_defaults=True):
    seat: int
    fault: CallFaultKind
    detail: str
    status: int | None = None


Call = Literal["info", "start", "act", "end"]


class Cause(msgspec.Struct, frozen=True, omit_defaults=True):
    """Why an entrant lost without playing it out: which call failed, how, and (for an
    ``http_status`` fault) the HTTP status. A walkover's cause is the failed ``info`` (the
    bot could not be reached or did not speak the protocol when the match began) or ``start``
    of the first game; a forfeit's is the ``act`` fault that reached the fault limit.
    ``detail`` is short and public: never a secret, never the bot's host or address."""

    side: int  # entrant index
    call: Call
    kind: FaultKind
    status: int | None = None
    detail: str = ""

    @property
    def label(self) -> str:
        """The fault in a few words: "signature rejected (401)", "connection refused", ..."""
        if self.kind == "http_status" and self.status == 401:
            return "signature rejected (401)"
        if self.kind == "http_status" and self.status is not None:
            return f"HTTP error ({self.status})"
        if self.kind == "connect":
            return self.detail if 0 < len(self.detail) <= 48 else "connection failed"
        return _KIND_LABELS.get(self.kind, self.kind.replace("_", " "))

    @property
    def summary(self) -> str:
        """``label`` and the call it happened on: "signature rejected (401) on /start"."""
        return f"{self.label} on {'GET /' if self.call == 'info' else '/' + self.call}"


_KIND_LABELS = {
    "timeout": "timed out",
    "bad_body": "answer not understood",
    "too_large": "answer too large",
    "illegal_action": "illegal action",
    "http_status": "HTTP error",
}


ReplayEvent = Event | Decision | StartFault


class Latency(msgspec.Struct, frozen=True):
    calls: int
    p50_ms: float
    p95_ms: float
    max_ms: float


class EntrantRecord(msgspec.Struct, frozen=True):
    name: str
    source: str  # a bot URL or builtin:NAME


class GameRecord(msgspec.Struct):
    number: int  # 1-based
    game_id: str
    seed: int  # the engine seed of this game
    teams: tuple[int, int]  # side seated as team 0 and as team 1
    events: list[ReplayEvent]
    score: tuple[int, int]  # by team
    winner: int | None = None  # side
    forfeit: int | None = None  # side that forfeited the match in this game
    faults: tuple[int, int] = (0, 0)  # by side
    seats: tuple[int, ...] = ()  # entrant index at each seat (entrant k plays for side k % 2)

    def entrant_at(self, seat: int) -> int:
        """The entrant who played ``seat`` (replays from before ``seats``: its side's entrant)."""
        return self.seats[seat] if self.seats else self.teams[seat % 2]  # seat's Truco team


class MatchResult(msgspec.Struct):
    """By side (side 0 = entrants 0 and 2, side 1 = entrants 1 and 3; with two entrants an
    entrant is a side), except ``walkover`` and ``latency``, which are by entrant."""

    games_won: tuple[int, int]
    tantos: tuple[int, int]  # points scored by side over all games
    winner: int | None  # side; None for a draw (or a walkover of both sides)
    reason: Literal["games", "tantos", "draw", "forfeit", "walkover"]
    forfeit: int | None = None
    walkover: tuple[int, ...] = ()  # entrants that could not be reached
    faults: tuple[int, int] = (0, 0)
    latency: tuple[Latency, ...] | None = None  # by entrant
    causes: tuple[Cause, ...] = ()  # of a walkover (one per entrant that lost) or a forfeit


class Replay(msgspec.Struct, omit_defaults=True):
    """A played match. ``attempt`` (absent: 0) is how many times it had been begun before
    this play (its deals derive from it: :mod:`arena.deals`)."""

    format: str
    match_id: str
    seed: int
    rules: Rules
    deals: Deals
    games_per_match: int
    timeout_ms: int
    time_bank_ms: int
    fault_limit: int
    entrants: tuple[EntrantRecord, ...]  # in slot order: 2 (a bot per side) or 4 (per seat)
    games: list[GameRecord]
    result: MatchResult
    attempt: Annotated[int, msgspec.Meta(ge=0)] = 0


class VerifyError(Exception):
    """A replay that does not re-simulate to what it records."""


def decide_result(games: list[GameRecord]) -> MatchResult:
    """The match result from its games: games won, then tantos; a forfeit decides at once."""
    won = [0, 0]
    tantos = [0, 0]
    faults = [0, 0]
    forfeit: int | None = None
    forfeited: GameRecord | None = None
    for game in games:
        for team, entrant in enumerate(game.teams):
            tantos[entrant] += game.score[team]
        if game.winner is not None:
            won[game.winner] += 1
        faults[0] += game.faults[0]
        faults[1] += game.faults[1]
        if game.forfeit is not None:
            forfeit, forfeited = game.forfeit, game
    games_won, points, fault_pair = (won[0], won[1]), (tantos[0], tantos[1]), (faults[0], faults[1])
    winner: int | None
    if forfeit is not None:
        winner, reason = 1 - forfeit, "forfeit"
    elif won[0] != won[1]:
        winner, reason = (0 if won[0] > won[1] else 1), "games"
    elif tantos[0] != tantos[1]:
        winner, reason = (0 if tantos[0] > tantos[1] else 1), "tantos"
    else:
        winner, reason = None, "draw"
    return MatchResult(
        games_won=games_won,
        tantos=points,
        winner=winner,
        reason=reason,  # type: ignore[arg-type]
        forfeit=forfeit,
        faults=fault_pair,
        causes=() if forfeited is None else forfeit_causes(forfeited, forfeited.forfeit or 0),
    )


def forfeit_causes(game: GameRecord, side: int) -> tuple[Cause, ...]:
    """The cause of ``side``'s forfeit in ``game``: its last faulted decision there, named by
    the entrant that made it (in individual 2v2 one of the side's two bots)."""
    for event in reversed(game.events):
        if (
            isinstance(event, Decision)
            and event.fault is not None
            and game.entrant_at(event.seat) % 2 == side  # entrant k plays for side k % 2
        ):
            detail = f"fault {event.strikes} in game {game.number}: {event.detail or event.fault}"
            entrant = game.entrant_at(event.seat)
            return (Cause(entrant, "act", event.fault, event.status, detail),)
    return ()


def load_replay(data: bytes | str) -> Replay:
    """Decode a replay document; a version 1 document's ``duplicate`` becomes ``deals``."""
    try:
        return msgspec.json.decode(data, type=Replay)
    except msgspec.DecodeError as exc:
        problem = exc
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        raw = None
    if isinstance(raw, dict) and raw.get("format") == LEGACY_FORMAT and "deals" not in raw:
        duplicate = raw.pop("duplicate", None)
        if isinstance(duplicate, bool):
            raw["deals"] = "mirrored" if duplicate else "independent"
            try:
                return msgspec.convert(raw, Replay)
            except msgspec.ValidationError as exc:
                problem = exc
    raise VerifyError(f"not a valid replay document: {problem}") from None
