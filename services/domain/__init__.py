"""The platform's domain words, once: every name a tournament, match, bot or rating pool is
stored and served with. The API's schemas, the workflow and the database rows take their types
from here; the CHECK constraints of the migrations hold the same values (a test compares them).
"""

from __future__ import annotations

from typing import Final, Literal, get_args

Format = Literal["swiss", "single_elimination", "double_elimination", "round_robin"]
"""A tournament format; each is an object of :mod:`services.tournaments.formats`."""
Mode = Literal["1v1", "2v2"]
"""How many seats a match has: two, or four in two partnerships."""
Partnership = Literal["team", "individual"]
"""How a 2v2 side is filled: one bot for both seats, or a bot per seat (1v1 is ``team``)."""
RatingPool = Literal["1v1", "2v2", "2v2-individual"]
"""The Elo pools: 1v1, team 2v2, individual 2v2."""
SideResult = Literal["a", "b", "draw"]
"""A match's result between its sides: side a (0) won, side b (1) won, or a draw."""
BotResult = Literal["win", "loss", "draw"]
"""A match's result as one bot's rating history records it."""


def side_result(winner_side: int | None) -> SideResult:
    """The result between the sides of a match whose winner is side ``winner_side`` (0 is a,
    1 is b, None a draw)."""
    return "draw" if winner_side is None else ("a" if winner_side == 0 else "b")


TournamentStatus = Literal["registering", "running", "finished", "cancelled"]
RoundStatus = Literal["pending", "running", "done"]
MatchStatus = Literal["pending", "queued", "running", "done", "forfeit", "error", "cancelled"]
"""``error``: the sweeper gave up after too many attempts; ``cancelled``: its tournament was."""
BotStatus = Literal["active", "unavailable", "deleted"]
ChallengePolicy = Literal["open", "owner_only"]
"""Who may challenge a bot: anyone, or only its owner's bots."""

FORMATS: Final[tuple[Format, ...]] = get_args(Format)
MODES: Final[tuple[Mode, ...]] = get_args(Mode)
PARTNERSHIPS: Final[tuple[Partnership, ...]] = get_args(Partnership)
RATING_POOLS: Final[tuple[RatingPool, ...]] = get_args(RatingPool)
CHALLENGE_POLICIES: Final[tuple[ChallengePolicy, ...]] = get_args(ChallengePolicy)

TEAM: Final = "team"
INDIVIDUAL: Final = "individual"
PLAYERS: Final[dict[Mode, int]] = {"1v1": 2, "2v2": 4}
"""Seats per match in each mode."""

OPEN_STATUSES: Final[tuple[MatchStatus, ...]] = ("pending", "queued", "running")
"""A match still to be played (or being played)."""
FINISHED_STATUSES: Final[tuple[MatchStatus, ...]] = ("done", "forfeit")
"""A match with a result."""
CANCELLED: Final = "cancelled"
"""A match whose tournament was cancelled (migration 0003); a late result is dropped."""
GAVE_UP: Final = "error"
"""The status (and result reason) of a match the sweeper stopped re-sending; it is decided
with no winner and no Elo change."""
LIVE_TOURNAMENT_STATUSES: Final[tuple[TournamentStatus, ...]] = ("registering", "running")
"""A tournament still taking entries or being played (its page updates itself)."""
