"""What each child of ``make run`` gets in its environment: who gets which secret (the
bot-calling worker no database credentials, a house bot its own signing secret and nothing
else of the platform's)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from services.base.config import Settings

METRICS_PORT_OFFSETS = {"worker-matches": 1000, "worker-results": 2000}
"""``make run``'s workers serve their metrics on ``PORT`` + these (docs/operations.md)."""


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


def metrics_port(settings: Settings, child: str) -> int:
    """The metrics port ``make run`` gives a worker (0: none, past the last port)."""
    port = settings.web.port + METRICS_PORT_OFFSETS.get(child, 0)
    return port if child in METRICS_PORT_OFFSETS and port <= 65535 else 0


def metrics_env(env: Mapping[str, str], settings: Settings, child: str) -> dict[str, str]:
    """``env`` with the child's own metrics folder (``<data dir>/metrics/<child>``, emptied
    now: it must be empty when the child starts) and, for a worker, its metrics port."""
    folder = Path(settings.data_dir) / "metrics" / child
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    out = dict(env)
    out["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    if child in METRICS_PORT_OFFSETS:
        out["TRUCO_METRICS_PORT"] = str(metrics_port(settings, child))
    return out
