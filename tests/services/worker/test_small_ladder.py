"""A small pool on a fresh platform (issue 32, item 2): the house bots as ``make run`` sets
them up, and two other owners' bots that join both ladders. Every bot of the 1v1 ladder ends
either placed or shown waiting for opponents, with how many it has and how many a placement
needs; the individual 2v2 ladder, which seats four owners and has three, shows every bot
waiting for opponents the same way. The API, the page and ``truco ladder show`` say it.

Before: the 1v1 bots stopped at 9 matches each (three opponents, three meetings a day) with
"placement: 9 of about 31 matches", and nothing said why; the ladder simply went quiet."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.servers import PostgresServer, new_migrated_database
from tests.services.worker.small_platform import Platform, fresh_platform
from truco_cli.ladder import table_text

pytestmark = [pytest.mark.slow]

SETTLED = ("placed", "needs_opponents")
QUIET_S = 60.0  # the ladder made no match for this long: whatever it shows now is its answer
LIMIT_S = 900.0  # a hang guard


@pytest.fixture(scope="module")
def database_url(postgres_server: PostgresServer) -> str:
    return new_migrated_database(postgres_server)


def settled(table: dict[str, Any]) -> bool:
    return all(e["placement"]["state"] in SETTLED for e in table["entries"])


def wait_until_settled(platform: Platform, ladder: str) -> dict[str, Any]:
    """The ladder's table once every bot is placed or waiting for opponents; fails, showing
    the table, if the ladder goes quiet (no match playing or made for ``QUIET_S``) first."""
    deadline = time.monotonic() + LIMIT_S
    seen: tuple[int, int] | None = None
    quiet_since = time.monotonic()
    while True:
        table = platform.table(ladder)
        if settled(table):
            return table
        now = time.monotonic()
        progress = (table["in_flight"], sum(e["matches"] for e in table["entries"]))
        if progress != seen or table["in_flight"]:
            seen, quiet_since = progress, now
        assert now - quiet_since < QUIET_S, f"the {ladder} ladder went quiet:\n{table_text(table)}"
        assert now < deadline, f"the {ladder} ladder did not settle:\n{table_text(table)}"
        time.sleep(1.0)


def test_a_small_pool_places_its_bots_or_says_how_many_opponents_they_need(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    with fresh_platform(stack_env, tmp_path) as platform:
        newcomers = [
            platform.join(strategy, ("1v1", "2v2-individual"), seed=k)
            for k, strategy in enumerate(("heuristic", "random"))
        ]
        one = wait_until_settled(platform, "1v1")
        assert {e["bot_id"] for e in one["entries"]} >= set(newcomers)
        for entry in one["entries"]:
            placement = entry["placement"]
            if placement["state"] == "needs_opponents":
                # a newcomer meets the other newcomer and the two house bots; a house bot,
                # the two newcomers (never its house partner)
                assert placement["opponents"] == (3 if entry["bot_id"] in newcomers else 2)
                assert placement["needed"] > placement["opponents"]
        page = platform.client.get("/ladders/1v1").text
        for entry in one["entries"]:
            if entry["placement"]["state"] == "needs_opponents":
                words = f"waiting for opponents: {entry['placement']['opponents']} of about"
                assert words in page and words in table_text(one)

        four = platform.table("2v2-individual")
        assert len(four["entries"]) == 4 and four["in_flight"] == 0
        for entry in four["entries"]:  # three owners: no table of four owners can be seated
            placement = entry["placement"]
            assert placement["state"] == "needs_opponents" and placement["matches"] == 0
            assert placement["needed"] > placement["opponents"] >= 2
