"""`truco test create|show|watch|cancel`: the platform's SPRT tests from the command line,
text and --json, against the real API (pairs played over HTTP by real bots on 127.0.0.1, or,
for cancel, a platform whose workers hold every pair)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import asyncpg
import pytest

from arena.sdk import BotServer
from services.launch.app import create_app
from tests.cli.conftest import Truco, served, unique
from tests.services.helpers.api_helpers import NetworkGuard, settings
from tests.services.helpers.api_play_helpers import NO_LIMITS


def _two_bots(truco: Truco, platform_url: str, bots: list[BotServer]) -> list[str]:
    truco.ok("account", "create", unique("org"), "--url", platform_url)
    names = [unique("h"), unique("r")]
    for name, server in zip(names, bots, strict=True):
        truco.ok("bot", "register", name, server.url)
    return names


def test_create_watch_show_a_test_that_accepts_h1(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    names = _two_bots(truco, platform_url, bots)
    made = truco.ok(
        "test", "create", names[0], names[1], "--elo1", "50", "--points", "15",
        "--max-games", "200",
    ).out  # fmt: skip
    found = re.match(rf"test (\d+) running: {platform_url}/tests/(\d+)\n", made)
    assert found is not None and found[1] == found[2]
    test_id = found[1]
    watched = truco.ok("test", "watch", test_id, "--interval", "0.2", "--timeout", "120").out
    assert f"test {test_id}: {names[0]} (bot " in watched and ": finished" in watched
    assert f"H1 accepted: {names[0]} (bot " in watched and "is at least 50 Elo stronger" in watched
    assert re.search(r"games \d+  W \d+ L \d+  LLR \+\d\.\d\d \[-2\.94, \+2\.94\]", watched)
    as_json = truco.ok("test", "show", test_id, "--json").json()
    assert as_json["status"] == "finished" and as_json["result"] == "H1"
    assert as_json["wins"] + as_json["losses"] == as_json["games"]
    by_page = truco.ok("test", "show", f"{platform_url}/tests/{test_id}").out
    by_api = truco.ok("test", "show", f"{platform_url}/v1/tests/{test_id}").out
    assert by_page == by_api == truco.ok("test", "show", test_id).out
    assert f"games {as_json['games']}  W {as_json['wins']} L {as_json['losses']}" in by_page
    over = truco("test", "cancel", test_id)
    assert over.code == 1 and "(409)" in over.err
    quiet = truco.ok("test", "create", names[0], names[1], "-q", "--elo1", "50", "--points", "15")
    assert quiet.out.strip().isdigit()
    bad = truco("test", "create", names[0], names[1], "--elo0", "10", "--elo1", "5")
    assert bad.code == 1 and "body.elo1" in bad.err and "(422)" in bad.err


@pytest.fixture
def held_platform(api_database_url: str, guard: NetworkGuard) -> Iterator[str]:
    """The API with workers that never play: a test stays running until cancelled."""

    async def hold(pool: asyncpg.Pool, match_ids: list[int]) -> None:
        return None

    app = create_app(
        settings(api_database_url),
        bot_client_factory=guard.factory,
        sender=hold,
        rate_limits=NO_LIMITS,
    )
    with served(app) as url:
        yield url


def test_watch_gives_up_cancel_stops_and_only_the_owner_cancels(
    held_platform: str, truco: Truco, bots: list[BotServer]
) -> None:
    names = _two_bots(truco, held_platform, bots)
    test_id = truco.ok("test", "create", names[0], names[1], "--json").json()["test_id"]
    waiting = truco("test", "watch", test_id, "--interval", "0.2", "--timeout", "0.3")
    assert waiting.code == 1 and "error: Still running: test" in waiting.err
    assert f"test {test_id} running: games 0  W 0 L 0" in waiting.out
    cancelled = truco.ok("test", "cancel", test_id, "--json").json()
    assert cancelled["status"] == "cancelled" and cancelled["result"] is None
    after = truco("test", "watch", test_id)
    assert after.code == 1 and f"error: Cancelled: test {test_id} cancelled" in after.err
    assert ": cancelled" in truco.ok("test", "show", test_id).out
    second = truco.ok("test", "create", names[0], names[1], "-q").out.strip()
    truco.ok("account", "create", unique("other"), "--url", held_platform, "--force")
    theirs = truco("test", "cancel", second)
    assert theirs.code == 1 and "(403)" in theirs.err
