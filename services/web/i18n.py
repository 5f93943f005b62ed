"""The pages' languages: Rioplatense Spanish and English, through gettext message catalogues.

The catalogues are ``locale/<lang>/LC_MESSAGES/messages.po`` (extracted from the templates and
the view code with pybabel, see docs/translating.md). They are compiled in memory the first
time a language is used (:func:`translations`), so no binary ``.mo`` file is committed.

A request's language comes from ``?lang=`` (which also sets the :data:`COOKIE`), else the
cookie, else the ``Accept-Language`` header, else English (:func:`choose`). The page handlers
make it the current language (:func:`activate`); :func:`gettext` and :func:`ngettext`, which
the templates and the view models both use, translate into it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from contextvars import ContextVar
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Final, Literal, get_args

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent
from babel.support import Translations

Language = Literal["en", "es"]
LANGUAGES: Final[tuple[Language, ...]] = get_args(Language)
DEFAULT: Final[Language] = "en"
HTML_LANG: Final[dict[Language, str]] = {"en": "en", "es": "es-AR"}
"""The ``<html lang>`` of each language: the Spanish is Rioplatense (vos, Argentine words)."""
NATIVE_NAMES: Final[dict[Language, str]] = {"en": "English", "es": "Español"}
"""How the language switch names each language: in its own words, never translated."""
COOKIE: Final = "lang"
COOKIE_MAX_AGE: Final = 365 * 24 * 3600
LOCALE_DIR: Final = Path(__file__).resolve().parent / "locale"
DOMAIN: Final = "messages"
MAX_HEADER: Final = 1024  # a longer Accept-Language is read only this far
MAX_RANGES: Final = 32  # and only its first ranges

_current: ContextVar[Language] = ContextVar("page_language", default=DEFAULT)


def po_path(lang: Language) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(lang: Language) -> Translations:
    """The compiled catalogue of ``lang``: read from its ``.po``, compiled in memory once.
    Fuzzy entries are left out (they fall back to the English text)."""
    with po_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buffer = BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


def language(code: str | None) -> Language | None:
    """``code`` as one of :data:`LANGUAGES` ("es-AR" is "es"), or None when not offered."""
    if not code:
        return None
    primary = code.strip().lower().replace("_", "-").split("-")[0]
    for lang in LANGUAGES:
        if primary == lang:
            return lang
    return None


def accepted(header: str | None) -> Language | None:
    """The offered language the ``Accept-Language`` header prefers most (RFC 9110 12.5.4),
    or None. Any malformed part is skipped; nothing here raises."""
    if not header:
        return None
    best: tuple[float, int, Language] | None = None
    for order, item in enumerate(header[:MAX_HEADER].split(",")[:MAX_RANGES]):
        tag, *params = item.split(";")
        weight = 1.0
        for param in params:
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 0.0
        if not (math.isfinite(weight) and 0 < weight <= 1):
            continue
        lang = language(tag)
        if lang is not None and (best is None or (weight, -order) > best[:2]):
            best = (weight, -order, lang)
    return None if best is None else best[2]


def choose(query: Mapping[str, str], cookies: Mapping[str, str], header: str | None) -> Language:
    """A request's language: ``?lang=``, the cookie, ``Accept-Language``, else English."""
    return (
        language(query.get(COOKIE)) or language(cookies.get(COOKIE)) or accepted(header) or DEFAULT
    )


def activate(lang: Language) -> None:
    """Make ``lang`` the language of the current request (a context variable)."""
    _current.set(lang)


def current() -> Language:
    return _current.get()


def gettext(message: str) -> str:
    """``message`` in the current language."""
    return translations(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, in ``context`` (the same English, another word)."""
    return str(translations(current()).pgettext(context, message))


def N_(message: str) -> str:
    """Mark ``message`` for extraction only; translate it where it is shown, with gettext."""
    return message


BABEL_LOCALES: Final[dict[Language, str]] = {"en": "en", "es": "es"}
"""The CLDR locale whose number formats each language's pages use (decimal comma in Spanish)."""


def decimal(value: float, digits: int = 1) -> str:
    """``value`` with ``digits`` decimals as the page's language writes it: "2.94", "2,94"."""
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, pattern, locale=BABEL_LOCALES[current()])


def number(value: float) -> str:
    """``value`` as short as it is (up to three decimals), as the page's language writes it:
    "1.5" / "1,5", "50"."""
    return format_decimal(value, "#,##0.###", locale=BABEL_LOCALES[current()])


def signed(value: float, digits: int = 1) -> str:
    """``value`` with its sign always shown: "+2.94", "−0,50" ("+0.00" for zero)."""
    text = decimal(abs(value), digits)
    return ("-" if value < 0 and text.strip("0,.") else "+") + text


def percent(value: float, digits: int = 0) -> str:
    """``value`` (0.999) as a percentage in the page's language: "99.9%", "99,9 %"."""
    locale = Locale.parse(BABEL_LOCALES[current()])
    pattern = locale.percent_formats[None].pattern  # "#,##0%", "#,##0\u00a0%"
    if digits:
        pattern = pattern.replace("0", "0." + "0" * digits, 1)
    return format_percent(value, pattern, locale=locale)
