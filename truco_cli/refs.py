"""An object on the platform named on the command line: its id (``12``) or its address, the
page's (``http://HOST/tournaments/12``, as the commands print it) or the API's
(``http://HOST/v1/tournaments/12``).

:func:`ref_type` is the ``type=`` of every such argument: it turns what was typed into a
:class:`Ref` (an ``int`` that remembers the platform an address named) or refuses it with a
message argparse prints (exit 2): a file name, a missing file, an address of another kind of
object, garbage. :func:`check_platform` refuses an address of another platform than the one
`truco` is configured for, rather than looking its id up on the wrong one.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit, urlunsplit

from truco_cli.errors import CommandError

MAX_ID = 2**63 - 1  # the API's ids are PostgreSQL bigints


class Ref(int):
    """An object id; ``platform`` is the base URL an address named (None for a bare id)."""

    platform: str | None

    def __new__(cls, value: int, platform: str | None = None) -> Ref:
        ref = super().__new__(cls, value)
        ref.platform = platform
        return ref


def parse_ref(text: str, plural: str) -> Ref:
    """``text`` as an id of a ``plural`` ("tournaments", "matches", "tests", "bots") object;
    :class:`ValueError` saying what was expected otherwise."""
    expected = f"expected an id or its address, http(s)://HOST/{plural}/ID"
    value = text.strip()
    if value.isascii() and value.isdigit():
        number = int(value)
        if not 1 <= number <= MAX_ID:
            raise ValueError(f"{text!r}: not an id ({expected})")
        return Ref(number)
    if not value.lower().startswith(("http://", "https://")):
        raise ValueError(f"{text!r}: {expected}")
    try:
        parts = urlsplit(value)
        host = parts.hostname
    except ValueError:
        host = None
    if not host:
        raise ValueError(f"{text!r}: not a valid address ({expected})")
    found = re.fullmatch(rf"(?P<root>.*?)/(?:v1/)?{plural}/(?P<id>\d+)(?:/[^/]*)?/?", parts.path)
    if found is None or not 1 <= int(found["id"]) <= MAX_ID:
        raise ValueError(
            f"{text!r}: not the address of one of the platform's {plural} ({expected})"
        )
    root = urlunsplit((parts.scheme, parts.netloc, found["root"], "", ""))
    return Ref(int(found["id"]), root)


def ref_type(plural: str) -> Callable[[str], Ref]:
    """The argparse ``type`` of a ``plural`` argument (its errors are argparse's, exit 2)."""

    def convert(text: str) -> Ref:
        try:
            return parse_ref(text, plural)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = plural.rstrip("s")  # argparse names the type in its message
    return convert


def check_platform(url: str, refs: Iterable[object]) -> None:
    """Refuse an address that names another platform than ``url`` (the configured one)."""
    for ref in refs:
        where = getattr(ref, "platform", None)
        if isinstance(ref, Ref) and where is not None and where.rstrip("/") != url.rstrip("/"):
            raise CommandError.local(
                "Another platform",
                f"that address is on {where}, but truco is configured for {url}: run "
                f"`truco login --url {where} --key KEY` (or set TRUCO_API_URL) to use it",
                slug="cli/other-platform",
            )
