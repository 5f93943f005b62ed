"""The site's error page, for any error on a browser route (the polled live endpoints answer
a small JSON document instead)."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from services.api.problems import ProblemError
from services.web.i18n import N_
from services.web.i18n import gettext as _
from services.web.pages.render import SECURITY_HEADERS, render, use_language

logger = logging.getLogger("services.web")


def html_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """An error on a browser route: the site's error page (layout, CSP, security headers); the
    live endpoints that pages poll answer a small JSON document instead."""
    use_language(request)  # also for addresses no page handler answers
    headers: dict[str, str] = {}
    if isinstance(exc, HTTPException):
        status, detail = exc.status_code, exc.detail
        headers = dict(exc.headers or {})
    elif isinstance(exc, ProblemError):
        status, detail = exc.status, exc.detail
        headers = dict(exc.headers or {})
    else:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        status, detail = 500, ""
    if status >= 500:
        detail = _("An unexpected error occurred; it has been logged.")
    elif status == 404 and detail in ("", "Not Found", "no such file"):
        detail = _("There is no page at this address.")
    elif isinstance(exc, ValidationException):
        detail = _("This address is not valid: a number or a value in it is out of range.")
    if request.url.path.endswith("/live"):
        return Response(
            {"status": status, "detail": detail},
            status_code=status,
            headers={**SECURITY_HEADERS, **headers},
        )
    return render(
        request,
        "error.html",
        status_code=status,
        headers=headers,
        status=status,
        message=_error_title(status),
        detail=detail,
    )


ERROR_TITLES = {
    400: N_("Bad request"),
    404: N_("Not found"),
    405: N_("Method not allowed"),
    429: N_("Too many requests"),
    500: N_("Internal server error"),
}


def _error_title(status: int) -> str:
    if status in ERROR_TITLES:
        return _(ERROR_TITLES[status])
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return _("Error")
