"""The platform's REST API as the platform commands call it (httpx, synchronous).

Every answer that is not a success becomes a :class:`CommandError` holding the platform's
problem document (decoded with the API's own ``Problem`` type); a platform that does not answer
becomes one too, saying where `truco` tried. ``--json`` output is the API's JSON as it came.
"""

from __future__ import annotations

import argparse
import functools
import json
import ssl
import sys
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx

from truco_cli import config
from truco_cli.errors import CommandError
from truco_cli.refs import check_platform, parse_ref

TIMEOUT_S = 30.0
READ_RETRIES = 3  # a GET answered 429 is asked again after its Retry-After, this many times
MAX_RETRY_WAIT_S = 60.0
LOOPBACK = ("127.0.0.1", "::1", "localhost")
USER_AGENT = "truco-cli/1"


def add_json(parser: argparse.ArgumentParser) -> None:
    """The ``--json`` flag every platform command takes."""
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the platform's JSON answer (errors: the problem document, on stderr)",
    )


def problem_of(response: httpx.Response) -> dict[str, Any]:
    """The problem document of a refusal; one made from the status when the body is not one."""
    import msgspec

    from services.api.problems import Problem  # only on errors: it imports the API framework

    try:
        msgspec.json.decode(response.content, type=Problem)  # it is one: keep all it says
        document: dict[str, Any] = msgspec.json.decode(response.content)
    except msgspec.DecodeError:
        text = response.text.strip().replace("\n", " ")[:200] or "(empty body)"
        return {
            "type": "about:blank",
            "title": response.reason_phrase or "HTTP error",
            "status": response.status_code,
            "detail": f"{response.request.method} {response.request.url.path}: {text}",
        }
    if response.status_code == 429 and "retry-after" in response.headers:
        document["detail"] += f" (retry after {response.headers['retry-after']} s)"
    return document


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait before asking again after a 429 (None: do not ask again)."""
    if response.status_code != 429:
        return None
    try:
        wait = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return wait if 0 <= wait <= MAX_RETRY_WAIT_S else None


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of every :class:`Platform` in this process (what httpx makes by default,
    the certificate variables of the environment included): building one loads the CA bundle,
    15-50 ms of CPU, and a process that runs many commands (the tests) made one a command."""
    return httpx.create_ssl_context()


class Platform:
    """One platform (URL and optional API key); use as a context manager."""

    def __init__(
        self,
        url: str,
        key: str | None = None,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = config.check_url(url)
        self.key = key
        self._warned = False
        headers = {"user-agent": USER_AGENT, "accept": "application/json"}
        self._http = httpx.Client(
            base_url=self.url,
            timeout=TIMEOUT_S,
            headers=headers,
            transport=transport,
            verify=tls_context(),
        )

    @classmethod
    def from_config(cls) -> Platform:
        profile = config.load()
        return cls(profile.url, profile.key)

    def __enter__(self) -> Platform:
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.close()

    def request(
        self, method: str, path: str, *, body: Any = None, auth: bool = False, **params: Any
    ) -> Any:
        """The decoded JSON answer (None for 204); a refusal raises :class:`CommandError`."""
        headers = {}
        if auth:
            if not self.key:
                raise CommandError.local(
                    "No API key",
                    f"this needs your API key: run `truco login --url {self.url} --key KEY` "
                    f"or set {config.KEY_ENV}",
                    slug="cli/no-key",
                )
            headers["authorization"] = f"Bearer {self.key}"
            self._warn_if_cleartext()
        query = {name: value for name, value in params.items() if value is not None}
        try:
            response = self._http.request(
                method, path, json=body, params=query, headers=headers or None
            )
            for _ in range(READ_RETRIES):  # a read over the rate limit waits its turn
                wait = _retry_after(response) if method == "GET" else None
                if wait is None:
                    break
                time.sleep(wait)
                response = self._http.request(method, path, params=query, headers=headers or None)
        except httpx.HTTPError as exc:
            raise CommandError.local(
                "Platform unreachable",
                f"{method} {self.url}{path}: {exc or type(exc).__name__}",
                slug="cli/unreachable",
                exit_code=1,
            ) from None
        if response.is_success:
            if response.status_code == 204 or not response.content:
                return None
            try:
                return response.json()
            except json.JSONDecodeError:
                raise CommandError.local(
                    "Not a platform answer",
                    f"{method} {self.url}{path} answered {response.status_code} without JSON: "
                    "is this the platform's URL?",
                    slug="cli/not-json",
                    exit_code=1,
                ) from None
        raise CommandError(problem_of(response))

    def _warn_if_cleartext(self) -> None:
        """Say so (once) when the key is about to cross a network unencrypted."""
        parts = urlsplit(self.url)
        if parts.scheme == "http" and parts.hostname not in LOOPBACK and not self._warned:
            self._warned = True
            print(
                f"warning: sending your API key to {parts.hostname} without encryption "
                "(http://); use the platform's https:// address",
                file=sys.stderr,
            )

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, **params)

    def pages(self, path: str, key: str = "items", **params: Any) -> Iterator[Any]:
        """Every item of a paginated list, following ``next_cursor``."""
        cursor = None
        while True:
            page = self.get(path, limit=100, cursor=cursor, **params)
            yield from page[key]
            cursor = page.get("next_cursor")
            if cursor is None:
                return

    def me(self) -> dict[str, Any]:
        """The account of the API key."""
        answer: dict[str, Any] = self.request("GET", "/v1/accounts/me", auth=True)
        return answer

    def bot_id(self, ref: str) -> int:
        """A bot's id from its id, its address (page or API) or its name."""
        if ref.isascii() and ref.isdigit():
            return int(ref)
        if ref.lower().startswith(("http://", "https://")):
            try:
                found = parse_ref(ref, "bots")
            except ValueError as exc:
                raise CommandError.local("Not a bot", str(exc), slug="cli/not-a-bot") from None
            check_platform(self.url, [found])
            return int(found)
        found = self.get("/v1/bots", name=ref, limit=1)["items"]
        if not found:
            raise CommandError.local(
                "No such bot",
                f"there is no bot named {ref!r}",
                slug="cli/no-such-bot",
                exit_code=1,
            )
        return int(found[0]["id"])


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """Plain aligned columns (numbers right-aligned), one line per row."""
    cells = [headers, *[["-" if cell is None else str(cell) for cell in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    numeric = [
        all(isinstance(row[i], int | float) for row in rows if row[i] is not None) and bool(rows)
        for i in range(len(headers))
    ]
    lines = []
    for row in cells:
        parts = [
            cell.rjust(width) if num else cell.ljust(width)
            for cell, width, num in zip(row, widths, numeric, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)
