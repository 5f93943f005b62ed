"""A fault's detail in the page's language: what the bot client, the judge or a person's seat
wrote of a failure (English data, ``arena``'s own words: "connection refused", "no complete
answer within 1000 ms", "HTTP 500, expected 200", "'mazo' is not legal now"), read back by its
shape and worded through the catalogues with its numbers.

A detail of no known shape (a library's message, say a JSON decoder's) is shown as the English
data it is only on an English page; a page in another language leaves it out: the fault's
kind, call and status (:mod:`services.web.views.causes`) already say what happened, in that
language. So nothing a page shows of a fault bypasses the catalogue.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from services.web.i18n import N_, current
from services.web.i18n import gettext as _

_PHRASES = {
    # arena/client/bot_client.py: the errno of a failed connection, and the guard's refusals
    "connection refused": N_("connection refused"),
    "connection reset by the bot": N_("connection reset by the bot"),
    "connection aborted": N_("connection aborted"),
    "no route to the bot's host": N_("no route to the bot's host"),
    "the bot's network is unreachable": N_("the bot's network is unreachable"),
    "connecting timed out": N_("connecting timed out"),
    "the bot closed the connection": N_("the bot closed the connection"),
    "could not connect to the bot": N_("could not connect to the bot"),
    "the connection failed or was closed before a full answer": N_(
        "the connection failed or was closed before a full answer"
    ),
    "the client is closed": N_("the connection was closed"),
    "the bot URL is not valid": N_("the bot URL is not valid"),
    "the bot's host name did not resolve": N_("the bot's host name did not resolve"),
    "time bank exhausted: no time left for this call": N_(
        "time bank exhausted: no time left for this call"
    ),
    # arena/match/human.py: a person's seat
    "the person left the table": N_("the person left the table"),
}
"""Details that are a fixed phrase."""


@dataclass(frozen=True, slots=True)
class _Shape:
    pattern: re.Pattern[str]
    words: Callable[[re.Match[str]], str]


def _shape(pattern: str) -> Callable[[Callable[[re.Match[str]], str]], _Shape]:
    def make(words: Callable[[re.Match[str]], str]) -> _Shape:
        return _Shape(re.compile(pattern), words)

    return make


@_shape(r"(?:\w+: )?no complete answer within (\d+) ms")
def _deadline(m: re.Match[str]) -> str:
    return _("no complete answer within %(ms)s ms") % {"ms": m[1]}


@_shape(r"answered after (\d+) ms")
def _late(m: re.Match[str]) -> str:
    return _("answered after %(ms)s ms") % {"ms": m[1]}


@_shape(r"no decision in ([\d.]+) s")
def _clock(m: re.Match[str]) -> str:
    return _("no decision in %(s)s s") % {"s": m[1]}


@_shape(r"HTTP (\d{3}), expected (200|2xx): the bot rejected the signature .*")
def _signature(m: re.Match[str]) -> str:
    return _("HTTP %(status)s, expected %(expected)s: the bot rejected the signature (is it "
             "using the right secret?)") % {"status": m[1], "expected": m[2]}  # fmt: skip


@_shape(r"HTTP (\d{3}), expected (200|2xx)")
def _status(m: re.Match[str]) -> str:
    return _("HTTP %(status)s, expected %(expected)s") % {"status": m[1], "expected": m[2]}


@_shape(r"HTTP (\d{3}) redirect: redirects are not followed")
def _redirect(m: re.Match[str]) -> str:
    return _("HTTP %(status)s redirect: redirects are not followed") % {"status": m[1]}


@_shape(r"compressed answer \((.{1,40})\); send it uncompressed")
def _compressed(m: re.Match[str]) -> str:
    return _("compressed answer (%(encoding)s); send it uncompressed") % {"encoding": m[1]}


@_shape(r"answer declares (\d+) bytes; the limit is (\d+)")
def _declared(m: re.Match[str]) -> str:
    return _("answer declares %(size)s bytes; the limit is %(limit)s") % {
        "size": m[1],
        "limit": m[2],
    }


@_shape(r"answer (?:headers are|is) longer than (\d+) bytes(?: with its framing)?; cut off")
def _too_long(m: re.Match[str]) -> str:
    return _("answer is longer than %(limit)s bytes; cut off") % {"limit": m[1]}


@_shape(r"apiversion (.{1,40}), expected '1'")
def _version(m: re.Match[str]) -> str:
    return _("apiversion %(version)s, expected '1'") % {"version": m[1]}


@_shape(r"refused: a non-public address \(([a-z ]{1,40})\)")
def _private(m: re.Match[str]) -> str:
    return _("refused: the bot's address is not public")


@_shape(r"TLS handshake failed \((\w{1,60})\)(?::.*)?")
def _tls(m: re.Match[str]) -> str:
    return _("TLS handshake failed (%(reason)s)") % {"reason": m[1]}


@_shape(r"('[^']{1,60}'|\"[^\"]{1,60}\") is not legal now")
def _illegal(m: re.Match[str]) -> str:
    return _("%(action)s is not legal now") % {"action": m[1]}


@_shape(r"(?:JSON is malformed|Expected|Object missing|Object contains|Invalid).*")
def _decoder(m: re.Match[str]) -> str:
    return _("the answer does not match the protocol's JSON")


@_shape(r"\w+: Server disconnected without sending a response\.?")
def _hung_up(m: re.Match[str]) -> str:
    return _("the bot closed the connection without answering")


@_shape(r"(?:Read|Write|Network|Connect)Error: .*")
def _broken(m: re.Match[str]) -> str:
    return _("the connection failed or was closed before a full answer")


@_shape(r"(?:Local|Remote)?ProtocolError: .*")
def _not_http(m: re.Match[str]) -> str:
    return _("the answer was not valid HTTP")


_SHAPES = (
    _deadline, _late, _clock, _signature, _status, _redirect, _compressed, _declared, _too_long,
    _version, _private, _tls, _illegal, _decoder, _hung_up, _broken, _not_http,
)  # fmt: skip


def detail_words(detail: str) -> str | None:
    """``detail`` worded in the page's language, or None for a detail of no known shape."""
    text = detail.strip()
    if text in _PHRASES:
        return _(_PHRASES[text])
    for shape in _SHAPES:
        found = shape.pattern.fullmatch(text)
        if found is not None:
            return shape.words(found)
    return None


@dataclass(frozen=True, slots=True)
class Detail:
    text: str  # "" when there is nothing to show
    lang: str | None = None  # "en" for English data shown on an English page as it is


def shown_detail(detail: str | None) -> Detail:
    """What a page shows of ``detail``: its words in the page's language, else the English
    data on an English page, else nothing."""
    if not detail:
        return Detail("")
    words = detail_words(detail)
    if words is not None:
        return Detail(words)
    return Detail(detail, "en") if current() == "en" else Detail("")
