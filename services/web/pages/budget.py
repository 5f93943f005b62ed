"""The pages' budget: page views per client address a minute (``TRUCO_PAGE_RATE_LIMIT_PER_MINUTE``,
default 120), counted with the API's counters (:mod:`services.api.guard.ratelimit`: Redis when the
app has one, shared by every API process) and the same client address (a trusted proxy's
``X-Forwarded-For``, else the peer). Past it, the site's error page says 429 in the reader's
language with ``Retry-After``. ``/static`` files and the ``/live`` polls of live pages are not
page views."""

from __future__ import annotations

import math
from typing import Any

from litestar import Request
from litestar.exceptions import TooManyRequestsException

from services.api.guard.ratelimit import limiter_of

BUCKET = "page:"


def counts_as_a_view(path: str) -> bool:
    return not (path.startswith("/static/") or path.endswith("/live"))


async def page_budget(request: Request[Any, Any, Any]) -> None:
    """Count a page view of the request's address; raise a 429 past the budget."""
    if not counts_as_a_view(request.url.path):
        return
    limiter = limiter_of(request.app.state)
    if not limiter.limits.enabled:
        return
    limit = limiter.limits.pages_per_minute
    wait = await limiter.hit(BUCKET + limiter.address_of(request), limit)
    if wait is not None:
        raise TooManyRequestsException(headers={"Retry-After": str(max(1, math.ceil(wait)))})
