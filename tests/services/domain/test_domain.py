"""The domain words of services/domain.py are the values the database accepts.

Every CHECK constraint of the form ``column IN ('a', 'b')`` in the migrations, the last
definition of each constraint winning, must list exactly the values of its Literal type.
"""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest

from services import domain
from tests.conftest import ROOT

MIGRATIONS = sorted((ROOT / "services" / "db" / "migrations").glob("*.sql"))
CHECK = re.compile(r"CONSTRAINT (\w+)\s+CHECK \((\w+) IN \(([^)]*)\)\)", re.S)


def checks() -> dict[str, set[str]]:
    """Constraint name -> the values it allows, as the migrations leave them."""
    found: dict[str, set[str]] = {}
    for path in MIGRATIONS:
        for name, _, values in CHECK.findall(path.read_text()):
            found[name] = set(re.findall(r"'([^']*)'", values))
    return found


@pytest.mark.parametrize(
    ("constraint", "literal"),
    [
        ("tournaments_format_check", domain.Format),
        ("tournaments_mode_check", domain.Mode),
        ("tournaments_status_check", domain.TournamentStatus),
        ("tournaments_partnership_check", domain.Partnership),
        ("rounds_status_check", domain.RoundStatus),
        ("matches_status_check", domain.MatchStatus),
        ("matches_mode_check", domain.Mode),
        ("matches_partnership_check", domain.Partnership),
        ("bots_status_check", domain.BotStatus),
        ("bots_challenges_check", domain.ChallengePolicy),
        ("ratings_mode_check", domain.RatingPool),
    ],
)
def test_the_database_accepts_exactly_the_domain_words(constraint: str, literal: Any) -> None:
    assert checks()[constraint] == set(get_args(literal))


def test_the_status_groups_are_match_statuses_and_do_not_overlap() -> None:
    statuses = set(get_args(domain.MatchStatus))
    groups = [
        set(domain.OPEN_STATUSES),
        set(domain.FINISHED_STATUSES),
        {domain.CANCELLED},
        {domain.GAVE_UP},
    ]
    assert set().union(*groups) == statuses
    assert sum(map(len, groups)) == len(statuses)
    assert domain.TEAM in domain.PARTNERSHIPS and domain.INDIVIDUAL in domain.PARTNERSHIPS
    assert set(domain.PLAYERS) == set(domain.MODES)
