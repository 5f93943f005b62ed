"""Composing Litestar ``before_request`` hooks (the app takes one)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar import Request
from litestar.datastructures import State
from litestar.response import Response

Hook = Callable[[Request[object, object, State]], Awaitable[Response[bytes] | None]]


def first_answer(*hooks: Hook) -> Hook:
    """One hook running ``hooks`` in order: the first that answers ends the request there."""

    async def run(request: Request[object, object, State]) -> Response[bytes] | None:
        for hook in hooks:
            answer = await hook(request)
            if answer is not None:
                return answer
        return None

    return run
