"""Where the benchmarks find PostgreSQL: ``DATABASE_URL``'s server, else 127.0.0.1 as postgres.

(``bench/flow_round_10k.py`` keeps its own two lines of this: its baseline run executes it with
another checkout first on the path, whose ``bench`` package may not have this module.)
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

LOCAL_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"


def server_url() -> str:
    """The server to create the benchmark's own databases on (its admin database's URL)."""
    return os.environ.get("DATABASE_URL", "").strip() or LOCAL_SERVER


def with_database(url: str, name: str) -> str:
    """``url`` pointing at the database ``name`` instead."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))
