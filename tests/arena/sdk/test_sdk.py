"""The bot SDK served on 127.0.0.1: info/start/act/end, signatures, bad bodies, author errors."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import httpx
import msgspec
import pytest

from arena.client import signing
from arena.sdk import BotServer, strategy_decider
from arena.wire import protocol
from arena.wire.protocol import ActRequest, ActResponse, EndRequest, StartRequest, legal_answer
from engine import Action, Rules, legal_actions, new_game, observation
from truco_cli import bot as bot_cli

SECRET = signing.generate_secret()


def act_request(seed: int = 1) -> ActRequest:
    state = new_game(Rules(), seed)
    return protocol.act_request(
        "m1",
        "g1",
        state.to_act,
        observation(state, state.to_act),
        legal_actions(state),
        timeout_ms=1000,
        time_bank_ms=10000,
        last_latency_ms=None,
    )


def start_request() -> StartRequest:
    return protocol.start_request(
        "m1",
        "g1",
        0,
        Rules(),
        game_number=1,
        games_in_match=2,
        team=0,
        entrants=["a", "b"],
        timeout_ms=1000,
        time_bank_ms=10000,
    )


def end_request() -> EndRequest:
    state = new_game(Rules(), 1)
    return protocol.end_request("m1", "g1", 0, observation(state, 0), score=(30, 12), winner=0)


def post(
    url: str, path: str, body: bytes, secret: str | None = SECRET, stamp: int | None = None
) -> httpx.Response:
    headers = {"content-type": "application/json"}
    if secret is not None:
        headers |= signing.sign(secret, signing.new_message_id(), stamp or int(time.time()), body)
    with httpx.Client(trust_env=False, follow_redirects=False, timeout=5) as client:
        return client.post(url + path, content=body, headers=headers)


class Recorder:
    def __init__(self) -> None:
        self.starts: list[StartRequest] = []
        self.ends: list[EndRequest] = []
        self.acts: list[ActRequest] = []

    def decide(self, req: ActRequest) -> Action:
        self.acts.append(req)
        return req.legal_actions[-1]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def signed_bot(recorder: Recorder) -> Iterator[BotServer]:
    server = BotServer(
        recorder.decide,
        name="recorder",
        author="tests",
        secret=SECRET,
        on_start=recorder.starts.append,
        on_end=recorder.ends.append,
    )
    with server:
        yield server


def test_info_start_act_end(signed_bot: BotServer, recorder: Recorder) -> None:
    assert signed_bot.host == "127.0.0.1" and signed_bot.port > 0
    info = httpx.get(signed_bot.url + "/", trust_env=False).json()
    assert info == {"apiversion": "1", "name": "recorder", "author": "tests"}
    enc = msgspec.json.encode
    assert post(signed_bot.url, "/start", enc(start_request())).status_code == 200
    request = act_request()
    answer = post(signed_bot.url, "/act", enc(request))
    assert answer.status_code == 200
    assert msgspec.json.decode(answer.content, type=ActResponse).to_action() == Action("mazo")
    assert post(signed_bot.url, "/end", enc(end_request())).status_code == 200
    assert [s.game_id for s in recorder.starts] == ["g1"]
    assert recorder.acts[0].observation == request.observation
    assert recorder.ends[0].score == (30, 12)


@pytest.mark.parametrize("case", ["unsigned", "wrong_key", "stale", "altered"])
def test_bad_signatures_get_401(signed_bot: BotServer, recorder: Recorder, case: str) -> None:
    body = msgspec.json.encode(act_request())
    if case == "unsigned":
        answer = post(signed_bot.url, "/act", body, secret=None)
    elif case == "wrong_key":
        answer = post(signed_bot.url, "/act", body, secret=signing.generate_secret())
    elif case == "stale":
        answer = post(signed_bot.url, "/act", body, stamp=int(time.time()) - 301)
    else:
        headers = signing.sign(SECRET, "msg_1", int(time.time()), body)
        answer = httpx.post(
            signed_bot.url + "/act", content=body + b" ", headers=headers, trust_env=False
        )
    assert answer.status_code == 401
    assert "error" in answer.json()
    assert recorder.acts == []  # decide never ran


def test_bad_json_gets_400(signed_bot: BotServer) -> None:
    for body in (b"{not json", b'{"apiversion": "1"}', b"[]"):
        answer = post(signed_bot.url, "/act", body)
        assert answer.status_code == 400, body
        assert answer.json()["error"].startswith("bad /act body")


def test_unknown_path_gets_404(signed_bot: BotServer) -> None:
    assert post(signed_bot.url, "/move", b"{}").status_code == 404
    assert httpx.get(signed_bot.url + "/nope", trust_env=False).status_code == 404


def test_every_refused_request_is_logged_with_its_reason_and_never_the_secret(
    signed_bot: BotServer, caplog: pytest.LogCaptureFixture
) -> None:
    body = msgspec.json.encode(act_request())
    now = int(time.time())
    with caplog.at_level(logging.WARNING, logger="arena.sdk"):
        assert post(signed_bot.url, "/act", body).status_code == 200  # a good one: no warning
        assert caplog.records == []
        refused = {
            "MissingSignature": post(signed_bot.url, "/act", body, secret=None),
            "BadSignature": post(signed_bot.url, "/act", body, secret=signing.generate_secret()),
            "StaleTimestamp": post(signed_bot.url, "/act", body, stamp=now - 301),
            "bad /act body": post(signed_bot.url, "/act", b"{not json"),
            "no endpoint /move": post(signed_bot.url, "/move", b"{}"),
            "no endpoint /nope": httpx.get(signed_bot.url + "/nope", trust_env=False),
        }
        with socket.create_connection((signed_bot.host, signed_bot.port)) as sock:
            sock.sendall(b"POST /act HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n")
            assert sock.recv(100).startswith(b"HTTP/1.1 413")
    messages = [record.getMessage() for record in caplog.records]
    assert all(record.levelno == logging.WARNING for record in caplog.records)
    assert len(messages) == len(refused) + 1, messages
    for reason, answer in refused.items():
        assert answer.status_code in (400, 401, 404)
        line = next((m for m in messages if reason in m), None)
        assert line is not None, (reason, messages)
        assert line.startswith("bot recorder refused ") and " from 127.0.0.1: " in line
        assert f": {answer.status_code} " in line
    assert any("413 the body is 99999999 bytes" in m for m in messages)
    key = SECRET.removeprefix("whsec_")
    assert not any(key in m or key[:12] in m for m in messages)


def test_author_errors_get_500_and_the_server_lives_on() -> None:
    calls: list[int] = []

    def flaky(req: ActRequest) -> Action:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("my bot broke")
        return req.legal_actions[0]

    with BotServer(flaky, name="flaky") as server:
        body = msgspec.json.encode(act_request())
        broken = post(server.url, "/act", body, secret=None)
        assert broken.status_code == 500
        assert "RuntimeError: my bot broke" in broken.json()["error"]
        assert post(server.url, "/act", body, secret=None).status_code == 200


def test_decide_may_return_an_act_response_but_not_anything_else() -> None:
    def as_response(req: ActRequest) -> ActResponse:
        return ActResponse(action="mazo", say="me voy")

    def wrong(req: ActRequest) -> ActResponse:
        return "mazo"  # type: ignore[return-value]

    body = msgspec.json.encode(act_request())
    with BotServer(as_response, name="r") as server:
        assert post(server.url, "/act", body, secret=None).json() == {
            "action": "mazo",
            "say": "me voy",
        }
    with BotServer(wrong, name="w") as server:
        answer = post(server.url, "/act", body, secret=None)
        assert answer.status_code == 500 and "TypeError" in answer.json()["error"]


def test_a_malformed_secret_fails_at_construction() -> None:
    with pytest.raises(signing.InvalidSecret):
        BotServer(lambda req: req.legal_actions[0], name="x", secret="whsec_not base64!")


def test_strategy_decider_is_legal_and_seeded() -> None:
    request = act_request(seed=4)
    first = strategy_decider("random", seed=9)(request)
    assert first in request.legal_actions
    assert all(strategy_decider("random", seed=9)(request) == first for _ in range(5))


def test_cli_serves_a_builtin_strategy() -> None:
    parser = argparse.ArgumentParser()
    bot_cli.add_arguments(parser)
    args = parser.parse_args(
        ["serve", "--strategy", "heuristic", "--port", "0", "--secret", SECRET]
    )
    with bot_cli.make_server(args) as server:
        info = httpx.get(server.url + "/", trust_env=False).json()
        assert info["name"] == "builtin-heuristic"
        request = act_request()
        answer = post(server.url, "/act", msgspec.json.encode(request))
        assert answer.status_code == 200
        decoded = msgspec.json.decode(answer.content, type=ActResponse)
        assert legal_answer(decoded, request.legal_actions) is not None
        assert (
            post(server.url, "/act", msgspec.json.encode(request), secret=None).status_code == 401
        )


def test_cli_rejects_an_unknown_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    bot_cli.add_arguments(parser)
    args = parser.parse_args(["serve", "--strategy", "genius", "--port", "0"])
    assert bot_cli.run(args) == 2
    assert "heuristic" in capsys.readouterr().err


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("sent", "inherited"),
    [
        (signal.SIGINT, None),
        # started by a shell without job control (a script's "&", some CI runners): SIGINT
        # comes in ignored, and Python keeps it so unless the bot says otherwise
        (signal.SIGINT, _ignore_sigint),
        (signal.SIGTERM, None),  # kill, container runtimes
    ],
    ids=["ctrl-c", "ctrl-c-inherited-ignored", "sigterm"],
)
def test_truco_bot_serve_runs_until_interrupted(
    sent: signal.Signals, inherited: Callable[[], None] | None
) -> None:
    code = (
        "import argparse, sys\n"
        "from truco_cli import bot\n"
        "parser = argparse.ArgumentParser()\n"
        "bot.add_arguments(parser)\n"
        "sys.exit(bot.run(parser.parse_args(sys.argv[1:])))\n"
    )
    argv = [sys.executable, "-u", "-c", code, "serve", "--strategy", "random", "--port", "0"]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, text=True, env=os.environ.copy(), preexec_fn=inherited
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "serving strategy 'random'" in line, line
        url = line.split(" on ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        assert httpx.get(url + "/", trust_env=False).json()["name"] == "builtin-random"
        proc.send_signal(sent)
        # the exit status is what is tested, not how fast it comes: a loaded machine may take
        # many seconds to schedule the process (5 s was once too few)
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
