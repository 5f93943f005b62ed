"""``/static``: the files of ``static/`` (CSS, JS, SVG, the vendored Swagger UI), read once."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from litestar import Response, get
from litestar.exceptions import NotFoundException
from litestar.params import Parameter

from services.api.guard.read_lane import READ_LANE
from services.web.pages.render import SECURITY_HEADERS, STATIC

MEDIA_TYPES = {
    ".css": "text/css",
    ".js": "text/javascript",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
}


@cache
def _static_files() -> dict[str, tuple[bytes, str]]:
    """The files of ``static/`` and its folders (``swagger_ui/...``) by relative path, read
    once; nothing else is ever served."""
    return {
        f.relative_to(STATIC).as_posix(): (f.read_bytes(), MEDIA_TYPES[f.suffix])
        for f in sorted(STATIC.rglob("*"))
        if f.is_file() and f.suffix in MEDIA_TYPES
    }


@get("/static/{name:path}", name="web:static", opt={READ_LANE: False})
async def static_file(name: Annotated[str, Parameter(max_length=96)]) -> Response[bytes]:
    found = _static_files().get(name.lstrip("/"))
    if found is None:
        raise NotFoundException("no such file")
    body, media_type = found
    return Response(
        body,
        media_type=media_type,
        headers={**SECURITY_HEADERS, "Cache-Control": "public, max-age=300"},
    )
