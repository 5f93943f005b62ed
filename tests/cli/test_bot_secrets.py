"""`truco play` and `truco sprt` give each bot its own secret (`--secret-file-a`,
`--secret-file-b`; `--secret` still signs every bot), say "signature rejected" when a bot
answered 401, and show two local URL bots so they can be told apart."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.client.signing import new_secret
from arena.sdk import BotServer, strategy_decider
from truco_cli.main import main

QUICK = ["--points", "15", "--quiet"]


@pytest.fixture
def strict_bots() -> Iterator[tuple[list[BotServer], list[str]]]:
    """Two bots on 127.0.0.1 started with secrets of their own."""
    secrets = [new_secret(), new_secret()]
    servers = [
        BotServer(strategy_decider(name, seed=k), name=name, secret=secret, port=0)
        for k, (name, secret) in enumerate(zip(("heuristic", "random"), secrets, strict=True))
    ]
    for server in servers:
        server.start()
    yield servers, secrets
    for server in servers:
        server.stop()


def _files(tmp_path: Path, secrets: list[str]) -> list[Path]:
    files = []
    for letter, secret in zip("ab", secrets, strict=True):
        files.append(tmp_path / f"{letter}.secret")
        files[-1].write_text(secret + "\n")
        files[-1].chmod(0o600)
    return files


def _run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main([str(arg) for arg in argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, " ".join(captured.out.split()), captured.err


def test_play_signs_each_bot_with_its_own_secret_and_shows_them_apart(
    strict_bots: tuple[list[BotServer], list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (a, b), secrets = strict_bots
    files = _files(tmp_path, secrets)
    out = tmp_path / "m.json"
    argv = ["play", a.url, b.url, *QUICK, "--games", "2", "--out", out]
    code, text, _ = _run(capsys, *argv, "--secret-file-a", files[0], "--secret-file-b", files[1])
    # "(401)", not "401": a bot's port may hold those digits (127.0.0.1:40163 did)
    assert code == 0 and "walkover" not in text and "(401)" not in text
    for letter, bot in zip("AB", (a, b), strict=True):  # in full: no "http://127.0.0.1…"
        assert f"{letter} {bot.url.removeprefix('http://')}" in text
    assert re.search(r"Result: (A|B) 127\.0\.0\.1:\d+ wins \d-\d against", text) or "draw" in text
    # one shared secret: bot B (started with its own) refuses it, and that is what is said
    code, text, _ = _run(capsys, *argv, "--force", "--secret-file", files[0])
    assert code == 0
    assert f"B {b.url.removeprefix('http://')} loses by walkover: signature rejected (401)" in text
    assert "wins by walkover" in text


def test_sprt_says_signature_rejected_and_runs_with_two_secrets(
    strict_bots: tuple[list[BotServer], list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (a, b), secrets = strict_bots
    files = _files(tmp_path, secrets)
    sprt = ["sprt", a.url, b.url, "--points", "15", "--max-games", "4"]
    code, _, err = _run(capsys, *sprt, "--secret", secrets[0])
    assert code == 1
    assert "signature rejected (401)" in err and "cannot reach" not in err
    assert f"B {b.url.removeprefix('http://')}" in err
    code, text, _ = _run(
        capsys, *sprt, "--secret-file-a", files[0], "--secret-file-b", files[1], "--json"
    )
    assert code == 0 and '"games": 4' in text


def test_bad_secret_options_are_refused_before_any_game(
    strict_bots: tuple[list[BotServer], list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (a, b), secrets = strict_bots
    files = _files(tmp_path, secrets)
    loose = tmp_path / "loose.secret"
    loose.write_text(secrets[0])
    loose.chmod(0o644)
    bad = tmp_path / "bad.secret"
    bad.write_text("not-a-secret")
    bad.chmod(0o600)
    cases = [
        (["play", a.url, b.url, "--secret-file-c", files[0]], 2, "there is no bot C"),
        (["play", a.url, b.url, "--secret-file-a", loose], 2, "chmod 600"),
        (["play", a.url, b.url, "--secret-file-b", bad], 2, "--secret-file-b"),
        (["play", a.url, b.url, "--secret-file-a", tmp_path / "none"], 2, "cannot read"),
        (["sprt", a.url, b.url, "--secret-file-c", files[0]], 2, "unrecognized arguments"),
        (["sprt", a.url, b.url, "--secret", "x", "--secret-file", files[0]], 2, "not allowed"),
    ]
    for argv, code, words in cases:
        extra = ["--out", tmp_path / "x.json"] if argv[0] == "play" else []
        got, _, err = _run(capsys, *argv, *extra)
        assert got == code and words in err, (argv, err)
    assert not (tmp_path / "x.json").exists()
