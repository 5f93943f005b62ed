"""Whole matches over real HTTP: SDK bot servers on 127.0.0.1, the guarded client, `truco play`."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.client.bot_client import BotClient, ClientConfig
from arena.client.connection import BotConnection, HttpBot
from arena.client.egress import EgressPolicy
from arena.client.signing import generate_secret
from arena.match.entrants import BadBotSpec, connect
from arena.match.replay import Decision, EntrantRecord, load_replay
from arena.match.runner import MatchSettings, run_match
from arena.match.verify import verify_replay
from arena.sdk import BotServer, strategy_decider
from arena.wire.protocol import ActRequest, EndRequest, StartRequest
from engine import Action, Rules

LONG_MS = 30_000
"""The deadline of matches that must have no fault: one no loaded machine reaches (a timeout
would be the machine's doing, not the signature check's under test)."""


def test_a_2v2_match_over_http_is_signed_recorded_and_verifiable() -> None:
    secret = generate_secret()
    seen: list[object] = []

    def decide(request: ActRequest) -> Action:
        seen.append(request)
        return strategy_decider("heuristic", 4)(request)

    servers = [
        BotServer(decide, name="h", secret=secret, on_start=seen.append, on_end=seen.append),
        BotServer(strategy_decider("random", 5), name="r", secret=secret),
    ]
    for server in servers:
        server.start()
    try:
        entrants = [
            connect(s.url, seed=i, secret=secret, timeout_ms=LONG_MS, allow_loopback=True)
            for i, s in enumerate(servers)
        ]
        settings = MatchSettings(rules=Rules(players=4), games_per_match=2, timeout_ms=LONG_MS)
        replay = asyncio.run(run_match("http-1", 21, settings, entrants))
    finally:
        for server in servers:
            server.stop()
    # every request passed the SDK's signature check (a bad one would be a 401 fault)
    assert replay.result.faults == (0, 0)
    assert len(replay.games) == 2 and replay.result.winner is not None
    decisions = [e for g in replay.games for e in g.events if isinstance(e, Decision)]
    assert decisions and all(d.fault is None and d.latency_ms > 0 for d in decisions)
    assert {r.seat for r in seen if isinstance(r, ActRequest)} == {0, 1, 2, 3}
    assert sum(isinstance(r, StartRequest) for r in seen) == 4  # two seats x two games
    assert sum(isinstance(r, EndRequest) for r in seen) == 4
    verify_replay(replay)


def test_a_bot_with_the_wrong_secret_loses_by_walkover() -> None:
    good, other = generate_secret(), generate_secret()
    server = BotServer(strategy_decider("random", 1), name="strict", secret=other)
    server.start()
    try:
        entrants = [
            connect(server.url, seed=1, secret=good, timeout_ms=1000, allow_loopback=True),
            connect("builtin:random", seed=2, secret=good, timeout_ms=1000, allow_loopback=True),
        ]
        replay = asyncio.run(run_match("http-2", 1, MatchSettings(), entrants))
    finally:
        server.stop()
    # the info handshake is unsigned-safe, so the walkover comes from the refused /start
    assert replay.result.reason == "walkover" and replay.result.winner == 1
    [cause] = replay.result.causes
    assert (cause.side, cause.call, cause.kind, cause.status) == (0, "start", "http_status", 401)
    assert "the bot rejected the signature" in cause.detail


def test_during_a_rotation_bots_on_either_secret_accept_the_requests() -> None:
    old, new = generate_secret(), generate_secret()
    servers = [
        BotServer(strategy_decider("random", 1), name="still-old", secret=old),
        BotServer(strategy_decider("random", 2), name="already-new", secret=new),
    ]
    config = ClientConfig(timeout_ms=LONG_MS, policy=EgressPolicy(allow_loopback=True))
    entrants: list[tuple[EntrantRecord, BotConnection]] = []
    for server in servers:
        server.start()
        client = BotClient(server.url, new, previous_secrets=[old], config=config)
        entrants.append((EntrantRecord(server.info.name, server.url), HttpBot("x", client)))
    try:
        replay = asyncio.run(run_match("http-rot", 3, MatchSettings(timeout_ms=LONG_MS), entrants))
    finally:
        for server in servers:
            server.stop()
    assert replay.result.reason != "walkover" and replay.result.faults == (0, 0)
    verify_replay(replay)


def test_connection_refused_is_named_without_the_address() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    entrants = [
        connect(
            f"http://127.0.0.1:{port}/",
            seed=1,
            secret=generate_secret(),
            timeout_ms=500,
            allow_loopback=True,
        ),
        connect(
            "builtin:random", seed=2, secret=generate_secret(), timeout_ms=500, allow_loopback=True
        ),
    ]
    replay = asyncio.run(run_match("http-4", 1, MatchSettings(), entrants))
    [cause] = replay.result.causes
    assert (cause.side, cause.call, cause.kind, cause.status) == (0, "info", "connect", None)
    assert cause.detail == "connection refused"


def test_unreachable_and_refused_urls() -> None:
    with pytest.raises(BadBotSpec, match="base URL"):
        connect(
            "ftp://127.0.0.1/", seed=1, secret=generate_secret(), timeout_ms=1, allow_loopback=True
        )
    with pytest.raises(BadBotSpec, match="unknown strategy"):
        connect("builtin:nope", seed=1, secret=generate_secret(), timeout_ms=1, allow_loopback=True)
    # loopback refused outside local play: the guard answers before any connection
    entrants = [
        connect(
            "http://127.0.0.1:9/",
            seed=1,
            secret=generate_secret(),
            timeout_ms=500,
            allow_loopback=False,
        ),
        connect(
            "builtin:random", seed=2, secret=generate_secret(), timeout_ms=500, allow_loopback=False
        ),
    ]
    replay = asyncio.run(run_match("http-3", 1, MatchSettings(), entrants))
    assert replay.result.reason == "walkover" and replay.result.walkover == (0,)


def test_truco_play_command_writes_a_verifiable_replay(tmp_path: Path) -> None:
    server = BotServer(strategy_decider("heuristic", 3), name="h")
    server.start()
    out = tmp_path / "m.json"
    try:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "truco_cli.main",
                "play",
                server.url,
                "builtin:random",
                "--games",
                "2",
                "--seed",
                "9",
                "--points",
                "15",
                "--quiet",
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.stop()
    assert result.returncode == 0, result.stderr
    assert "Result: " in result.stdout and "p95 ms" in result.stdout
    replay = load_replay(out.read_bytes())
    verify_replay(replay)
    assert replay.rules.points_to_win == 15 and len(replay.games) == 2
    data = json.loads(out.read_text())
    assert data["entrants"][0]["source"] == server.url
    check = subprocess.run(
        [sys.executable, "-m", "truco_cli.main", "replay", "verify", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0 and check.stdout.startswith(f"{out}: ok (2 games")
    bad = subprocess.run(
        [sys.executable, "-m", "truco_cli.main", "play", "nonsense", "builtin:random"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "bad bot 'nonsense'" in bad.stderr
    assert "Traceback" not in bad.stderr
