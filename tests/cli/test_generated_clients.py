"""The tools strangers bring: a Python client generated from ``api-spec/openapi.json`` with
openapi-python-client (the most used modern generator) drives the quickstart path against
the platform on 127.0.0.1, and openapi-typescript turns the same document into types.

The generator's output lives in a temporary folder, made once for the module; nothing of it is
committed. The TypeScript check needs the npm tools ``make node-tools`` installs (it is skipped, saying
so, where they are absent)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from arena.sdk import BotServer
from tests.cli.conftest import unique
from tests.services.helpers.node_tools import binary, node_tools

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "api-spec" / "openapi.json"
PACKAGE = "truco_generated_client"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    where = tmp_path_factory.mktemp("generated")
    tool = Path(sys.executable).with_name("openapi-python-client")
    answer = subprocess.run(
        [str(tool), "generate", "--path", str(SPEC), "--meta", "none",
         "--output-path", str(where / PACKAGE)],
        capture_output=True, text=True, timeout=300, cwd=where,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"},
    )  # fmt: skip
    assert answer.returncode == 0, answer.stdout + answer.stderr
    assert "Warning" not in answer.stdout + answer.stderr, answer.stdout + answer.stderr
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _call(generated: ModuleType, tag: str, operation: str) -> Any:
    return importlib.import_module(f"{generated.__name__}.api.{tag}.{operation}")


def _model(generated: ModuleType, name: str) -> Any:
    return getattr(importlib.import_module(f"{generated.__name__}.models"), name)


def test_the_generated_python_client_drives_the_quickstart(
    generated: ModuleType, platform_url: str, bots: list[BotServer]
) -> None:
    """Account, bots, a tournament with its entries, its start and standings, a replay, a
    challenge and a secret rotation: every call typed by the generated client, every answer
    parsed into its models (not the fallback of an unexpected status)."""
    client = generated.Client(base_url=platform_url, raise_on_unexpected_status=True)
    account = _call(generated, "accounts", "create_account").sync(
        client=client, body=_model(generated, "AccountCreate")(name=unique("gen"))
    )
    assert account.api_key
    auth = generated.AuthenticatedClient(
        base_url=platform_url, token=account.api_key, raise_on_unexpected_status=True
    )
    made = [
        _call(generated, "bots", "create_bot").sync(
            client=auth,
            body=_model(generated, "BotCreate")(name=unique("gen-bot"), url=server.url),
        )
        for server in bots
    ]
    assert all(bot.signing_secret for bot in made)
    tournament = _call(generated, "tournaments", "create_tournament").sync(
        client=auth,
        body=_model(generated, "TournamentCreate")(
            name=unique("gen-swiss"),
            format_=_model(generated, "TournamentCreateFormat")("swiss"),
            mode=_model(generated, "TournamentCreateMode")("1v1"),
            rounds=1,
            games_per_match=1,
        ),
    )
    for bot in made:
        _call(generated, "tournaments", "enter_tournament").sync(
            tournament.id, client=auth, body=_model(generated, "EntryCreate")(bot_id=bot.id)
        )
    started = _call(generated, "tournaments", "start_tournament").sync(tournament.id, client=auth)
    assert started.queued
    shown = _call(generated, "tournaments", "get_tournament").sync(tournament.id, client=client)
    assert shown.status == "finished"
    assert sorted(row.bot_id for row in shown.standings) == sorted(b.id for b in made)
    match_id = started.queued[0]
    match = _call(generated, "matches", "get_match").sync(match_id, client=client)
    assert match.status in ("done", "forfeit") and len(match.entrants) == 2
    replay = _call(generated, "matches", "get_match_replay").sync(match_id, client=client)
    assert replay is not None and replay.match_id == str(match_id)
    challenge = _call(generated, "matches", "create_challenge").sync(
        client=auth,
        body=_model(generated, "ChallengeCreate")(bot_a=made[0].id, bot_b=made[1].id),
    )
    played = _call(generated, "matches", "get_match").sync(challenge.match_id, client=client)
    assert played.status in ("done", "forfeit")
    rotated = _call(generated, "bots", "rotate_bot_secret").sync(
        made[0].id, client=auth, body=_model(generated, "SecretRotate")()
    )
    assert rotated.signing_secret and rotated.signing_secret != made[0].signing_secret
    board = _call(generated, "leaderboards", "get_leaderboard").sync(
        _model(generated, "GetLeaderboardMode")("1v1"), client=client
    )
    assert {e.bot_id for e in board.entries} >= {b.id for b in made}


def test_openapi_typescript_reads_the_document(tmp_path: Path) -> None:
    node_tools("openapi-typescript")
    tool = binary("openapi-typescript")
    out = tmp_path / "api.d.ts"
    answer = subprocess.run(
        [str(tool), str(SPEC), "--output", str(out)], capture_output=True, text=True, timeout=300
    )
    assert answer.returncode == 0, answer.stdout + answer.stderr
    types = out.read_text()
    for operation in ("createAccount", "createBot", "startTournament", "getLadder"):
        assert f"{operation}:" in types, operation
    # a fixed tuple (prefixItems with minItems = maxItems) becomes a TypeScript tuple
    assert re.search(r"interval: \[\s*number,\s*number\s*\]", types), "interval not a pair"


def test_the_generated_python_client_drives_the_ladder_and_play(
    generated: ModuleType, platform_url: str, bots: list[BotServer]
) -> None:
    """The ladder (join, the table, a change of cap, leave) and /play (a match of a person
    against one's own bot, every decision through the generated calls with the session's
    ``X-Play-Token``, to the end, then its replay as the typed Replay document)."""
    client = generated.Client(base_url=platform_url, raise_on_unexpected_status=True)
    account = _call(generated, "accounts", "create_account").sync(
        client=client, body=_model(generated, "AccountCreate")(name=unique("gen-l"))
    )
    auth = generated.AuthenticatedClient(
        base_url=platform_url, token=account.api_key, raise_on_unexpected_status=True
    )
    bot = _call(generated, "bots", "create_bot").sync(
        client=auth, body=_model(generated, "BotCreate")(name=unique("gen-lb"), url=bots[1].url)
    )
    joined = _call(generated, "ladders", "join_ladder").sync(
        "1v1", client=auth, body=_model(generated, "LadderJoin")(bot_id=bot.id, hourly_cap=7)
    )
    assert joined.bot_id == bot.id
    table = _call(generated, "ladders", "get_ladder").sync("1v1", client=client)
    assert bot.id in [entry.bot_id for entry in table.entries]
    changed = _call(generated, "ladders", "update_ladder_entry").sync(
        "1v1", bot.id, client=auth, body=_model(generated, "LadderUpdate")(hourly_cap=3)
    )
    assert changed.hourly_cap == 3
    _call(generated, "ladders", "leave_ladder").sync("1v1", bot.id, client=auth)
    table = _call(generated, "ladders", "get_ladder").sync("1v1", client=client)
    assert bot.id not in [entry.bot_id for entry in table.entries]
    created = _call(generated, "play", "create_play").sync(
        client=auth, body=_model(generated, "PlayCreate")(bot_id=bot.id)
    )
    seat = generated.AuthenticatedClient(
        base_url=platform_url,
        token=created.token,
        prefix="",
        auth_header_name="X-Play-Token",
        raise_on_unexpected_status=True,
        timeout=httpx.Timeout(60.0),
    )
    view, acted = created.view, 0
    while view.status == "playing":
        if view.turn:
            first = view.turn.legal_actions[0]
            body = _model(generated, "PlayAct")(
                number=view.turn.number, action=first.action, card=first.card
            )
            view = _call(generated, "play", "act_in_play").sync(created.id, client=seat, body=body)
            acted += 1
        else:
            view = _call(generated, "play", "get_play").sync(
                created.id, client=seat, after=view.version
            )
    assert view.status == "finished" and acted > 0
    replay = _call(generated, "play", "get_play_replay").sync(created.id, client=client)
    assert isinstance(replay, _model(generated, "Replay")), type(replay)
    assert replay.games and replay.format_
