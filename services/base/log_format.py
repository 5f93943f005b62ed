"""The processes' log lines: JSON lines for machines, or the human format (``TRUCO_LOG_FORMAT``).

Every line carries the request id and the match id of what it is about, when there is one:
the API sets the request's (:func:`request_context`) for everything a request does, the
workers the match's (:func:`match_context`) for everything a match's task does, including its
coroutine on the worker's event loop (a coroutine submitted from the task's thread runs in a
copy of that thread's context). They are :mod:`contextvars`, so concurrent requests and
matches never see each other's.

A JSON line: ``{"ts": "2026-12-07T10:00:00.123Z", "level": "INFO", "logger": "...",
"message": "...", "pid": 123, "request_id": "...", "match_id": 42}`` (the last two only when
set; ``"exc"`` holds a traceback). One object per line, whatever the message holds (a newline
in a message is escaped), so a log shipper never splits one. The human format is the one
``make run`` has always written, with ``[request R]`` / ``[match M]`` at the end when set.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TextIO

import msgspec

from services.base.config import LogFormat

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "truco_request_id", default=None
)
MATCH_ID: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "truco_match_id", default=None
)
HUMAN = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_encoder = msgspec.json.Encoder()


@contextlib.contextmanager
def request_context(request_id: str) -> Iterator[None]:
    token = REQUEST_ID.set(request_id)
    try:
        yield
    finally:
        REQUEST_ID.reset(token)


@contextlib.contextmanager
def match_context(match_id: int) -> Iterator[None]:
    token = MATCH_ID.set(match_id)
    try:
        yield
    finally:
        MATCH_ID.reset(token)


class ContextFilter(logging.Filter):
    """Puts the current request and match ids on every record (``None`` where unset)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        record.match_id = MATCH_ID.get()
        return True


class LogLine(msgspec.Struct, omit_defaults=True):
    """One line of the JSON log, its keys in this order (the ids, the traceback and the stack
    only when there are)."""

    ts: str
    level: str
    logger: str
    message: str
    pid: int | None
    request_id: str | None = None
    match_id: int | None = None
    exc: str | None = None
    stack: str | None = None


class JsonLines(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        line = LogLine(
            ts=datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            level=record.levelname,
            logger=record.name,
            message=record.getMessage(),
            pid=record.process,
            request_id=getattr(record, "request_id", None),
            match_id=getattr(record, "match_id", None),
        )
        if record.exc_info:
            line.exc = self.formatException(record.exc_info)
        elif record.exc_text:
            line.exc = record.exc_text
        if record.stack_info:
            line.stack = self.formatStack(record.stack_info)
        return _encoder.encode(line).decode()


class Human(logging.Formatter):
    """The human format, with the ids at the end when set."""

    def __init__(self) -> None:
        super().__init__(HUMAN)

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        request_id = getattr(record, "request_id", None)
        match_id = getattr(record, "match_id", None)
        if request_id is not None:
            text += f" [request {request_id}]"
        if match_id is not None:
            text += f" [match {match_id}]"
        return text


def formatter(fmt: LogFormat) -> logging.Formatter:
    return JsonLines() if fmt == "json" else Human()


def configure_logging(
    fmt: LogFormat, level: int | str = logging.INFO, stream: TextIO | None = None
) -> logging.Handler:
    """Send every logger's records (the root's handlers replaced) to ``stream`` (stderr) in
    ``fmt``, with the context's ids; the handler."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(formatter(fmt))
    handler.addFilter(ContextFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
