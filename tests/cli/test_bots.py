"""`truco bot ...` against the real API and real bots on 127.0.0.1."""

from __future__ import annotations

import base64
import tomllib
from pathlib import Path

import httpx

from arena.sdk import BotServer
from tests.cli.conftest import Truco, module_platform, unique

# one served API for the module's tests (each makes its own account and config folder)
shared_platform, platform_url = module_platform()


def test_secret_is_fresh_whsec_base64_of_at_least_24_bytes(truco: Truco) -> None:
    first, second = truco.ok("bot", "secret").out.strip(), truco.ok("bot", "secret").out.strip()
    third = truco.ok("bot", "secret", "--json").json()["signing_secret"]
    assert len({first, second, third}) == 3
    for secret in (first, second, third):
        assert secret.startswith("whsec_")
        assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) >= 24


def test_register_list_show_update_delete(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    truco.ok("account", "create", unique("owner"), "--url", platform_url)
    name = unique("mine")
    registered = truco.ok("bot", "register", name, bots[0].url)
    assert f"bot {name!r} registered: id " in registered.out
    secret_line = registered.out.splitlines()[1]
    assert secret_line.startswith("its signing secret (shown this once): whsec_")
    second = unique("second")
    quiet = truco.ok("bot", "register", second, bots[1].url, "-q").out.strip()
    assert quiet.isdigit()
    # someone else's bot: not in `list`, in `list --all`
    key = tomllib.loads(truco.config_file.read_text())["key"]
    other = httpx.post(f"{platform_url}/v1/accounts", json={"name": unique("other")}).json()
    theirs = httpx.post(
        f"{platform_url}/v1/bots",
        json={"name": unique("theirs"), "url": bots[1].url},
        headers={"authorization": f"Bearer {other['api_key']}"},
    ).json()
    mine = truco.ok("bot", "list", "--json").json()
    assert sorted(bot["name"] for bot in mine) == sorted([name, second])
    listed = truco.ok("bot", "list").out
    assert name in listed and theirs["name"] not in listed
    assert theirs["name"] in truco.ok("bot", "list", "--all").out
    # by name or id
    shown = truco.ok("bot", "show", name, "--json").json()
    assert shown["name"] == name and set(shown["rating"].values()) == {1500.0}
    assert f"bot {quiet} " in truco.ok("bot", "show", quiet).out
    renamed = unique("renamed")
    updated = truco.ok("bot", "update", name, "--name", renamed, "--json").json()
    assert updated["name"] == renamed and updated["id"] == shown["id"]
    nothing = truco("bot", "update", renamed)
    assert nothing.code == 2 and "Nothing to change" in nothing.err
    refused = truco("bot", "delete", theirs["id"])
    assert refused.code == 1 and refused.err.startswith("error: Forbidden (403): ")
    truco.ok("bot", "delete", renamed)
    gone = truco("bot", "show", renamed)
    assert gone.code == 1 and f"there is no bot named {renamed!r}" in gone.err
    assert truco.ok("bot", "show", shown["id"], "--json").json()["status"] == "deleted"
    assert key == tomllib.loads(truco.config_file.read_text())["key"]


def test_register_errors_read_like_the_platform_says(
    platform_url: str, truco: Truco, bots: list[BotServer], tmp_path: Path
) -> None:
    truco.ok("account", "create", unique("owner"), "--url", platform_url)
    name = unique("dup")
    truco.ok("bot", "register", name, bots[0].url)
    taken = truco("bot", "register", name.upper(), bots[1].url)
    assert taken.code == 1 and taken.err.startswith("error: Conflict (409): ")
    down = truco("bot", "register", unique("down"), "http://127.0.0.1:9/")
    assert down.code == 1 and "(422)" in down.err and "connect" in down.err
    missing = truco("bot", "register", unique("x"), bots[0].url, "--secret-file", "/nonexistent")
    assert missing.code == 2 and missing.err.startswith("error: Unusable secret file: cannot read")
    loose = tmp_path / "loose.secret"
    loose.write_text(truco.ok("bot", "secret").out)
    loose.chmod(0o644)
    refused = truco("bot", "register", unique("x"), bots[0].url, "--secret-file", str(loose))
    assert refused.code == 2 and "readable by other users" in refused.err
    assert [bot["name"] for bot in truco.ok("bot", "list", "--json").json()] == [name]


def test_register_with_a_chosen_secret_and_rotate_it(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    truco.ok("account", "create", unique("owner"), "--url", platform_url)
    secret = truco.ok("bot", "secret").out.strip()
    registered = truco.ok("bot", "register", unique("own"), bots[0].url, "--secret", secret)
    assert "signing secret" not in registered.out  # the author has it already
    assert (
        truco.ok("bot", "register", unique("json"), bots[1].url, "--json")
        .json()["signing_secret"]
        .startswith("whsec_")
    )
    weak = truco("bot", "register", unique("weak"), bots[0].url, "--secret", "whsec_c2hvcnQ=")
    assert weak.code == 1 and "(422)" in weak.err
    bot_id = registered.out.split("id ")[1].split(",")[0]
    rotated = truco.ok("bot", "rotate-secret", bot_id, "--json").json()
    assert rotated["signing_secret"].startswith("whsec_") and rotated["signing_secret"] != secret
    chosen = truco.ok("bot", "secret").out.strip()
    text = truco.ok("bot", "rotate-secret", bot_id, "--secret", chosen).out
    assert "has a new signing secret" in text and chosen not in text


def test_open_a_bot_to_everyone_and_close_it_again(
    platform_url: str, truco: Truco, bots: list[BotServer]
) -> None:
    truco.ok("account", "create", unique("owner"), "--url", platform_url)
    name = unique("open")
    opened = truco.ok("bot", "register", name, bots[0].url, "--open", "--json").json()
    assert opened["open"] is True and opened["challenges"] == "open"
    assert "anyone may enter it" in truco.ok("bot", "show", name).out
    closed = truco.ok("bot", "update", name, "--closed", "--challenges", "owner_only", "--json")
    assert closed.json()["open"] is False and closed.json()["challenges"] == "owner_only"
    shown = truco.ok("bot", "show", name).out
    assert "only its owner enters it; challenges: owner_only" in shown
    slow = truco.ok("bot", "update", name, "--min-timeout-ms", "2500", "--json").json()
    assert slow["min_timeout_ms"] == 2500
    assert "timeout accepts 2500 ms or more" in truco.ok("bot", "show", name).out
    cup = truco.ok(
        "tournament", "create", unique("cup"), "--format", "round_robin", "--mode", "1v1", "-q"
    ).out.strip()
    truco.ok("tournament", "enter", cup, name)
    withdrew = truco.ok("tournament", "withdraw", cup, name).out
    assert f"withdrew bot {closed.json()['id']} from tournament {cup}" in withdrew
    again = truco("tournament", "withdraw", cup, name)
    assert again.code != 0 and f"withdrawing {name}" in again.err
    both = truco("bot", "update", name, "--open", "--closed")
    assert both.code == 2 and "not allowed with argument" in both.err
