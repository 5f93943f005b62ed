"""Request and response bodies of tournaments and their entries (msgspec Structs)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec

from arena.game.deals import Deals
from arena.match.runner import DEFAULT_GAMES_PER_MATCH
from engine.rules import Rules
from services.domain import Format, MatchStatus, Mode, Partnership, RoundStatus, TournamentStatus
from services.tournaments.brackets.bracket import BracketKind, BracketPart
from services.tournaments.outcome import MatchOutcome

OutcomeField = Annotated[
    MatchOutcome | None,
    msgspec.Meta(
        description=(
            "the result as people read it: `sides` winner first (no winner: side 0 first), each "
            "with its bots, games won and tantos; `decided_by` why (games, tantos, draw, seed, "
            "forfeit, walkover, withdrawn, bye); `partners` true when a side is two bots "
            "(individual 2v2); `phrase` the result in English, winner's score first. null "
            "while the match is not over, and for a cancelled or given-up match"
        )
    ),
]

PartnershipField = Annotated[
    Partnership,
    msgspec.Meta(
        description=(
            "how a 2v2 side is filled. team: one bot plays both seats of its side (that bot may "
            "combine what both seats see). individual: every seat is its own bot; each bot "
            "enters alone and the event forms partnerships every round, partners and opponents "
            "from different owners when possible (swiss and round_robin only). 1v1 is team."
        )
    ),
]

TournamentName = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=100,
        pattern=r"^[^\s\x00]([^\x00]*[^\s\x00])?$",
        description="1-100 characters, no leading or trailing space",
        examples=["Copa Truco"],
    ),
]
RulesObject = Annotated[
    dict[str, Any],
    msgspec.Meta(
        description=(
            "the engine's rules object (players, points_to_win, flor, falta_envido, "
            "mazo_first_round_costs_two, sena_seen_by_opponents); players follows the mode"
        ),
        examples=[{"points_to_win": 15, "flor": False}],
    ),
]
GamesPerMatch = Annotated[
    int,
    msgspec.Meta(
        ge=1,
        le=100,
        description=(
            f"games in each match; default {DEFAULT_GAMES_PER_MATCH[2]} in 1v1 and "
            f"{DEFAULT_GAMES_PER_MATCH[4]} in 2v2: the shortest matches in which the built-in "
            "heuristic bot beats a weakened copy of itself 95% of the time (docs/deals.md)"
        ),
    ),
]


class TournamentCreate(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A new tournament; ``rounds`` is the Swiss round count (default ceil(log2 n) + 1,
    capped so a small field can be paired without rematches); with ``deals: "mirrored"`` only
    the organiser's own bots may enter."""

    name: TournamentName
    format: Format
    mode: Mode
    partnership: PartnershipField = "team"
    rounds: Annotated[int, msgspec.Meta(ge=1, le=64)] | None = None
    games_per_match: GamesPerMatch | None = None
    rules: RulesObject | None = None
    timeout_ms: Annotated[int, msgspec.Meta(ge=10, le=60_000)] = 1000
    fault_limit: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 5
    third_place: bool = False
    start_at: datetime | None = None
    deals: Deals = "independent"


class TournamentSettingsRead(msgspec.Struct, kw_only=True):
    rules: Rules
    rounds: int | None
    games_per_match: int
    timeout_ms: int
    time_bank_ms: int
    fault_limit: int
    third_place: bool
    deals: Deals
    rated: bool


SeedCommitment = Annotated[
    str | None,
    msgspec.Meta(
        description=(
            "SHA-256, in hex, of `truco-arena/commitment/v1:` followed by the 32 bytes of the "
            "secret master seed every match seed is derived from (docs/verify.md); published "
            "from creation on. null for an event created before seeds were committed"
        )
    ),
]
MasterSeed = Annotated[
    str | None,
    msgspec.Meta(
        description=(
            "the master seed (64 hex digits), revealed once the event is over and no worker "
            "still plays a match of it; null until then, and for an event created before "
            "seeds were committed"
        )
    ),
]


class TournamentSummary(msgspec.Struct, kw_only=True):
    id: int
    name: str
    format: Format
    mode: Mode
    partnership: PartnershipField
    status: TournamentStatus
    organiser_id: int
    settings: TournamentSettingsRead
    current_round: int
    created_at: datetime
    start_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    seed_commitment: SeedCommitment
    master_seed: Annotated[
        MasterSeed,
        msgspec.Meta(
            description=(
                "revealed once the tournament is finished or cancelled and every match it "
                "decided without play has stopped being played"
            )
        ),
    ]


class TournamentPage(msgspec.Struct):
    """A page of tournaments, newest first; pass ``next_cursor`` as ``cursor``."""

    items: list[TournamentSummary]
    next_cursor: int | None


class MatchEntrant(msgspec.Struct):
    """A bot in a match and its side (side 0 plays first in the first game). In individual
    2v2 a match has four, two a side, in seat order of the first game."""

    bot_id: int
    name: str
    side: int


class RoundMatch(msgspec.Struct, kw_only=True):
    id: int
    status: MatchStatus
    board: int
    entrants: list[MatchEntrant]
    winner: int | None  # the winning bot's id; null while open, for a draw, in individual 2v2
    winners: list[int]  # the bots of the winning side (two in individual 2v2)
    bye: bool
    bracket_match: str | None
    outcome: OutcomeField = None


class RoundRead(msgspec.Struct):
    number: int
    status: RoundStatus
    matches: list[RoundMatch]


class StandingRead(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One line of the standings. Swiss and round robin carry their tiebreaks; elimination
    formats carry ``losses`` and ``seed`` (``points`` is then matches won). Individual 2v2:
    one line per bot, scoring its side's results (Swiss: buchholz is the sum of the mean
    points of the two opponents of each match)."""

    rank: int
    bot_id: int
    name: str
    points: float
    withdrawn: bool
    buchholz_cut1: float | None = None
    buchholz: float | None = None
    sonneborn_berger: float | None = None
    direct_encounter: float | None = None
    game_points: float | None = None
    tantos_difference: float | None = None
    losses: float | None = None
    seed: float | None = None


class BracketSide(msgspec.Struct, omit_defaults=True):
    """A slot of a bracket match: a seed and its bot once known; ``bye`` for an empty slot."""

    seed: int | None = None
    bot_id: int | None = None
    bye: bool = False


class BracketMatchRead(msgspec.Struct, kw_only=True):
    code: str  # W2-1, L1-3, 3P, GF, GF2
    bracket: BracketPart
    round: int
    a: BracketSide
    b: BracketSide
    winner: int | None  # the bot that went through
    match_id: int | None  # the played match, if any
    void: bool  # decided without a match (a bye, or a reset that is not needed)


class BracketRead(msgspec.Struct):
    kind: BracketKind
    matches: list[BracketMatchRead]
    champion: int | None


class TournamentDetail(TournamentSummary, kw_only=True):
    """A tournament with its rounds, standings and, for elimination formats, the bracket."""

    entries: int
    rounds: list[RoundRead]
    standings: list[StandingRead]
    bracket: BracketRead | None = None


class EntryCreate(msgspec.Struct, forbid_unknown_fields=True):
    bot_id: Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1)]


class EntryRead(msgspec.Struct, kw_only=True):
    tournament_id: int
    bot_id: int
    name: str
    seed: int | None
    entered_at: datetime
    withdrawn_at: datetime | None


class EntryPage(msgspec.Struct):
    """Entries by bot id; pass ``next_cursor`` as ``cursor``."""

    items: list[EntryRead]
    next_cursor: int | None


class TournamentStarted(msgspec.Struct):
    """The tournament is running; ``queued`` are the first matches handed to the workers."""

    id: int
    status: TournamentStatus
    queued: list[int]


class TournamentCancelled(msgspec.Struct):
    """The tournament is cancelled; ``cancelled_matches`` were unfinished and will not count."""

    id: int
    status: TournamentStatus
    cancelled_matches: list[int]
