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
    else:
        detail = _error_detail(status, str(detail))
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
    401: N_("Not signed in"),
    403: N_("Forbidden"),
    404: N_("Not found"),
    405: N_("Method not allowed"),
    406: N_("Not acceptable"),
    408: N_("Request timed out"),
    409: N_("Conflict"),
    410: N_("Gone"),
    413: N_("Request too large"),
    414: N_("Address too long"),
    415: N_("Unsupported media type"),
    422: N_("Unprocessable request"),
    429: N_("Too many requests"),
    431: N_("Request headers too large"),
    500: N_("Internal server error"),
    502: N_("Bad gateway"),
    503: N_("Service unavailable"),
    504: N_("Gateway timed out"),
}
"""Every status a page can answer with, in the catalogue (none shows the framework's English)."""

ERROR_DETAILS = {
    405: N_("This address cannot be used that way: pages are read with GET."),
    413: N_("The request is larger than this address accepts."),
    414: N_("The address is longer than the site accepts."),
    429: N_("Too many requests from your address: wait a moment and try again."),
    431: N_("The request's headers are larger than the site accepts."),
}
"""What to say where the framework would give its own English detail."""


def _error_title(status: int) -> str:
    if status in ERROR_TITLES:
        return _(ERROR_TITLES[status])
    return _("Error")


def _error_detail(status: int, detail: str) -> str:
    """The detail a page shows: the pages' own (already in the page's language) or, for the
    framework's words (its reason phrase, or any status it answers by itself), ours."""
    if status in ERROR_DETAILS:
        return _(ERROR_DETAILS[status])
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    return "" if detail == phrase else detail
