"""The request head's size limit, on the complete head too (issue 21, item 9).

h11's ``max_incomplete_event_size`` bounds only a head that is still arriving: a complete head
that came in one read (up to 64 KiB from asyncio) was parsed whatever its size, so heads of
~64 KB were accepted while the docs said 16 KiB. :class:`HeadSizedConnection` measures each
complete head too, and refuses one over the limit with the status h11 itself gives an
oversized incomplete head (431), which the server answers before closing.
"""

from __future__ import annotations

import h11

MAX_HEAD_BYTES = 16 * 1024
HTTP_VERSION_BYTES = len(b"HTTP/1.1")


def head_bytes(request: h11.Request) -> int:
    """The bytes of a parsed request head: the request line, each header line and the blank
    line (with one space after each colon: the optional whitespace h11 strips is not counted,
    and h11's bound on incomplete events keeps it below the same limit anyway)."""
    size = len(request.method) + 1 + len(request.target) + 1 + HTTP_VERSION_BYTES + 2
    for name, value in request.headers.raw_items():
        size += len(name) + 2 + len(value) + 2
    return size + 2


class HeadSizedConnection(h11.Connection):
    """An h11 server connection that refuses a request head over ``max_head_bytes``, whether
    it arrived in pieces (h11's own bound) or all at once, and remembers the status to answer
    (``refused_status``: 431 for a head too large, else 400)."""

    def __init__(self, max_head_bytes: int = MAX_HEAD_BYTES) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_head_bytes)
        self.max_head_bytes = max_head_bytes
        self.refused_status = 400

    def next_event(self) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.refused_status = 431 if error.error_status_hint == 431 else 400
            raise
        if isinstance(event, h11.Request) and head_bytes(event) > self.max_head_bytes:
            self.refused_status = 431
            raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
        return event
