"""Server-Sent Events frames (the ``text/event-stream`` format of the HTML standard).

A frame is ``id:``, ``event:`` and ``data:`` lines and a blank line; a line starting with
``:`` is a comment (the heartbeat). Data here is always one line of JSON (our encoders never
write a newline), so a frame is built once and the same bytes go to every subscriber.
"""

from __future__ import annotations

import msgspec

HEARTBEAT = b": keep-alive\n\n"
"""A comment: keeps proxies and browsers from closing an idle stream."""


def frame(data: bytes, *, event: str | None = None, id: int | None = None) -> bytes:
    """One SSE message; ``data`` must be a single line (JSON)."""
    if b"\n" in data or b"\r" in data:
        raise ValueError("SSE data must be one line")
    head = b"" if id is None else b"id: %d\n" % id
    if event is not None:
        head += b"event: " + event.encode() + b"\n"
    return head + b"data: " + data + b"\n\n"


def json_frame(value: msgspec.Struct, *, event: str | None = None, id: int | None = None) -> bytes:
    """A frame whose data is a struct's JSON."""
    return frame(msgspec.json.encode(value), event=event, id=id)


def parse_last_event_id(value: str | None) -> int | None:
    """The index a client last received (``Last-Event-ID``), None when absent or blank;
    ``ValueError`` when it is not a whole number we could have sent."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if not text.isdigit() or len(text) > 12:
        raise ValueError(f"Last-Event-ID must be a whole number we sent; got {value[:40]!r}")
    return int(text)
