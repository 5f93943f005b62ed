"""``GET /metrics``: the API process's metrics for Prometheus, not for the public.

Who may read it (``TRUCO_METRICS_ALLOW``, ``TRUCO_METRICS_TOKEN``; docs/operations.md):

* a client whose address (the peer's, or what a trusted proxy forwarded:
  :mod:`services.api.guard.client_address`) is in ``TRUCO_METRICS_ALLOW`` (this machine by default);
* anyone sending ``Authorization: Bearer <TRUCO_METRICS_TOKEN>``, when the token is set.

Anyone else gets a 403 problem (the numbers say how busy the platform is and how its bots
fail: an attacker's map). The document is not in the OpenAPI description: it is not part
of the API a client programs against.

With ``PROMETHEUS_MULTIPROC_DIR`` (several uvicorn workers) the answer adds up every worker's
files; otherwise it is this process's memory (:mod:`services.metrics.exposition`).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from litestar import Litestar, Request, Response, get
from litestar.datastructures import State

from services.api.auth import bearer_key
from services.api.deps import services_of
from services.api.guard.ratelimit import limiter_of
from services.api.problems import problem_response
from services.base.config import MetricsSettings, Settings
from services.metrics.catalog import SSE_STREAMS_CAPACITY
from services.metrics.exposition import CONTENT_TYPE, registry_for, render

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
_REGISTRY_KEY = "metrics_registry"


def networks(allowed: Iterable[str]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(n, strict=False) for n in allowed)


def address_allowed(address: str, allowed: tuple[IPNetwork, ...]) -> bool:
    """Whether the client ``address`` (an IP address, or an IPv6 /64 as the rate limits may
    count it) lies in one of ``allowed``."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        try:
            net = ipaddress.ip_network(address, strict=False)
        except ValueError:
            return False  # "unknown": a Unix socket, no address
        return any(
            net.version == a.version and net.subnet_of(a)  # type: ignore[arg-type]
            for a in allowed
        )
    return any(ip.version == a.version and ip in a for a in allowed)


def may_read(
    settings: MetricsSettings, address: str, token: str | None, allowed: tuple[IPNetwork, ...]
) -> bool:
    expected = settings.token
    if (
        expected is not None
        and token is not None
        and secrets.compare_digest(token.encode(), expected.reveal().encode())
    ):
        return True
    return address_allowed(address, allowed)


@get("/metrics", include_in_schema=False, name="ops:metrics")
async def metrics(request: Request[Any, Any, State]) -> Response[bytes]:
    settings = services_of(request.app.state).settings.metrics
    address = limiter_of(request.app.state).address_of(request)
    if not may_read(settings, address, bearer_key(request), networks(settings.allow)):
        return problem_response(
            403,
            "GET /metrics is for the platform's operators: from an address in "
            "TRUCO_METRICS_ALLOW, or with TRUCO_METRICS_TOKEN as a bearer token",
        )
    registry = request.app.state.get(_REGISTRY_KEY)
    if registry is None:
        registry = request.app.state[_REGISTRY_KEY] = registry_for(settings.multiproc_dir)
    return Response(
        render(registry),
        media_type=CONTENT_TYPE,
        headers={"Cache-Control": "no-store"},
    )


def ops_lifespan(settings: Settings) -> Any:
    """The app's lifespan part for metrics: this process's share of the streams' capacity."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        SSE_STREAMS_CAPACITY.inc(settings.streams.total)
        try:
            yield
        finally:
            SSE_STREAMS_CAPACITY.dec(settings.streams.total)

    return lifespan
