"""The export of a whole tournament as one JSON document (``truco-arena-tournament-export/1``).

``GET /v1/tournaments/{id}/export`` writes it and ``truco verify tournament`` reads it: these
types are the one description of the format for both (and for the OpenAPI document). Every
key a verifier needs is here: the seeds (commitment, master seed once revealed), the entries
and their seeds, every match with its place, seed, stored result, replay and the Elo changes it
applied, and the standings as the platform ranks them. ``matches`` is the last key, so the
platform can stream the document one match at a time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

from arena.game.deals import DealsMode
from arena.match.replay import Replay
from services.domain import (
    Format,
    MatchStatus,
    Mode,
    Partnership,
    RatingPool,
    RoundStatus,
    TournamentStatus,
)
from services.domain.seeds import SeedScheme

FORMAT = "truco-arena-tournament-export/1"


class ExportSeeds(msgspec.Struct, kw_only=True):
    """How the event's match seeds were made. ``scheme`` names the derivation
    (``truco-arena/seeds/v1``, docs/verify.md), or ``legacy`` for an event created before seeds
    were committed (its seeds cannot be verified). ``master_seed`` (hex) is null until the
    event is finished or cancelled."""

    scheme: Literal["truco-arena/seeds/v1", "legacy"]
    commitment: str | None
    master_seed: str | None


class ExportTournament(msgspec.Struct, kw_only=True):
    id: int
    name: str
    format: Format
    mode: Mode
    partnership: Partnership
    status: TournamentStatus
    organiser_id: int
    settings: dict[str, Any]
    current_round: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class ExportEntry(msgspec.Struct, kw_only=True):
    """A bot entered; ``seed`` (1 = best) once the event started."""

    bot_id: int
    name: str
    owner_id: int
    seed: int | None
    withdrawn: bool


class ExportRound(msgspec.Struct, kw_only=True):
    number: int
    status: RoundStatus


class ExportStanding(msgspec.Struct, kw_only=True):
    """One line of the standings as the format ranks them (the API's ``standings``)."""

    rank: int
    bot_id: int
    points: float
    withdrawn: bool
    tiebreaks: dict[str, float]


class ExportRatingChange(msgspec.Struct, kw_only=True):
    """One bot's Elo change from a match: its rating before and after in ``pool``, and how many
    rated matches it had played in the pool before (which fixes its K factor)."""

    bot_id: int
    pool: RatingPool
    before: int
    after: int
    rated_matches_before: int


class ExportMatch(msgspec.Struct, kw_only=True):
    """A match: its place (``round``, ``board``, ``bracket_match``: the identity its seed is
    derived from), its bots by slot (side = slot % 2), its seed once finished, the stored
    result, the replay (null for a bye, a forfeit without play, or a match not finished), the
    attempt that replay is (null without one; its deals derive from it: arena/game/deals.py) and
    the Elo changes it applied."""

    id: int
    round: int | None
    board: int
    bracket: str
    bracket_match: str | None
    bye: bool
    status: MatchStatus
    mode: Mode
    partnership: Partnership
    rated: bool
    games_per_match: int
    deals: DealsMode
    rules: dict[str, Any]
    seats: list[int]
    seed: int | None
    seed_scheme: SeedScheme
    winner_side: int | None
    result: dict[str, Any] | None  # a StoredResult (services.domain.result) as JSON
    rating_changes: list[ExportRatingChange]
    attempt: int | None = None
    replay: Replay | None


class TournamentExport(msgspec.Struct, kw_only=True):
    """The whole event. ``matches`` (last) are in round, board, id order."""

    format: str
    exported_at: datetime
    tournament: ExportTournament
    seeds: ExportSeeds
    entries: list[ExportEntry]
    rounds: list[ExportRound]
    standings: list[ExportStanding]
    matches: list[ExportMatch]


def decode_export(data: bytes) -> TournamentExport:
    """Decode an export document; msgspec.ValidationError / DecodeError when it is not one."""
    document = msgspec.json.decode(data, type=TournamentExport)
    if document.format != FORMAT:
        raise msgspec.ValidationError(f"unknown export format {document.format!r}, not {FORMAT}")
    return document


LADDER_DAY_FORMAT = "truco-arena-ladder-day/1"


class LadderDayExport(msgspec.Struct, kw_only=True):
    """A ladder day as one document, for ``truco verify ladder``: the day's commitment, its
    master seed once revealed, and every ladder match of the day with its number (its seed's
    identity), seed, stored result, replay and Elo changes. ``matches`` (last) by number."""

    format: str = LADDER_DAY_FORMAT
    pool: str
    day: str
    commitment: str
    master_seed: str | None
    exported_at: datetime
    numbers: list[int]
    matches: list[ExportMatch]


def decode_ladder_day(data: bytes) -> LadderDayExport:
    """A ladder day's export; ValueError (naming what is wrong) if it is not one."""
    try:
        doc = msgspec.json.decode(data, type=LadderDayExport)
    except msgspec.DecodeError as exc:
        raise ValueError(f"not a ladder day export: {exc}") from None
    if doc.format != LADDER_DAY_FORMAT:
        raise ValueError(f"not a ladder day export (format {doc.format!r})")
    if len(doc.numbers) != len(doc.matches):
        raise ValueError("a ladder day export gives one number per match")
    return doc
