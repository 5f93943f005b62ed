"""What names a tournament on the command line, for every command that reads one whole
(`truco verify tournament`, `truco export decisions`): one resolver, so they accept the same.

A SOURCE is a file (an export saved by ``--save`` or ``GET /v1/tournaments/{id}/export``; for
`truco export decisions` also a replay file), a tournament's address on a platform (its page
``http(s)://HOST/tournaments/ID`` as `truco tournament watch` prints it, its API address
``.../v1/tournaments/ID``, or its export's ``.../v1/tournaments/ID/export``), or a tournament id
on the platform `truco` is configured for. Anything else, a missing file included, is a
:class:`~truco_cli.errors.CommandError` that says what was expected.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from truco_cli import config
from truco_cli.api import TIMEOUT_S, USER_AGENT, problem_of
from truco_cli.errors import CommandError

EXIT_UNREADABLE = 2
MAX_BYTES = 2 * 1024**3  # a platform cannot make `truco` hold more than this
_ADDRESS = re.compile(r"^(?P<root>.*?)/(?:v1/)?tournaments/(?P<id>\d+)(?:/export)?/?$")
EXPECTED = (
    "a file, a tournament id, or its address (http(s)://HOST/tournaments/ID, .../v1/tournaments/ID)"
)


def export_url(source: str) -> str | None:
    """The export's API address for a tournament id or address; None for anything that is
    neither a number nor an http(s) address (a file name, say)."""
    if source.isascii() and source.isdigit():
        return f"{config.load().url}/v1/tournaments/{int(source)}/export"
    if not source.lower().startswith(("http://", "https://")):
        return None
    try:
        parts = urlsplit(source)
        found = _ADDRESS.match(parts.path) if parts.hostname else None
    except ValueError:  # "http://[::1" and the like
        found = None
    if found is None:
        raise CommandError.local(
            "Not a tournament address",
            f"{source}: expected http(s)://HOST/tournaments/ID or .../v1/tournaments/ID",
            slug="cli/not-a-tournament",
            exit_code=EXIT_UNREADABLE,
        )
    path = f"{found['root']}/v1/tournaments/{found['id']}/export"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def download(url: str) -> bytes:
    """The export document (gzip is undone by httpx); the platform's refusal as an error."""
    body = bytearray()
    headers = {"user-agent": USER_AGENT, "accept": "application/json"}
    try:
        with (
            httpx.Client(timeout=TIMEOUT_S, headers=headers, trust_env=False) as client,
            client.stream("GET", url) as response,
        ):
            if not response.is_success:
                response.read()
                raise CommandError(problem_of(response))
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise CommandError.local(
                        "Export too large",
                        f"{url}: more than {MAX_BYTES} bytes",
                        slug="cli/too-large",
                        exit_code=EXIT_UNREADABLE,
                    )
    except httpx.HTTPError as exc:
        raise CommandError.local(
            "Platform unreachable",
            f"GET {url}: {exc or type(exc).__name__}",
            slug="cli/unreachable",
            exit_code=1,
        ) from None
    return bytes(body)


def read_file(path: Path) -> bytes:
    """A saved document's bytes; a missing or unreadable file is a clear error (exit 2)."""
    try:
        return path.read_bytes()
    except (OSError, ValueError) as exc:
        detail = getattr(exc, "strerror", None) or str(exc)
        raise CommandError.local(
            "Cannot read the file", f"{path}: {detail}", exit_code=EXIT_UNREADABLE
        ) from None


def read_source(source: str, *, announce: bool = True) -> tuple[bytes, str]:
    """The bytes SOURCE names (a file's, or the tournament's export downloaded once) and where
    they came from; ``announce`` prints the address before a download."""
    path = Path(source)
    try:
        is_file, folder = path.is_file(), path.is_dir()
    except (OSError, ValueError) as exc:  # unreadable, or a name no file can have
        detail = getattr(exc, "strerror", None) or str(exc)
        raise CommandError.local(
            "Cannot read the file", f"{source}: {detail}", exit_code=EXIT_UNREADABLE
        ) from None
    if is_file:
        return read_file(path), str(path)
    url = export_url(source)
    if url is None:
        what = "a folder, not a file" if folder else "no such file"
        what = what if source else "an empty name"
        raise CommandError.local(
            "No such tournament or file",
            f"{source!r}: {what}; expected {EXPECTED}",
            slug="cli/no-source",
            exit_code=EXIT_UNREADABLE,
        )
    if announce:
        print(f"downloading {url}")
    return download(url), url
