"""Request and response bodies of matches, challenges and leaderboards (msgspec Structs)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from arena.game.deals import Deals
from arena.match.luck import MatchLuck
from engine.rules import Rules
from services.api.schemas.tournaments import (
    GamesPerMatch,
    MasterSeed,
    MatchEntrant,
    OutcomeField,
    PartnershipField,
    RulesObject,
    SeedCommitment,
)
from services.domain import MatchStatus, Mode, RatingPool
from services.domain.seeds import SeedScheme
from services.live.feed import LiveGame
from services.tournaments.brackets.knockout import DecidedBy

BotRef = Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1)]


class GameRead(msgspec.Struct, kw_only=True):
    """One game: points by side, the winning side and bot (null if abandoned by a forfeit;
    ``winner`` is null in individual 2v2, where a side is two bots)."""

    score: list[int]
    winner: int | None
    winner_side: int | None


class LiveReplay(msgspec.Struct, kw_only=True):
    """The spectator view of a match being played (format truco-arena-live/1): no seed, no
    deals, no señas; ``hand_started`` carries no ``deal``; a ``decision`` carries its seat,
    latency and fault kind only."""

    format: str
    live: bool
    match_id: int
    status: MatchStatus
    rules: Rules
    entrants: list[MatchEntrant]
    games: list[LiveGame]


class MatchCause(msgspec.Struct, kw_only=True):
    """Why a side lost by walkover or forfeit: the failed call (``info`` is GET /, then
    ``start``, ``act``, ``end``), the fault kind (timeout, connect, http_status, bad_body,
    too_large, illegal_action), the HTTP status when there was one, a short detail and a
    one-line ``summary`` ("signature rejected (401) on /start")."""

    side: int
    bot_id: int | None
    call: str
    kind: str
    status: int | None
    detail: str
    summary: str


class MatchRead(msgspec.Struct, kw_only=True):
    """A match. ``seed`` is shown once the match is over (it decides the deals)."""

    id: int
    status: MatchStatus
    mode: Mode
    partnership: PartnershipField
    tournament_id: int | None
    ladder: Annotated[
        str | None,
        msgspec.Meta(
            description="the ladder a ladder match was played on (`1v1`, `2v2-individual`); "
            "null for a tournament's match, a challenge or a test's pair"
        ),
    ]
    round: int | None
    bracket_match: str | None
    bye: bool
    rated: bool
    games_per_match: int
    deals: Deals
    rules: Rules
    entrants: list[MatchEntrant]
    games: list[GameRead]
    winner: int | None  # the winning bot; null for a draw and in individual 2v2 (see winners)
    winners: list[int]  # the bots of the winning side
    winner_side: int | None
    reason: str | None  # games, tantos, draw, forfeit, walkover, withdrawn, bye
    cause: MatchCause | None  # of a walkover or forfeit (side 0's, for a double walkover)
    causes: list[MatchCause]  # one per side that lost by walkover or forfeit
    error: Annotated[
        str | None,
        msgspec.Meta(
            description=(
                "why the platform decided the match without a result of its bots (reason "
                "`error`): a platform fault (a worker could not play it) or the recovery "
                "sweeper giving up on it; nobody's rating moved"
            )
        ),
    ] = None
    games_won: list[int] | None
    tantos: list[int] | None
    decided_by: Annotated[
        DecidedBy | None,
        msgspec.Meta(
            description=(
                "a finished bracket match played to the end: what decided who goes through, "
                "`games`, then `tantos` when level on games, then `seed` (the better seed) "
                "when level on both; null for any other match, a forfeit or a walkover"
            )
        ),
    ] = None
    outcome: OutcomeField = None
    seed: int | None
    seed_scheme: Annotated[
        SeedScheme,
        msgspec.Meta(
            description=(
                "`derived-v1`: the seed is HMAC-SHA256 of a committed master seed and the "
                "match's identity (its tournament's, or the challenge's own; docs/verify.md); "
                "`legacy`: drawn at random before seeds were committed, not verifiable"
            )
        ),
    ]
    seed_commitment: Annotated[
        SeedCommitment,
        msgspec.Meta(
            description=(
                "a challenge's commitment to its own master seed (a tournament match's is its "
                "tournament's `seed_commitment`)"
            )
        ),
    ]
    master_seed: Annotated[
        MasterSeed,
        msgspec.Meta(
            description=(
                "a challenge's master seed, once the match is over and no worker plays it any more"
            )
        ),
    ]
    created_at: datetime
    finished_at: datetime | None
    luck: Annotated[
        MatchLuck | None,
        msgspec.Meta(
            description=(
                "the luck of the cards (docs/luck.md), from side 0's view (side 1's is the "
                "opposite): per hand, per game and over the match, in tantos and in the chance "
                "of winning a game, and the adjusted result (the raw one minus the luck), by the "
                "luck model `model` names; null for a match not played (or stored before luck "
                "was computed). In a bot's list of matches the games carry no hands (`hands` "
                "is empty): `GET /v1/matches/{id}` has them"
            )
        ),
    ] = None


class MatchPage(msgspec.Struct):
    """A page of matches, newest first; pass ``next_cursor`` as ``cursor``."""

    items: list[MatchRead]
    next_cursor: int | None


class ChallengeCreate(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A casual, unrated match of your bot ``bot_a`` against any active bot ``bot_b``;
    ``deals: "mirrored"`` only when both bots are yours."""

    bot_a: BotRef
    bot_b: BotRef
    mode: Mode = "1v1"
    games_per_match: GamesPerMatch | None = None
    rules: RulesObject | None = None
    deals: Deals = "independent"


class ChallengeCreated(msgspec.Struct):
    match_id: int
    status: MatchStatus
    seed_commitment: Annotated[
        str,
        msgspec.Meta(
            description=(
                "SHA-256 (hex) of `truco-arena/commitment/v1:` and the challenge's secret "
                "master seed, which GET /v1/matches/{match_id} reveals once the match is over"
            )
        ),
    ]


RatingInterval = Annotated[
    tuple[float, float],
    msgspec.Meta(
        description=(
            "the 95% interval [low, high] of the bot's strength on the Elo scale, from the "
            "maximum-likelihood fit over every rated match of the pool (its centre may differ "
            "from the Elo rating, which depends on the order of the games); null until the "
            "bot's first fit"
        )
    ),
]
LosNext = Annotated[
    float,
    msgspec.Meta(
        description=(
            "likelihood of superiority, between 0 and 1: the probability, from the same fit, "
            "that this bot is stronger than the entry below it; null for the last entry and while the fit is "
            "older than the order (the fit runs within a minute of a result)"
        ),
    ),
]


class LeaderboardEntry(msgspec.Struct, kw_only=True):
    rank: int
    bot_id: int
    name: str
    rating: float
    matches: int
    wins: int
    losses: int
    draws: int
    provisional: bool  # fewer than 10 rated matches in this mode
    interval: RatingInterval | None = None
    los_next: LosNext | None = None


class Leaderboard(msgspec.Struct):
    """Bots with rated matches in ``mode`` (a rating pool: 1v1, 2v2 for team 2v2,
    2v2-individual), highest rating first; pass ``next_cursor`` as ``cursor`` for the next
    page."""

    mode: RatingPool
    entries: list[LeaderboardEntry]
    next_cursor: int | None
    fitted_at: datetime | None = None
    """When the intervals and LOS of these entries were fitted (null before the first fit)."""
