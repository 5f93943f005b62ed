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
need no loopback: they are built in), and ``services.base.environment`` requires DATABASE_URL,
REDIS_URL and TRUCO_SECRET_KEY from the environment.
Logs go to ``<data dir>/logs/<process>.log``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from services.base.config import ConfigError, Settings
from services.base.environment import load_settings
from services.db.migrate import migrate_url
from services.launch.child_env import base_env, bot_calling_env
from services.launch.children import Child, Children, LaunchError
from services.launch.embedded import EmbeddedServerError, ServerPlan, local_servers
from services.launch.house_bots import (
    HOUSE_BOTS,
    HouseBot,
    house_file,
    join_ladders,
    local_house_bots,
    read_state,
    register_builtin_house,
    register_house,
    start_bots,
    warm_up,
)
from services.launch.processes import (
    LOOPBACK,
    MATCHES_AT_ONCE,
    READY_TIMEOUT_S,
    answers,
    api_argv,
    beat_argv,
    wait_until,
    worker_argv,
)
from services.launch.stop_signals import ignore_stop_signals, sigterm_exits
from services.worker.names import BOT_CALLING_QUEUES


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
                bots = local_house_bots(read_state(path).bots)
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
                lambda: answers(api_url + "/health"),
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
            ignore_stop_signals()  # a second Ctrl-C must not cut the clean-up short
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
    with sigterm_exits():
        try:
            return run(settings, environ)
        except KeyboardInterrupt:
            return 0
        except (LaunchError, EmbeddedServerError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    raise SystemExit(main())
