"""`truco play` tells why a bot lost: signature rejected (401), connection refused, timed out."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.client.signing import new_secret
from arena.match.replay import load_replay
from arena.match.verify import verify_replay
from arena.sdk import BotServer, strategy_decider
from truco_cli.main import main


def play(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, url: str, *extra: str, timeout: int = 3000
) -> str:
    out = tmp_path / "m.replay.json"
    argv = ["play", url, "builtin:random", "--quiet", "--out", str(out)]
    assert main([*argv, "--timeout-ms", str(timeout), *extra]) == 0
    verify_replay(load_replay(out.read_bytes()))
    return " ".join(capsys.readouterr().out.split())  # rich wraps long lines


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def test_a_wrong_secret_is_signature_rejected_401(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with BotServer(strategy_decider("random", 1), name="strict", secret=new_secret()) as bot:
        text = play(capsys, tmp_path, bot.url, "--secret", new_secret())
    assert "loses by walkover: signature rejected (401) on /start" in text
    assert "connection refused" not in text and "timed out" not in text


def test_a_closed_port_is_connection_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    text = play(capsys, tmp_path, f"http://127.0.0.1:{port}")
    assert "loses by walkover: connection refused on GET /" in text
    # not "401" alone: the random port in the text may hold those digits (40147 did)
    assert "signature rejected" not in text and "(401)" not in text


def test_a_silent_bot_timed_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, silent_port: int
) -> None:
    text = play(capsys, tmp_path, f"http://127.0.0.1:{silent_port}", timeout=300)
    assert "loses by walkover: timed out on GET / (no complete answer within 300 ms)" in text
