"""The plain data of a play session as it travels and is kept in Redis (no Redis, no database
here): the person's log items and seating, the opponent, the outcome, the order a bot-calling
worker plays a session from, and the seat's snapshot the player writes."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from arena.match.replay import Replay
from arena.match.runner import MatchSettings
from arena.wire.protocol import ActRequest
from arena.wire.structs import Observation
from services.domain.match_order import EntrantOrder

Role = Literal["you", "partner", "rival"]
PlayStatus = Literal["playing", "finished", "abandoned"]


class PlaySeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat of one game: who sits there for the person (``you``, ``partner``, ``rival``)
    and the bot's name (``person`` for the person)."""

    seat: int
    role: Role
    name: str


class PlaySeating(msgspec.Struct, frozen=True, kw_only=True):
    """Where everyone sits in game ``game`` (1-based)."""

    game: int
    seats: list[PlaySeat]


class PlayLogItem(msgspec.Struct, frozen=True, kw_only=True):
    """One thing the person's seat saw: ``event`` is the engine's event as that seat sees it
    (the replay document's vocabulary: ``hand_started`` with only the person's own cards in
    ``deal``, ``action``, ``round_ended``, ``envido_settled``...), or the ``decision`` record
    (a seat's latency and fault) that comes before an action. ``n`` counts over the match."""

    n: int
    game: int
    event: Annotated[
        msgspec.Raw,
        msgspec.Meta(
            description="an event of the replay document's vocabulary (its `type` names it)",
            extra_json_schema={"type": "object"},
        ),
    ]
    """Kept encoded (a session holds its match's log: a few bytes an event, not a dict)."""


class Opponent(msgspec.Struct, frozen=True, kw_only=True):
    bot_id: int
    name: str


class PlayOutcome(msgspec.Struct, frozen=True, kw_only=True):
    winner_side: int | None
    games_won: tuple[int, int]
    reason: str
    person_won: bool


def outcome(replay: Replay, person_side: int) -> PlayOutcome:
    result = replay.result
    return PlayOutcome(
        winner_side=result.winner,
        games_won=result.games_won,
        reason=result.reason,
        person_won=result.winner == person_side,
    )


class PlayOrder(msgspec.Struct, frozen=True, kw_only=True):
    """What a bot-calling worker needs to play a session (it reads no database): the bots in
    slot order after the person (1v1: the opponent; 2v2: opponent, partner, opponent), with
    their decrypted signing secrets as a match order carries them, the match's settings, the
    person's clock and bank, and the session's address digest (its limits' entry, renewed
    with the session's lease)."""

    play_id: int
    seed: int
    settings: MatchSettings
    bots: list[EntrantOrder]
    clock_s: float
    bank_s: float | None
    address: str
    """The hex digest the session is counted under (never the address itself)."""


class PlayStatic(msgspec.Struct, frozen=True, kw_only=True):
    """What never changes in a session's view, written once by the API that made it."""

    opponent: Opponent
    partner: Opponent | None = None
    person_side: int = 0
    settings: MatchSettings


class OpenTurn(msgspec.Struct, frozen=True, kw_only=True):
    """The decision the person owes, as kept in Redis: the request the runner sent to the
    person's seat, its clock, when it closes (wall clock, ms since the epoch) and the game's
    bank of thinking time when it opened."""

    number: int
    request: ActRequest
    clock_ms: int
    deadline_ms: int
    bank_left_ms: int | None = None


class SeatSnapshot(msgspec.Struct, frozen=True, kw_only=True):
    """The person's seat as its player last wrote it (the view is made from it by any API
    process): the game, the open turn, the latest observation, whose turn it is, the seating,
    where each game's items begin, and how many log items there are."""

    game_number: int = 0
    turn: OpenTurn | None = None
    observation: Observation | None = None
    to_act: int | None = None
    seating: list[PlaySeating] = []
    game_starts: list[int] = []
    log_len: int = 0


class PersonAnswer(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What the API pushes to a session's answers list: a decision, or ``leave``."""

    number: int = 0
    action: str = ""
    card: str | None = None
    sena: str | None = None
    leave: bool = False
