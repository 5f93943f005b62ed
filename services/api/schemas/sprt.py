"""Request and response bodies of SPRT tests (``/v1/tests``; docs/sprt.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from arena.game.deals import Deals
from engine.rules import Rules
from services.api.schemas.matches import BotRef
from services.domain.sprt_runs import MAX_CONCURRENCY, Outcome, SprtStatus

MAX_TEST_GAMES = 20_000
"""The most games a test may ask for (the local ``truco sprt`` default)."""

EloBound = Annotated[float, msgspec.Meta(ge=-1000.0, le=1000.0)]
ErrorRate = Annotated[float, msgspec.Meta(gt=0.0, le=0.5)]


class SprtCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A test of ``bot_a`` (yours) against ``bot_b`` (yours, or another account's bot that
    accepts challenges): the same parameters as ``truco sprt``."""

    bot_a: BotRef
    bot_b: BotRef
    elo0: Annotated[EloBound, msgspec.Meta(description="H0: A is elo0 Elo stronger")] = 0.0
    elo1: Annotated[
        EloBound, msgspec.Meta(description="H1: A is elo1 Elo stronger (above elo0)")
    ] = 10.0
    alpha: Annotated[ErrorRate, msgspec.Meta(description="the false H1 rate")] = 0.05
    beta: Annotated[ErrorRate, msgspec.Meta(description="the false H0 rate")] = 0.05
    max_games: Annotated[
        int,
        msgspec.Meta(
            ge=2,
            le=MAX_TEST_GAMES,
            description="stop undecided after this many games (rounded down to whole pairs)",
        ),
    ] = 2000
    players: Literal[2, 4] = 2
    points: Literal[15, 30] = 30
    flor: bool = True
    rules: Annotated[
        dict[str, Any] | None,
        msgspec.Meta(
            description=(
                "the other rules options (falta_envido, mazo_first_round_costs_two, "
                "sena_seen_by_opponents); players, points and flor are set by their own fields"
            )
        ),
    ] = None
    deals: Deals = "independent"
    concurrency: Annotated[
        int, msgspec.Meta(ge=1, le=MAX_CONCURRENCY, description="pairs in play at once")
    ] = 2


class SprtCreated(msgspec.Struct, kw_only=True):
    test_id: int
    status: str


class SprtPairs(msgspec.Struct, kw_only=True, rename={"lost": "0-2", "split": "1-1", "won": "2-0"}):
    """Pairs by bot A's games in them: lost both, split, won both."""

    lost: int
    split: int
    won: int


class SprtRead(msgspec.Struct, kw_only=True):
    """A test: its parameters, where it stands and, once over, its result. ``games``,
    ``wins`` and ``losses`` count stored pairs only (games of bot A); ``llr`` is the
    log-likelihood ratio of H1 against H0 and ``bounds`` Wald's: H0 is accepted at or below
    the first, H1 at or above the second. ``elo`` is bot A's estimated advantage with its 95%
    interval. ``history`` is the LLR's path, ``[games, llr]`` points (at most 241)."""

    id: int
    status: SprtStatus
    result: Outcome | None
    error: str | None
    owner_id: int
    bot_a: int
    bot_b: int
    mode: str
    rules: Rules
    deals: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    concurrency: int
    games: int
    wins: int
    losses: int
    pairs: SprtPairs
    llr: float
    bounds: tuple[float, float]
    elo: float
    elo_interval: tuple[float, float]
    history: list[tuple[int, float]]
    created_at: datetime
    finished_at: datetime | None
