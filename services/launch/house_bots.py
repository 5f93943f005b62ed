"""The house account and its two bots, as ``make run`` sets them up: registered through the
API (local mode's HTTP bots) or stored by the platform (production's built-in ones), kept in
``<data dir>/house-*.json`` (mode 0600), given a warm-up round robin and their ladders."""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import msgspec

from services.base.config import Secret
from services.launch.child_env import bot_env
from services.launch.children import Child, Children, LaunchError
from services.launch.embedded._process import choose_port
from services.launch.house import HouseError, store_builtin_bots
from services.launch.processes import LOOPBACK, answers, bot_argv, wait_until

HOUSE_ACCOUNT = "house"
HOUSE_BOTS = (("house-heuristic", "heuristic", 8101), ("house-random", "random", 8102))
"""The house bots: name, built-in strategy, preferred port in local mode."""


@dataclass
class HouseBot:
    name: str
    strategy: str
    port: int
    url: str
    bot_id: int | None = None
    secret: str | None = None


def house_file(data_dir: Path, database_url: str) -> Path:
    """Where the house key and bot secrets for this database live (one file per database)."""
    digest = hashlib.sha256(database_url.encode()).hexdigest()[:12]
    return data_dir / f"house-{digest}.json"


class KnownBot(msgspec.Struct):
    """A house bot registered before: its id, and its signing secret (local mode's HTTP bots)."""

    id: int
    secret: str | None = None


class HouseState(msgspec.Struct, omit_defaults=True):
    """The house file: the account, its API key and the bots it owns (``bots``: local mode's,
    by name; ``builtin``: production's built-in ones)."""

    account: str | None = None
    api_key: str | None = None
    bots: dict[str, KnownBot] = {}
    builtin: dict[str, KnownBot] = {}


class _Created(msgspec.Struct):
    """What ``POST /v1/accounts`` and ``POST /v1/bots`` answer that the house keeps."""

    id: int
    api_key: str = ""
    signing_secret: str = ""


def read_state(path: Path) -> HouseState:
    """The house file, or an empty state when it is missing or unreadable (start over)."""
    try:
        return msgspec.json.decode(path.read_bytes(), type=HouseState)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return HouseState()


def write_state(path: Path, state: HouseState) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(msgspec.json.format(msgspec.json.encode(state), indent=2))
    tmp.replace(path)


def house_account(client: httpx.Client, path: Path) -> tuple[HouseState, str]:
    """The house account's state from ``path`` and its API key, creating the account through
    the API first if the file has no key (a second name if "house" is taken, e.g. the file was
    lost)."""
    state = read_state(path)
    if state.api_key is None:
        name = HOUSE_ACCOUNT
        answer = client.post("/v1/accounts", json={"name": name})
        if answer.status_code == 409:
            name = f"{HOUSE_ACCOUNT}-{secrets.token_hex(3)}"
            answer = client.post("/v1/accounts", json={"name": name})
        answer.raise_for_status()
        key = msgspec.json.decode(answer.content, type=_Created).api_key
        state = HouseState(account=name, api_key=key)
        write_state(path, state)
    assert state.api_key is not None
    return state, state.api_key


def register_builtin_house(
    api: str, path: Path, bots: list[HouseBot], database_url: str, secret_key: Secret
) -> None:
    """Production: the house account (through the API) owns ``builtin:STRATEGY`` bots, stored
    in the database directly (``services.launch.house``; the API never accepts such a URL)."""
    with httpx.Client(base_url=api, timeout=15.0, trust_env=False) as client:
        state, key = house_account(client, path)
    known = {name: entry.id for name, entry in state.builtin.items()}
    wanted = [(bot.name, bot.strategy) for bot in bots]
    try:
        stored = asyncio.run(store_builtin_bots(database_url, secret_key, key, wanted, known))
    except HouseError as exc:
        raise LaunchError(
            f"storing the house bots failed: {exc} (remove {path} to start over)"
        ) from None
    for bot in bots:
        bot.bot_id = stored[bot.name]
    state.builtin = {name: KnownBot(bot_id) for name, bot_id in stored.items()}
    write_state(path, state)


def register_house(api: str, path: Path, bots: list[HouseBot]) -> None:
    """Make sure the house account exists and owns ``bots`` at their current URLs.

    Fills in each bot's id and signing secret; keeps both (and the account's key) in ``path``.
    """
    with httpx.Client(base_url=api, timeout=15.0, trust_env=False) as client:
        state, key = house_account(client, path)
        auth = {"authorization": f"Bearer {key}"}
        for bot in bots:
            entry = state.bots.get(bot.name)
            if entry is not None and entry.secret is not None:
                answer = client.patch(  # open: anyone may enter a house bot (issue 12)
                    f"/v1/bots/{entry.id}", json={"url": bot.url, "open": True}, headers=auth
                )
                if answer.status_code == 200:
                    bot.bot_id, bot.secret = entry.id, entry.secret
                    continue
            shown = bot.name
            body = {"name": shown, "url": bot.url, "open": True}
            answer = client.post("/v1/bots", json=body, headers=auth)
            if answer.status_code == 409:
                body["name"] = shown = f"{bot.name}-{secrets.token_hex(2)}"
                answer = client.post("/v1/bots", json=body, headers=auth)
            if answer.status_code != 201:
                raise LaunchError(
                    f"registering {bot.name} at {bot.url} failed: "
                    f"{answer.status_code} {answer.text[:500]}"
                )
            created = msgspec.json.decode(answer.content, type=_Created)
            bot.bot_id, bot.secret = created.id, created.signing_secret
            state.bots[bot.name] = KnownBot(created.id, created.signing_secret)
            write_state(path, state)


def warm_up(api: str, path: Path, bots: list[HouseBot]) -> int | None:
    """With an empty 1v1 leaderboard, start a rated round robin between the house bots, so
    the leaderboard fills within seconds of the first start. Returns its id, or None."""
    auth = {"authorization": f"Bearer {read_state(path).api_key}"}
    with httpx.Client(base_url=api, timeout=15.0, headers=auth, trust_env=False) as client:
        board = client.get("/v1/leaderboards/1v1")
        if board.status_code != 200 or board.json()["entries"]:
            return None
        created = client.post(
            "/v1/tournaments",
            json={"name": "House warm-up", "format": "round_robin", "mode": "1v1"},
        )
        if created.status_code != 201:
            return None
        tournament_id = int(created.json()["id"])
        for bot in bots:
            client.post(f"/v1/tournaments/{tournament_id}/entries", json={"bot_id": bot.bot_id})
        started = client.post(f"/v1/tournaments/{tournament_id}/start")
        return tournament_id if started.status_code == 202 else None


HOUSE_LADDERS = ("1v1", "2v2-individual")
"""The ladders the house bots stand on from the start: a newcomer's bot that joins meets them at
once (the ladder pairs bots of different owners only, so they never meet each other there)."""


def join_ladders(api: str, path: Path, bots: list[HouseBot], timeout: float = 20.0) -> list[str]:
    """Put the house bots on :data:`HOUSE_LADDERS` through the API (its health check first: a
    bot just restarted with a new secret may need a moment, so each join is retried until
    ``timeout``). Entering again changes nothing. Returns what could not be joined, in words."""
    auth = {"authorization": f"Bearer {read_state(path).api_key}"}
    failed = []
    with httpx.Client(base_url=api, timeout=15.0, headers=auth, trust_env=False) as client:
        for ladder in HOUSE_LADDERS:
            for bot in bots:
                deadline = time.monotonic() + timeout
                while True:
                    answer = client.post(
                        f"/v1/ladders/{ladder}/entries", json={"bot_id": bot.bot_id}
                    )
                    if answer.status_code in (200, 201):
                        break
                    if time.monotonic() > deadline:
                        failed.append(f"{bot.name} on {ladder}: {answer.status_code}")
                        break
                    time.sleep(0.5)
    return failed


def local_house_bots(known: Mapping[str, KnownBot]) -> list[HouseBot]:
    """Local mode's house bots: each on a free loopback port (its usual one if free), with
    the signing secret stored last time, if any."""
    bots = []
    for name, strategy, preferred in HOUSE_BOTS:
        port = choose_port([preferred])
        entry = known.get(name)
        secret = None if entry is None else entry.secret
        bots.append(HouseBot(name, strategy, port, f"http://{LOOPBACK}:{port}", None, secret))
    return bots


def start_bots(
    children: Children, env: Mapping[str, str], bots: list[HouseBot]
) -> dict[str, Child]:
    started = {}
    for bot in bots:
        child = children.start(
            f"bot-{bot.strategy}",
            bot_argv(bot.strategy, bot.port, bot.name),
            bot_env(env, bot.secret),
        )
        started[bot.name] = child
    for bot in bots:
        wait_until(
            lambda url=bot.url: answers(url + "/"),
            what=f"bot {bot.name}",
            child=started[bot.name],
            timeout=30,
        )
    return started
