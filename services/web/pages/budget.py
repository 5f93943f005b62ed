"""The pages' budget: page views per client address a minute (``TRUCO_PAGE_RATE_LIMIT_PER_MINUTE``,
default 120), counted with the API's counters (:mod:`services.api.guard.ratelimit`: Redis when the
app has one, shared by every API process) and the same client address (a trusted proxy's
``X-Forwarded-For``, else the peer). Past it, the site's error page says 429 in the reader's
language with ``Retry-After``. ``/static`` files and the ``/live`` polls of live pages are not
page views: the polls have a budget of their own (``TRUCO_POLL_RATE_LIMIT_PER_MINUTE``, 240: a
page in a tab polls every 4 s when it cannot stream), since a page that polls must not spend
its reader's page views (issue 33, 8: 2,986 polls in 20 s from one address were counted
nowhere)."""

from __future__ import annotations

import math
from typing import Any

from litestar import Request
from litestar.exceptions import TooManyRequestsException

from services.api.guard.ratelimit import limiter_of
from services.metrics.catalog import RATE_LIMIT_REFUSALS

BUCKET = "page:"
POLLS = "poll:"


def is_a_poll(path: str) -> bool:
    return path.endswith("/live")


async def page_budget(request: Request[Any, Any, Any]) -> None:
    """Count a page view (or a poll) of the request's address; raise a 429 past the budget."""
    path = request.url.path
    if path.startswith("/static/"):
        return
    limiter = limiter_of(request.app.state)
    if not limiter.limits.enabled:
        return
    bucket, limit = (
        (POLLS, limiter.limits.polls_per_minute)
        if is_a_poll(path)
        else (BUCKET, limiter.limits.pages_per_minute)
    )
    wait = await limiter.hit(bucket + limiter.address_of(request), limit)
    if wait is not None:
        RATE_LIMIT_REFUSALS.labels("pages").inc()
        raise TooManyRequestsException(headers={"Retry-After": str(max(1, math.ceil(wait)))})
