"""Embedded PostgreSQL and Redis for `make run` and `make test` on a machine with neither.

with local_servers() as servers:        # honours DATABASE_URL / REDIS_URL
    run_everything(servers.database_url, servers.redis_url)
"""

from services.launch.embedded._process import EmbeddedServerError
from services.launch.embedded.base import EmbeddedServer
from services.launch.embedded.plan import (
    RunningServers,
    ServerPlan,
    local_servers,
    plan_servers,
)
from services.launch.embedded.postgres import EmbeddedPostgres
from services.launch.embedded.redis import EmbeddedRedis

__all__ = [
    "EmbeddedPostgres",
    "EmbeddedRedis",
    "EmbeddedServer",
    "EmbeddedServerError",
    "RunningServers",
    "ServerPlan",
    "local_servers",
    "plan_servers",
]
