"""Fault details that are safe to publish: a replay is public, a bot's URL is not.

A fault's ``detail`` goes into the match's replay, which anyone can read. The bot's URL is
shown only to its owner, so no detail may carry the bot's host name: TLS errors do
("Hostname mismatch, certificate is not valid for 'bot.internal.example'"), and so can
connection errors, egress refusals and redirects. :func:`public_detail` describes a TLS
failure by its reason code alone and replaces the host name wherever else it appears.
"""

from __future__ import annotations

import re
import ssl

HOST_PLACEHOLDER = "<bot host>"
_QUOTED = re.compile(r"'[^']*'")


def _ssl_error(exc: BaseException) -> ssl.SSLError | None:
    """The ``ssl.SSLError`` behind ``exc`` (httpx wraps it in one or two layers), if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ssl.SSLError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def tls_detail(exc: BaseException) -> str | None:
    """``"TLS handshake failed (REASON): what"`` if ``exc`` is a TLS failure, else None.

    Only OpenSSL's reason code and the verification message are kept, with anything quoted
    (the names a certificate was checked against) blanked out.
    """
    error = _ssl_error(exc)
    if error is None:
        return None
    reason = getattr(error, "reason", None) or type(error).__name__
    what = getattr(error, "verify_message", None) or ""
    what = _QUOTED.sub("the bot's host name", str(what)).rstrip(".")
    return f"TLS handshake failed ({reason})" + (f": {what}" if what else "")


def scrub_host(text: str, host: str | None) -> str:
    """``text`` with ``host`` (any case, as a whole name: ``bot`` in ``robot`` stays) replaced
    by a placeholder."""
    name = host.strip("[]").rstrip(".") if host else ""
    if not name:
        return text
    pattern = rf"(?<![A-Za-z0-9_-]){re.escape(name)}(?![A-Za-z0-9_-])"
    return re.sub(pattern, HOST_PLACEHOLDER, text, flags=re.IGNORECASE)


def public_detail(text: str, host: str | None, exc: BaseException | None = None) -> str:
    """What a fault may say in public: the TLS reason for a TLS failure, and never the host."""
    tls = tls_detail(exc) if exc is not None else None
    return scrub_host(tls if tls is not None else text, host)
