"""What a ladder match is: one game to 15 points with the default rules, seated as its pool
seats it (two players in 1v1; four in individual 2v2, one bot a seat). One source for the
matchmaker's inserts, the docs and the tests: a pool whose rules do not seat its bots can
never be played (issue 32: every individual 2v2 ladder match was refused by the worker)."""

from __future__ import annotations

from typing import Literal

from engine.rules import Rules
from services.ladder.model import LadderPool

LADDER_GAMES = 1
"""Games in a ladder match."""


def players_of(pool: LadderPool) -> Literal[2, 4]:
    """Seats at a ladder match of ``pool`` (a bot a seat)."""
    return 4 if pool == "2v2-individual" else 2


def ladder_rules(pool: LadderPool) -> Rules:
    """A ladder match's rules: one game to 15 points, as many players as the pool seats bots,
    every other rule at its default."""
    return Rules(players=players_of(pool), points_to_win=15)
