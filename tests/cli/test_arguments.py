"""Every command, every kind of argument: an id, an API address, a page address, a file, a
missing file and garbage give a useful answer and a non-zero exit, never a traceback
(property tests over the parser, the commands and their resolvers).

The configured platform is a closed port on 127.0.0.1, and every address generated names
127.0.0.1, so nothing here leaves this machine: a well-formed id ends as "Platform
unreachable" (exit 1), anything else is refused before any request."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truco_cli.errors import CommandError
from truco_cli.main import main
from truco_cli.refs import MAX_ID, parse_ref
from truco_cli.tournament_source import export_url, read_source

PLATFORM = "http://127.0.0.1:9"  # discard: nothing listens
OTHER = "http://127.0.0.1:10"  # another platform (also nothing)
KINDS = ("tournaments", "matches", "tests", "bots")

ids = st.integers(min_value=-5, max_value=2**70).map(str)
garbage = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=40,
)
addresses = st.builds(
    lambda base, prefix, kind, number, tail: f"{base}/{prefix}{kind}/{number}{tail}",
    st.sampled_from([PLATFORM, OTHER, "https://127.0.0.1:9", "http://[::1]:9", "http://"]),
    st.sampled_from(["", "v1/", "v2/", "x/"]),
    st.sampled_from([*KINDS, "replays", ""]),
    st.one_of(st.integers(0, 2**64).map(str), st.sampled_from(["abc", "", "-1", "1e3"])),
    st.sampled_from(["", "/", "/export", "/live", "?x=1", "#top", "/a/b"]),
)


@pytest.fixture
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A file of garbage, an empty file, a folder and a missing file."""
    root = tmp_path_factory.mktemp("args")
    (root / "garbage.json").write_bytes(b"\xff{not json")
    (root / "empty.json").write_text("")
    (root / "list.json").write_text("[1, 2]")
    (root / "folder").mkdir()
    return {
        name: str(root / name)
        for name in ("garbage.json", "empty.json", "list.json", "folder", "missing.json")
    }


@pytest.fixture
def configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("TRUCO_API_URL", PLATFORM)
    monkeypatch.delenv("TRUCO_API_KEY", raising=False)
    monkeypatch.delenv("TRUCO_BOT_SECRET", raising=False)
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def _commands(x: str, out: str) -> list[list[str]]:
    """Every command and subcommand that takes an object or a file, with ``x`` there."""
    return [
        ["tournament", "show", x],
        ["tournament", "watch", x, "--timeout", "0"],
        ["tournament", "start", x],
        ["tournament", "cancel", x],
        ["tournament", "enter", x, "1"],
        ["tournament", "withdraw", x, "1"],
        ["match", "show", x],
        ["match", "replay", x, "--json"],
        ["test", "show", x],
        ["test", "watch", x, "--timeout", "0"],
        ["test", "cancel", x],
        ["test", "create", x, "1"],
        ["challenge", x, "1"],
        ["bot", "show", x],
        ["bot", "matches", x],
        ["verify", "tournament", x],
        ["export", "decisions", x, "--out", out],
        ["replay", "verify", x],
        ["pair", x],
        ["standings", x],
        ["scenario", x],
        ["leaderboard", x],
    ]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    """Exit status and what was said (stderr; stdout too for the file checkers, which report
    one line a file there)."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err, argv
    return code, captured.err + (captured.out if argv[0] in ("replay", "scenario") else "")


def _check_every_command(capsys: pytest.CaptureFixture[str], x: str, out: Path) -> None:
    for argv in _commands(x, str(out)):
        code, err = _run(capsys, argv)
        assert code != 0, argv
        assert err.strip(), f"{argv}: exit {code} with nothing said"
        assert not out.exists(), argv


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(x=st.one_of(ids, garbage, addresses))
def test_no_command_fails_without_saying_why(
    x: str, configured: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _check_every_command(capsys, x, configured / "out.jsonl")


def test_files_missing_files_and_folders_are_refused_clearly(
    configured: Path, files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    for path in files.values():
        _check_every_command(capsys, path, configured / "out.jsonl")
    code, err = _run(capsys, ["tournament", "show", files["missing.json"]])
    assert code == 2 and "expected an id or its address, http(s)://HOST/tournaments/ID" in err
    code, err = _run(capsys, ["export", "decisions", files["missing.json"], "--out", "x"])
    assert code == 2 and "no such file" in err
    code, err = _run(capsys, ["verify", "tournament", files["folder"]])
    assert code == 2 and "a folder, not a file" in err
    code, err = _run(capsys, ["match", "show", f"{OTHER}/matches/3"])
    assert code == 2 and f"that address is on {OTHER}" in err
    code, err = _run(capsys, ["tournament", "show", f"{PLATFORM}/tournaments/3"])
    assert code == 1 and "Platform unreachable" in err


@given(
    number=st.integers(1, MAX_ID),
    base=st.sampled_from([PLATFORM, "https://truco.example", "http://[::1]:8000/arena"]),
    prefix=st.sampled_from(["", "v1/"]),
    kind=st.sampled_from(KINDS),
    tail=st.sampled_from(["", "/", "/export", "/replay"]),
)
def test_an_id_or_its_address_resolves_to_the_id(
    number: int, base: str, prefix: str, kind: str, tail: str
) -> None:
    assert parse_ref(str(number), kind) == number and parse_ref(str(number), kind).platform is None
    found = parse_ref(f"{base}/{prefix}{kind}/{number}{tail}", kind)
    assert found == number and found.platform == base


@given(text=st.one_of(garbage, addresses, ids), kind=st.sampled_from(KINDS))
def test_the_resolver_returns_an_id_or_says_what_it_expected(text: str, kind: str) -> None:
    try:
        found = parse_ref(text, kind)
    except ValueError as exc:
        assert "expected an id or its address" in str(exc)
    else:
        assert 1 <= found <= MAX_ID


@given(text=st.one_of(garbage, addresses, ids))
def test_the_tournament_source_resolver_never_raises_anything_else(text: str) -> None:
    """An export address, None (not an address: maybe a file), or a CommandError saying
    why; and reading what is neither a file nor an address says so."""
    try:
        with mock.patch.dict(os.environ, {"TRUCO_API_URL": PLATFORM}):
            url = export_url(text)
    except CommandError as exc:
        assert exc.exit_code in (1, 2) and exc.problem["detail"]
        return
    if url is not None:
        assert url.endswith("/export")
        return
    try:
        read_source(text, announce=False)
    except CommandError as exc:
        assert exc.exit_code == 2 and exc.problem["detail"]
