"""Embedded or external: pick the servers for a run and start the embedded ones."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import msgspec

from services.base.data_dir import default_data_dir
from services.launch.embedded.postgres import EmbeddedPostgres
from services.launch.embedded.redis import EmbeddedRedis


class ServerPlan(msgspec.Struct, frozen=True):
    """Which servers a run uses. ``None`` means: start the embedded one."""

    database_url: str | None
    redis_url: str | None
    postgres_port: int | None = None  # the embedded one's (0: any free; None: the last run's)
    redis_port: int | None = None

    @property
    def embedded_postgres(self) -> bool:
        return self.database_url is None

    @property
    def embedded_redis(self) -> bool:
        return self.redis_url is None


class RunningServers(msgspec.Struct, frozen=True):
    """The URLs to use, and which of them are embedded servers."""

    database_url: str
    redis_url: str
    embedded: tuple[str, ...]


def _env(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name, "").strip()
    return value or None


def plan_servers(environ: Mapping[str, str] | None = None) -> ServerPlan:
    """External servers where ``DATABASE_URL``/``REDIS_URL`` are set; embedded otherwise.

    Each is decided on its own, so a developer may point at a real PostgreSQL and still use the
    embedded Redis. Blank values count as unset.
    """
    env = os.environ if environ is None else environ
    return ServerPlan(
        database_url=_env(env, "DATABASE_URL"),
        redis_url=_env(env, "REDIS_URL"),
    )


@contextlib.contextmanager
def local_servers(
    data_dir: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    plan: ServerPlan | None = None,
) -> Iterator[RunningServers]:
    """Start what the plan says is embedded; yield the URLs; stop what we started. The plan
    is ``plan`` if given (``make run``: from its settings), else read from ``environ``.

    Embedded data lives in ``<data_dir>/postgres`` and ``<data_dir>/redis`` and is kept.
    """
    plan = plan if plan is not None else plan_servers(environ)
    root = data_dir if data_dir is not None else default_data_dir(environ)
    embedded: list[str] = []
    with contextlib.ExitStack() as stack:
        database_url = plan.database_url
        if database_url is None:
            database_url = stack.enter_context(
                EmbeddedPostgres(root / "postgres", port=plan.postgres_port)
            ).url
            embedded.append("postgres")
        redis_url = plan.redis_url
        if redis_url is None:
            redis_url = stack.enter_context(EmbeddedRedis(root / "redis", port=plan.redis_port)).url
            embedded.append("redis")
        yield RunningServers(database_url, redis_url, tuple(embedded))
