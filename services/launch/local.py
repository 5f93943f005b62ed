"""The local launcher behind ``make run``: the whole platform on this machine.

``python -m services.launch.local``:

1. with no ``DATABASE_URL``/``REDIS_URL``, starts the embedded PostgreSQL and Redis (data in
   ``.data/``, kept between runs); with them set, uses those servers;
2. applies the migrations;
3. starts, each as a child process in its own process group (``services.launch.children``):
   the API (``services.api.serve`` on 127.0.0.1:``PORT``), the bot-calling worker (queue
   ``matches``, no database credentials in its environment), the trusted worker (queue
   ``results``), beat, and in local mode two built-in bots (``truco bot serve``, their
   signing secrets in their environment, never on a command line);
4. makes a "house" account through the API and its two bots: in local mode the HTTP bots,
   registered through the API; in production ``builtin:heuristic`` and ``builtin:random``,
   stored by the platform itself (``services.launch.house``) and played in process by the
   bot-calling worker. The key and the bots' ids (and local secrets) are kept in
   ``<data dir>/house-*.json``, mode 0600. With an empty leaderboard it starts a warm-up
   round robin between them, and prints the URLs;
5. on Ctrl-C or SIGTERM stops every child (SIGTERM to its process group, SIGKILL after a grace
   period), then the embedded servers. Children also get SIGTERM from the kernel if this
   process dies without stopping them (Linux ``PR_SET_PDEATHSIG``).

Local mode (``TRUCO_ENV`` unset or ``local``) lets bots run on loopback. With
``TRUCO_ENV=production`` nothing here relaxes that: loopback bots are refused (the house bots
need no loopback: they are built in), and ``services.base.config`` requires DATABASE_URL,
REDIS_URL and TRUCO_SECRET_KEY from the environment.
Logs go to ``<data dir>/logs/<process>.log``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

from services.base.config import ConfigError, Secret, Settings
from services.base.environment import load_settings
from services.db.migrate import migrate_url
from services.launch.children import Child, Children, LaunchError
from services.launch.embedded import EmbeddedServerError, ServerPlan, local_servers
from services.launch.embedded._process import choose_port
from services.launch.house import HouseError, store_builtin_bots
from services.worker import command
from services.worker.names import BOT_CALLING_QUEUES

LOOPBACK = "127.0.0.1"
HOUSE_ACCOUNT = "house"
HOUSE_BOTS = (("house-heuristic", "heuristic", 8101), ("house-random", "random", 8102))
READY_TIMEOUT_S = 90.0


# --- environments: who gets which secret -------------------------------------------------------


def base_env(
    settings: Settings, environ: Mapping[str, str], database_url: str, redis_url: str
) -> dict[str, str]:
    """The children's environment: the launcher's (``environ``), with the servers it chose
    and the settings it resolved (each child reads them again at its own start)."""
    env = dict(environ)
    env.update(
        TRUCO_ENV=settings.env,
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        TRUCO_DATA_DIR=settings.data_dir,
        PORT=str(settings.web.port),
        PYTHONUNBUFFERED="1",
    )
    key = settings.secrets.key
    if key is not None:  # local mode made it; production read it from the env
        env["TRUCO_SECRET_KEY"] = key.reveal()
    return env


def without(env: Mapping[str, str], *names: str) -> dict[str, str]:
    return {key: value for key, value in env.items() if key not in names}


def bot_calling_env(env: Mapping[str, str]) -> dict[str, str]:
    """The bot-calling worker's environment: no database URL, no master key."""
    return without(env, "DATABASE_URL", "TRUCO_SECRET_KEY")


def bot_env(env: Mapping[str, str], secret: str | None = None) -> dict[str, str]:
    """A house bot's environment: none of the platform's servers or secrets, only its own
    signing secret (``TRUCO_BOT_SECRET``, which ``truco bot serve`` reads) when it has one."""
    bare = without(env, "DATABASE_URL", "REDIS_URL", "TRUCO_SECRET_KEY", "TRUCO_BOT_SECRET")
    if secret:
        bare["TRUCO_BOT_SECRET"] = secret
    return bare


# --- the processes ------------------------------------------------------------------------------


def _python() -> str:
    return sys.executable


def api_argv(port: int) -> list[str]:
    return [
        _python(),
        "-m",
        "services.api.serve",  # uvicorn with the API's limits (slow clients, connections)
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--no-access-log",
    ]


MATCHES_AT_ONCE = 1000
"""Matches the bot-calling worker plays at once: all on one event loop, a waiting thread each
(docs/architecture.md, "Execution model"; ``make bench`` measures 1,000 in one process)."""


def worker_argv(queue: str, concurrency: int) -> list[str]:
    return command.worker_argv(_python(), queue, f"{queue}-{os.getpid()}@%h", concurrency)


def beat_argv(data_dir: Path) -> list[str]:
    return [
        _python(),
        "-m",
        "celery",
        "-A",
        command.CELERY_APP,
        "beat",
        "--schedule",
        str(data_dir / "celerybeat-schedule"),
        "--loglevel=INFO",
    ]


def bot_argv(strategy: str, port: int, name: str) -> list[str]:
    """A house bot's command line: never its secret, which anyone can read in ``ps``; the
    secret goes in its environment (``bot_env``), readable only by this user."""
    return [
        _python(),
        "-m",
        "truco_cli.main",
        "bot",
        "serve",
        "--strategy",
        strategy,
        "--port",
        str(port),
        "--host",
        LOOPBACK,
        "--name",
        name,
    ]


def wait_until(ready: Any, *, what: str, child: Child | None, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if child is not None and child.process.poll() is not None:
            raise LaunchError(
                f"{what} exited with code {child.process.returncode} while starting; "
                f"last lines of {child.log_path}:\n{child.log_tail()}"
            )
        if time.monotonic() > deadline:
            tail = f"; last lines of {child.log_path}:\n{child.log_tail()}" if child else ""
            raise LaunchError(f"{what} not ready after {timeout:.0f}s{tail}")
        time.sleep(0.1)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2.0, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


# --- the house account and its bots -------------------------------------------------------------


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


def _load(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _save(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(state, handle, indent=2)
    tmp.replace(path)


def house_account(client: httpx.Client, path: Path) -> dict[str, Any]:
    """The house account's state from ``path``, creating the account through the API first
    if the file has no key (a second name if "house" is taken, e.g. the file was lost)."""
    state = _load(path)
    if "api_key" not in state:
        name = HOUSE_ACCOUNT
        answer = client.post("/v1/accounts", json={"name": name})
        if answer.status_code == 409:
            name = f"{HOUSE_ACCOUNT}-{secrets.token_hex(3)}"
            answer = client.post("/v1/accounts", json={"name": name})
        answer.raise_for_status()
        state = {"account": name, "api_key": answer.json()["api_key"], "bots": {}}
        _save(path, state)
    return state


def register_builtin_house(
    api: str, path: Path, bots: list[HouseBot], database_url: str, secret_key: Secret
) -> None:
    """Production: the house account (through the API) owns ``builtin:STRATEGY`` bots, stored
    in the database directly (``services.launch.house``; the API never accepts such a URL)."""
    with httpx.Client(base_url=api, timeout=15.0, trust_env=False) as client:
        state = house_account(client, path)
    known = {name: int(entry["id"]) for name, entry in state.get("builtin", {}).items()}
    wanted = [(bot.name, bot.strategy) for bot in bots]
    try:
        stored = asyncio.run(
            store_builtin_bots(database_url, secret_key, state["api_key"], wanted, known)
        )
    except HouseError as exc:
        raise LaunchError(
            f"storing the house bots failed: {exc} (remove {path} to start over)"
        ) from None
    for bot in bots:
        bot.bot_id = stored[bot.name]
    state["builtin"] = {name: {"id": bot_id} for name, bot_id in stored.items()}
    _save(path, state)


def register_house(api: str, path: Path, bots: list[HouseBot]) -> None:
    """Make sure the house account exists and owns ``bots`` at their current URLs.

    Fills in each bot's id and signing secret; keeps both (and the account's key) in ``path``.
    """
    with httpx.Client(base_url=api, timeout=15.0, trust_env=False) as client:
        state = house_account(client, path)
        auth = {"authorization": f"Bearer {state['api_key']}"}
        known: dict[str, Any] = state.setdefault("bots", {})
        for bot in bots:
            entry = known.get(bot.name)
            if entry is not None:
                answer = client.patch(  # open: anyone may enter a house bot (issue 12)
                    f"/v1/bots/{entry['id']}", json={"url": bot.url, "open": True}, headers=auth
                )
                if answer.status_code == 200:
                    bot.bot_id, bot.secret = int(entry["id"]), str(entry["secret"])
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
            created = answer.json()
            bot.bot_id, bot.secret = int(created["id"]), str(created["signing_secret"])
            known[bot.name] = {"id": bot.bot_id, "secret": bot.secret}
            _save(path, state)


def warm_up(api: str, path: Path, bots: list[HouseBot]) -> int | None:
    """With an empty 1v1 leaderboard, start a rated round robin between the house bots, so
    the leaderboard fills within seconds of the first start. Returns its id, or None."""
    state = _load(path)
    auth = {"authorization": f"Bearer {state['api_key']}"}
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
    state = _load(path)
    auth = {"authorization": f"Bearer {state['api_key']}"}
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


# --- the launcher -------------------------------------------------------------------------------


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _sigterm_exits() -> Iterator[None]:
    """SIGTERM -> SystemExit(0); SIGINT -> KeyboardInterrupt even when started with it ignored
    (a background job of a script): either stops everything through the ``finally`` blocks."""
    previous = signal.signal(signal.SIGTERM, _on_sigterm), signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])


def _ignore_stop_signals() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def local_house_bots(known: Mapping[str, Any]) -> list[HouseBot]:
    """Local mode's house bots: each on a free loopback port (its usual one if free), with
    the signing secret stored last time, if any."""
    bots = []
    for name, strategy, preferred in HOUSE_BOTS:
        port = choose_port([preferred])
        secret = known.get(name, {}).get("secret")
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
            lambda url=bot.url: _answers(url + "/"),
            what=f"bot {bot.name}",
            child=started[bot.name],
            timeout=30,
        )
    return started


def run(settings: Settings, environ: Mapping[str, str], *, out: Any = None) -> int:
    """Start everything, wait for Ctrl-C / SIGTERM or a child's death, stop everything.
    ``environ`` is the launcher's environment, which its children inherit."""
    say = out or sys.stdout
    began = time.monotonic()
    data_dir = Path(settings.data_dir)
    plan = ServerPlan(database_url=settings.database.url, redis_url=settings.redis.url)
    with local_servers(data_dir, plan=plan) as servers:
        asyncio.run(migrate_url(servers.database_url))
        env = base_env(settings, environ, servers.database_url, servers.redis_url)
        children = Children(data_dir / "logs")
        try:
            api_url = f"http://{LOOPBACK}:{settings.web.port}"
            path = house_file(data_dir, servers.database_url)
            if settings.production:  # built-in strategies in the bot-calling worker
                bots = [
                    HouseBot(name, strategy, 0, f"builtin:{strategy}")
                    for name, strategy, _ in HOUSE_BOTS
                ]
                bot_children: dict[str, Child] = {}
            else:  # HTTP servers on loopback, registered through the API like anyone's bots
                bots = local_house_bots(_load(path).get("bots", {}))
                bot_children = start_bots(children, env, bots)
            api = children.start("api", api_argv(settings.web.port), env)
            children.start(
                "worker-matches",
                worker_argv(BOT_CALLING_QUEUES, MATCHES_AT_ONCE),
                bot_calling_env(env),
            )
            children.start("worker-results", worker_argv("results", 4), env)
            children.start("beat", beat_argv(data_dir), env)
            wait_until(
                lambda: _answers(api_url + "/health"),
                what="the API",
                child=api,
                timeout=READY_TIMEOUT_S,
            )
            if settings.production:
                assert settings.secrets.key is not None  # production requires it
                register_builtin_house(
                    api_url, path, bots, servers.database_url, settings.secrets.key
                )
            else:
                fresh = [bot for bot in bots if bot.secret is None]
                register_house(api_url, path, bots)
                if fresh:  # restart them with their new secrets: they check signatures now
                    for bot in fresh:
                        children.stop(bot_children[bot.name])
                    start_bots(children, env, fresh)
            warm = warm_up(api_url, path, bots)
            if not settings.production:  # built-in bots answer no health check over HTTP
                for words in join_ladders(api_url, path, bots):
                    print(f"the house bot {words} could not join its ladder", file=say)
            _print_banner(say, settings, servers.embedded, api_url, bots, data_dir, began, warm)
            while True:
                dead = children.first_dead()
                if dead is not None:
                    print(
                        f"\n{dead.name} exited with code {dead.process.returncode}; stopping. "
                        f"Last lines of {dead.log_path}:\n{dead.log_tail()}",
                        file=sys.stderr,
                        flush=True,
                    )
                    return 1
                time.sleep(0.3)
        finally:
            _ignore_stop_signals()  # a second Ctrl-C must not cut the clean-up short
            print("stopping...", file=say, flush=True)
            children.stop_all()


def _print_banner(
    out: Any,
    settings: Settings,
    embedded: Sequence[str],
    api_url: str,
    bots: list[HouseBot],
    data_dir: Path,
    began: float,
    warm_up_id: int | None = None,
) -> None:
    where = f"embedded {' and '.join(embedded)}" if embedded else "DATABASE_URL and REDIS_URL"
    lines = [
        f"Truco Arena is running ({settings.env} mode, {where}; "
        f"started in {time.monotonic() - began:.1f}s)",
        f"  web       {api_url}/",
        f"  API       {api_url}/v1/leaderboards/1v1  (every endpoint lives under /v1/)",
        f"  OpenAPI   {api_url}/schema/openapi.json",
        f"  reference {api_url}/schema/reference  (the API and the bot webhooks, to read and try)",
        f"  health    {api_url}/health",
        f"  bots      {api_url}/v1/bots",
    ]
    lines += [f"  house bot {bot.name:<16} {bot.url}  (bot {bot.bot_id})" for bot in bots]
    if warm_up_id is not None:
        lines.append(
            f"  warm-up   {api_url}/tournaments/{warm_up_id}  (a rated round robin between the "
            "house bots, so the leaderboard is not empty)"
        )
    lines += [f"  logs      {data_dir / 'logs'}", "Ctrl-C to stop."]
    print("\n".join(lines), file=out, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    del argv
    environ = dict(os.environ)  # the edge: read once, then passed down
    try:
        settings = load_settings(environ)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with _sigterm_exits():
        try:
            return run(settings, environ)
        except KeyboardInterrupt:
            return 0
        except (LaunchError, EmbeddedServerError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    raise SystemExit(main())
