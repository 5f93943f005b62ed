"""A platform (or a bot name on it) cannot drive the user's terminal: escape sequences,
carriage returns, C1 controls, zero-width and bidirectional characters in what the platform
sends are printed as visible ``\\uXXXX`` escapes, in text and in --json (where the escape
means the same character, so the JSON decodes to exactly what was sent).

The hostile platform is a real HTTP server on 127.0.0.1 answering crafted documents."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.cli.conftest import Truco

EVIL_NAME = "evil\x1b[2J\x1b]0;pwned\x07\r\u202eman\u200b\x9b31m"
BOT = {
    "id": 1,
    "owner_id": 2,
    "name": EVIL_NAME,
    "status": "active",
    "created_at": "2026-01-01T00:00:00Z",
    "rating": {"1v1": 1500.0, "2v2": 1500.0},
}
PROBLEM = {
    "type": "/problems/not-found",
    "title": "Not\x1b[31m Found",
    "status": 404,
    "detail": "there is no bot\rOK everything is fine\x1b[0m",
    "errors": [{"field": "path\x1b[1A", "message": "gone\x9b"}],
}
TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e]")


class _Hostile(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/v1/bots/1"):
            status, body, kind = 200, BOT, "application/json"
        elif self.path.startswith("/v1/leaderboards/"):
            entry = {"rank": 1, "bot_id": 1, "name": EVIL_NAME, "rating": 1500.0, "matches": 1}
            entry |= {"wins": 1, "losses": 0, "draws": 0, "provisional": True}
            status, body, kind = 200, {"mode": "1v1", "entries": [entry], "next_cursor": None}, ""
        else:
            status, body, kind = 404, PROBLEM, "application/problem+json"
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", kind or "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def hostile(truco: Truco, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The hostile platform, as TRUCO_API_URL (after ``truco`` has cleared the environment)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("TRUCO_API_URL", url)
    yield url
    server.shutdown()
    server.server_close()


def test_names_and_problems_cannot_drive_the_terminal(hostile: str, truco: Truco) -> None:
    shown = truco("bot", "show", "1")
    board = truco("leaderboard")
    missing = truco("bot", "show", "2")
    for result in (shown, board, missing):
        assert not TERMINAL_CONTROL.search(result.out + result.err), repr(result)
    assert shown.code == 0 and "evil\\x1b[2J\\x1b]0;pwned\\x07\\r\\u202eman" in shown.out  # repr
    assert "evil\\u001b[2J\\u001b]0;pwned\\u0007\\u000d\\u202eman" in board.out
    assert missing.code == 1
    assert missing.err.splitlines() == [
        "error: Not\\u001b[31m Found (404): there is no bot\\u000dOK everything is fine\\u001b[0m",
        "  path\\u001b[1A: gone\\u009b",
    ]
    as_json = truco("bot", "show", "1", "--json")
    assert not TERMINAL_CONTROL.search(as_json.out)
    assert as_json.json()["name"] == EVIL_NAME  # the same data, only written safely
    problem = truco("bot", "show", "2", "--json")
    assert not TERMINAL_CONTROL.search(problem.err)
    assert json.loads(problem.err)["detail"] == PROBLEM["detail"]
