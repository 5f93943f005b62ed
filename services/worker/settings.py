"""What the workers read from the environment (never DATABASE_URL: see :mod:`services.worker.db`).

========================  ================================================================
``TRUCO_ENV``             ``local`` (default: bots on loopback allowed) or ``production``
``REDIS_URL``             the broker; required in production, else ``redis://127.0.0.1:6379/0``
``TRUCO_REDIS_PREFIX``    a prefix for every Redis key the platform writes (tests, sharing)
``TRUCO_BOT_MAX_MATCHES`` matches one bot may play at the same time (default 4)
``TRUCO_HEALTH_FAILURES`` failed health checks in a row that make a bot unavailable (3)
========================  ================================================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.config import ENVIRONMENTS, ConfigError, Env

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    env: Env
    redis_url: str
    redis_prefix: str
    bot_max_matches: int
    health_failures: int

    @property
    def allow_loopback_bots(self) -> bool:
        return self.env == "local"


def _int(environ: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value


def _env(environ: Mapping[str, str]) -> Env:
    raw = environ.get("TRUCO_ENV", "").strip().lower() or "local"
    for env in ENVIRONMENTS:
        if raw == env:
            return env
    raise ConfigError(f"TRUCO_ENV must be 'local' or 'production', got {raw!r}")


def celery_broker_url(redis_url: str) -> str:
    """Celery spells a Unix socket ``redis+socket://``; the platform's REDIS_URL ``unix://``."""
    if redis_url.startswith("unix://"):
        return "redis+socket://" + redis_url[len("unix://") :]
    return redis_url


def load_worker_settings(environ: Mapping[str, str] | None = None) -> WorkerSettings:
    env_vars = os.environ if environ is None else environ
    env = _env(env_vars)
    redis_url = env_vars.get("REDIS_URL", "").strip()
    if not redis_url:
        if env == "production":
            raise ConfigError("TRUCO_ENV=production requires REDIS_URL in the environment")
        redis_url = DEFAULT_REDIS_URL
    return WorkerSettings(
        env=env,
        redis_url=redis_url,
        redis_prefix=env_vars.get("TRUCO_REDIS_PREFIX", "").strip(),
        bot_max_matches=_int(env_vars, "TRUCO_BOT_MAX_MATCHES", 4, 1, 1000),
        health_failures=_int(env_vars, "TRUCO_HEALTH_FAILURES", 3, 1, 1000),
    )
