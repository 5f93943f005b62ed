"""What a live page polls (``static/live.js``): the page's version, and whether it is still
live; the match, tournament and SPRT pages answer with it, never cached."""

from __future__ import annotations

import msgspec
from litestar import Response

from services.web.pages.render import SECURITY_HEADERS


class LivePoll(msgspec.Struct, frozen=True):
    version: str
    live: bool


def live_poll(version: str, live: bool) -> Response[LivePoll]:
    return Response(
        LivePoll(version, live), headers={**SECURITY_HEADERS, "Cache-Control": "no-store"}
    )
