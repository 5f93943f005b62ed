"""openapi-generator's `python` client (the most used generator; the PyPI package bundles its
jar, Java 17 runs it), generated from the committed ``api-spec/openapi.json`` with its default
validation, drives the platform on 127.0.0.1: the quickstart (account, bots, a tournament
entered, started and shown, a match and its replay, a challenge, a secret rotation, the
leaderboard), the ladder (join, the table, a change, leave) and /play (a whole match of a
person against one's own bot, then its replay). Every answer is parsed into the generator's
pydantic models (which check types strictly): the count of failures is 0.

Skipped, saying why, without the generator or Java. The generated code lives in a temporary
folder, nothing of it is committed."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from arena.sdk import BotServer
from tests.cli.conftest import unique
from tests.services.api.test_spec_lint import SPEC, openapi_generator

PACKAGE = "truco_openapi_generator_client"


@pytest.fixture(scope="module")
def og(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    command = openapi_generator()
    where = tmp_path_factory.mktemp("openapi-generator")
    done = subprocess.run(
        [*command, "generate", "-i", str(SPEC), "-g", "python", "-o", str(where),
         "--package-name", PACKAGE],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _client(og: ModuleType, url: str, key: str | None = None, play: str | None = None) -> Any:
    config = og.Configuration(host=url, access_token=key)
    if play is not None:
        config.api_key["PlayToken"] = play
    return og.ApiClient(config)


def test_openapi_generator_s_python_client_drives_the_platform(
    og: ModuleType, platform_url: str, bots: list[BotServer]
) -> None:
    calls = 0

    def call(api: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return getattr(api, name)(*args, **kwargs)

    anyone = _client(og, platform_url)
    account = call(og.AccountsApi(anyone), "create_account", og.AccountCreate(name=unique("og")))
    auth = _client(og, platform_url, account.api_key)
    bots_api, tournaments = og.BotsApi(auth), og.TournamentsApi(auth)
    made = [
        call(bots_api, "create_bot", og.BotCreate(name=unique("og-bot"), url=server.url))
        for server in bots
    ]
    assert all(bot.signing_secret for bot in made)
    cup = call(
        tournaments,
        "create_tournament",
        og.TournamentCreate(
            name=unique("og-swiss"), format="swiss", mode="1v1", rounds=1, games_per_match=1
        ),
    )
    for bot in made:
        call(tournaments, "enter_tournament", cup.id, og.EntryCreate(bot_id=bot.id))
    started = call(tournaments, "start_tournament", cup.id)
    shown = call(og.TournamentsApi(anyone), "get_tournament", cup.id)
    assert shown.status == "finished"
    assert sorted(row.bot_id for row in shown.standings) == sorted(b.id for b in made)
    matches = og.MatchesApi(anyone)
    match = call(matches, "get_match", started.queued[0])
    assert match.status in ("done", "forfeit")
    replay = call(matches, "get_match_replay", started.queued[0])
    assert replay.actual_instance.match_id == str(started.queued[0])
    challenge = call(
        og.MatchesApi(auth),
        "create_challenge",
        og.ChallengeCreate(bot_a=made[0].id, bot_b=made[1].id),
    )
    assert call(matches, "get_match", challenge.match_id).status in ("done", "forfeit")
    rotated = call(bots_api, "rotate_bot_secret", made[0].id, og.SecretRotate())
    assert rotated.signing_secret != made[0].signing_secret
    board = call(og.LeaderboardsApi(anyone), "get_leaderboard", "1v1")
    assert {e.bot_id for e in board.entries} >= {b.id for b in made}
    # the ladder
    ladders = og.LaddersApi(auth)
    joined = call(ladders, "join_ladder", "1v1", og.LadderJoin(bot_id=made[1].id, hourly_cap=7))
    assert joined.bot_id == made[1].id
    table = call(og.LaddersApi(anyone), "get_ladder", "1v1")
    assert made[1].id in [e.bot_id for e in table.entries]
    changed = call(ladders, "update_ladder_entry", "1v1", made[1].id, og.LadderUpdate(hourly_cap=3))
    assert changed.hourly_cap == 3
    call(ladders, "leave_ladder", "1v1", made[1].id)
    # /play: a whole match, every decision through the generated calls
    created = call(og.PlayApi(auth), "create_play", og.PlayCreate(bot_id=made[1].id))
    seat = og.PlayApi(_client(og, platform_url, play=created.token))
    view, acted = created.view, 0
    while view.status == "playing":
        if view.turn is not None:
            first = view.turn.legal_actions[0]
            act = og.PlayAct(number=view.turn.number, action=first.action, card=first.card)
            view = call(seat, "act_in_play", created.id, act)
            acted += 1
        else:
            view = call(seat, "get_play", created.id, after=view.version)
    assert view.status == "finished" and acted > 0
    played = call(og.PlayApi(anyone), "get_play_replay", created.id)
    assert isinstance(played, og.Replay) and played.games
    print(f"\nopenapi-generator python: {calls} calls, 0 failures")
