"""Fixtures for the platform commands: the real API (real PostgreSQL) served over HTTP on
127.0.0.1 by uvicorn in a thread, matches played at once in process against real SDK bots,
and `truco` run in process with a config folder of the test's own."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar

from arena.sdk import BotServer, strategy_decider
from services.launch.app import create_app
from tests.conftest import ROOT
from tests.services.helpers.api_helpers import NetworkGuard, settings
from tests.services.helpers.api_play_helpers import NO_LIMITS
from tests.services.helpers.flow_helpers import InProcessSender, over_http
from tests.services.helpers.uvicorn_thread import serving
from truco_cli.main import main

ROOT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith(("TRUCO_API_", "XDG_CONFIG"))},
    "PYTHONPATH": str(ROOT),
}
"""The environment of a `truco` subprocess: this checkout's code, no platform settings."""


@contextlib.contextmanager
def served(app: Litestar) -> Iterator[str]:
    """``app`` on 127.0.0.1 (a free port) in a thread; yields its base URL."""
    with serving(app) as base:
        yield base


def platform_app(database_url: str, guard: NetworkGuard) -> Litestar:
    """The API of the platform commands' tests: ``/start`` and challenges play their matches at
    once, bot handshakes go through ``guard``."""
    return create_app(
        settings(database_url),
        bot_client_factory=guard.factory,
        sender=InProcessSender(over_http),
        rate_limits=NO_LIMITS,
    )


@pytest.fixture
def platform_url(api_database_url: str, guard: NetworkGuard) -> Iterator[str]:
    """The API over real HTTP; ``/start`` and challenges play their matches at once."""
    with served(platform_app(api_database_url, guard)) as url:
        yield url
    guard.assert_loopback_only()


def module_platform() -> tuple[Any, Any]:
    """Fixtures for a test module whose tests share ONE served API (building the app and
    starting its server is most of a short command test's cost). A module opts in with

        shared_platform, platform_url = module_platform()

    Each test's ``platform_url`` is the module's server, whose network guard starts the test
    empty and is checked after it. Only for tests that need no fresh app: none that leaves
    matches playing, asserts a budget or reads what the app keeps in memory (caches)."""

    @pytest.fixture(scope="module", name="shared_platform")
    def shared(api_database_url: str) -> Iterator[tuple[str, NetworkGuard]]:
        guard = NetworkGuard()
        with served(platform_app(api_database_url, guard)) as url:
            yield url, guard

    @pytest.fixture(name="platform_url")
    def each(shared_platform: tuple[str, NetworkGuard]) -> Iterator[str]:
        url, guard = shared_platform
        guard.forget()
        yield url
        guard.assert_loopback_only()

    return shared, each


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@dataclass
class Truco:
    """`truco ARGS...` in this process, with ``XDG_CONFIG_HOME`` = ``config_home``."""

    capsys: pytest.CaptureFixture[str]
    config_home: Path

    @property
    def config_file(self) -> Path:
        return self.config_home / "truco" / "config.toml"

    def __call__(self, *args: str | int) -> Result:
        self.capsys.readouterr()
        try:
            code = main([str(arg) for arg in args])
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
        captured = self.capsys.readouterr()
        assert "Traceback" not in captured.out + captured.err
        return Result(code, captured.out, captured.err)

    def ok(self, *args: str | int) -> Result:
        result = self(*args)
        assert result.code == 0, f"truco {args}: {result.code}\n{result.out}\n{result.err}"
        return result


@pytest.fixture
def truco(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Truco:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv("TRUCO_API_URL", raising=False)
    monkeypatch.delenv("TRUCO_API_KEY", raising=False)
    monkeypatch.delenv("TRUCO_BOT_SECRET", raising=False)
    return Truco(capsys, home)


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


@pytest.fixture
def bots() -> Iterator[list[BotServer]]:
    """Two real bots on 127.0.0.1 (heuristic, random) that check no signature."""
    servers = [
        BotServer(strategy_decider(strategy, seed=k), name=strategy, secret=None, port=0)
        for k, strategy in enumerate(["heuristic", "random"])
    ]
    for server in servers:
        server.start()
    yield servers
    for server in servers:
        server.stop()
