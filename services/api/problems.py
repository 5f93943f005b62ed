"""RFC 9457 problem details for every error the API returns.

Every error leaves as ``application/problem+json`` with ``type``, ``title``, ``status`` and
``detail`` (plus ``errors`` for field problems): our own :class:`ProblemError`, Litestar's
HTTP exceptions (unknown route 404, 405, 413 for an oversized body, validation 400/422) and,
as a last resort, any other exception, which is logged and answered with a bare 500.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.types import ExceptionHandlersMap

from services.metrics.catalog import RATE_LIMIT_REFUSALS

PROBLEM_JSON = "application/problem+json"
TYPE_BASE = "/problems/"

logger = logging.getLogger("services.api")


class FieldError(msgspec.Struct, frozen=True, omit_defaults=True):
    """One field problem: where (``field``, e.g. ``url`` or ``body.name``) and what."""

    field: str
    message: str


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """The RFC 9457 document."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[FieldError] | None = None
    checks: dict[str, str] | None = None


class ProblemError(Exception):
    """Raise from a handler to answer with a problem document."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        slug: str | None = None,
        title: str | None = None,
        errors: list[FieldError] | None = None,
        checks: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        if status == 429:  # a quota's or a cap's refusal: counted by its slug
            RATE_LIMIT_REFUSALS.labels(slug or "rate-limited").inc()
        self.status = status
        self.detail = detail
        self.slug = slug
        self.title = title
        self.errors = errors
        self.checks = checks
        self.headers = headers


_SLUGS = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    413: "body-too-large",
    422: "validation",
    429: "rate-limited",
    500: "internal",
    503: "unavailable",
}


def _title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def problem_response(
    status: int,
    detail: str,
    *,
    slug: str | None = None,
    title: str | None = None,
    errors: list[FieldError] | None = None,
    checks: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[bytes]:
    problem = Problem(
        type=TYPE_BASE + (slug or _SLUGS.get(status, "error")),
        title=title or _title(status),
        status=status,
        detail=detail,
        errors=errors,
        checks=checks,
    )
    return Response(
        content=msgspec.json.encode(problem),
        status_code=status,
        media_type=PROBLEM_JSON,
        headers=headers,
    )


def problem_responses(*statuses: int, common: bool = True) -> dict[int, ResponseSpec]:
    """OpenAPI entries saying these statuses answer with a problem document; with ``common``
    (every ``/v1`` operation) also 400 (a bad parameter or body) and 429 (rate limited)."""
    every = sorted({*statuses, 400, 429} if common else set(statuses))
    return {
        status: ResponseSpec(
            data_container=Problem,
            description=f"{_title(status)} (application/problem+json)",
            media_type=PROBLEM_JSON,
            generate_examples=False,  # random examples would make the document change
        )
        for status in every
    }


def _problem_error(_: Request[Any, Any, Any], exc: ProblemError) -> Response[bytes]:
    return problem_response(
        exc.status,
        exc.detail,
        slug=exc.slug,
        title=exc.title,
        errors=exc.errors,
        checks=exc.checks,
        headers=exc.headers,
    )


def _field_errors(extra: Any) -> list[FieldError]:
    """Litestar's ``extra`` (a list of ``{"message", "key", "source"}``) as field errors."""
    items = extra if isinstance(extra, list) else [extra] if extra else []
    errors = []
    for item in items:
        if isinstance(item, dict):
            key = str(item.get("key") or "")
            raw_source = item.get("source") or ""
            source = str(getattr(raw_source, "value", raw_source))
            if source == "body" and key == "data":
                key = ""  # Litestar names the whole body "data"
            field = ".".join(part for part in (source, key) if part) or "body"
            errors.append(FieldError(field=field, message=str(item.get("message", "invalid"))))
        else:
            errors.append(FieldError(field="body", message=str(item)))
    return errors


def _validation(request: Request[Any, Any, Any], exc: ValidationException) -> Response[bytes]:
    errors = _field_errors(exc.extra)
    if not errors:  # the body is not JSON (malformed, truncated, wrong content)
        return problem_response(400, f"the request body could not be decoded: {exc.detail}")
    if not any(e.field.startswith("body") for e in errors):
        # bad path, query, header or cookie parameters: a plain bad request
        return problem_response(400, exc.detail, errors=errors)
    return problem_response(
        422, "the request body does not match the schema", errors=errors or None
    )


def _http(_: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    status = exc.status_code
    detail = exc.detail or _title(status)
    headers = dict(exc.headers) if exc.headers else None
    if status == 404 and detail == "Not Found":
        detail = "no such resource"
    elif status == 400:  # Litestar could not decode the body (malformed or truncated JSON)
        detail = f"the request body could not be decoded: {detail}"
    elif status == 413:
        detail = "the request body is too large"
    elif status >= 500:
        logger.error("HTTP %s: %s %r", status, detail, exc.extra, exc_info=exc)
        detail = _title(status)
    return problem_response(status, detail, headers=headers)


def _too_deep(request: Request[Any, Any, Any], exc: RecursionError) -> Response[bytes]:
    return problem_response(400, "the request body is nested too deeply to be decoded")


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    return problem_response(500, "an unexpected error occurred; it has been logged")


exception_handlers: ExceptionHandlersMap = {
    ProblemError: _problem_error,
    ValidationException: _validation,
    HTTPException: _http,
    RecursionError: _too_deep,
    Exception: _unexpected,
}

__all__ = [
    "PROBLEM_JSON",
    "FieldError",
    "Problem",
    "ProblemError",
    "exception_handlers",
    "problem_response",
    "problem_responses",
]
