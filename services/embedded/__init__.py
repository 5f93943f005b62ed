"""Embedded PostgreSQL and Redis for `make run` and `make test` on a machine with neither.

with local_servers() as servers:        # honours DATABASE_URL / REDIS_URL
    run_everything(servers.database_url, servers.redis_url)
"""

from services.embedded._process import EmbeddedServerError
from services.embedded.base import EmbeddedServer
from services.embedded.plan import (
    RunningServers,
    ServerPlan,
    default_data_dir,
    local_servers,
    plan_servers,
)
from services.embedded.postgres import EmbeddedPostgres
from services.embedded.redis import EmbeddedRedis

__all__ = [
    "EmbeddedPostgres",
    "EmbeddedRedis",
    "EmbeddedServer",
    "EmbeddedServerError",
    "RunningServers",
    "ServerPlan",
    "default_data_dir",
    "local_servers",
    "plan_servers",
]
