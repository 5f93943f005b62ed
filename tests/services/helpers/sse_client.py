"""The API served by uvicorn on 127.0.0.1 in a thread (streams need a real server: the
in-process ASGI client waits for a whole body) and a small Server-Sent Events reader."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec
from litestar import Litestar

from services.base.config import RateLimits, Settings
from services.launch.app import create_app
from tests.services.helpers.uvicorn_thread import served_app, stop


@dataclass(frozen=True)
class Served:
    app: Litestar
    base: str


@contextlib.contextmanager
def serve(settings: Settings) -> Iterator[Served]:
    """The platform's app (its own pool, opened in uvicorn's loop) on an ephemeral port."""
    app = create_app(settings, rate_limits=RateLimits(enabled=False))
    server, thread, port = served_app(app)
    try:
        yield Served(app, f"http://127.0.0.1:{port}")
    finally:
        stop(server, thread)


@dataclass(frozen=True)
class Message:
    event: str  # "message" when the frame names none
    data: str
    id: str | None

    def json(self) -> Any:
        return msgspec.json.decode(self.data)


async def messages(
    response: httpx.Response, comments: list[str] | None = None
) -> AsyncIterator[Message]:
    """The messages of an open SSE response, as they arrive (comments go to ``comments``)."""
    event, data, id_ = "message", [], None
    async for line in response.aiter_lines():
        if line == "":
            if data:
                yield Message(event, "\n".join(data), id_)
            event, data, id_ = "message", [], None
        elif line.startswith(":"):
            if comments is not None:
                comments.append(line[1:].strip())
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            elif name == "id":
                id_ = value


async def take(stream: AsyncIterator[Message], count: int) -> list[Message]:
    out = []
    async for message in stream:
        out.append(message)
        if len(out) == count:
            break
    return out
