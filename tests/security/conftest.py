"""The security tests reuse the service tests' servers: a real PostgreSQL on loopback (or the
embedded one) with a fresh, migrated database per run, and real SDK bot servers on 127.0.0.1."""

from tests.services.conftest import anyio_backend, postgres_server  # noqa: F401
