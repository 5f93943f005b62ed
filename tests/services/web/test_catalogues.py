"""The message catalogues: every string of the templates and the view code has a Spanish
translation, the committed ``.pot`` is what pybabel extracts today, and a request's language
is chosen from ``?lang=``, the cookie and ``Accept-Language`` without ever failing.

No database and no browser: the extraction runs Babel's own API over the same ``babel.cfg``
that ``pybabel extract`` reads (docs/translating.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from hypothesis import given
from hypothesis import strategies as st

from engine.spoken import said
from services import domain
from services.tournaments.formats import FORMATS
from services.web import i18n
from services.web.views.common import FORMAT_TITLES, STATUS_NAMES, card_name

ROOT = Path(__file__).resolve().parents[3]
Key = tuple[str | None, str | tuple[str, ...]]  # (context, msgid or (singular, plural))


def extracted() -> dict[Key, list[str]]:
    """Every translatable string of the templates and the view code, as pybabel finds it, with
    the files it comes from."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f, "babel.cfg")
    found: dict[Key, list[str]] = {}
    for filename, _lineno, message, _comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=DEFAULT_KEYWORDS
    ):
        msgid = message if isinstance(message, str) else tuple(message)
        found.setdefault((context, msgid), []).append(filename)
    return found


def catalogue(path: Path, locale: str | None = None) -> dict[Key, object]:
    with path.open("rb") as f:
        cat = read_po(f, locale=locale)
    return {(m.context, m.id): m for m in cat if m.id}


def test_extraction_finds_the_pages_strings() -> None:
    found = extracted()
    files = {name for names in found.values() for name in names}
    # both kinds of source are read: the templates and the view code
    assert "services/web/templates/home.html" in files
    assert "services/web/views/standings.py" in files
    assert (None, "Leaderboards") in found
    assert (None, ("%(num)d bot", "%(num)d bots")) in found
    assert ("trick", "round %(n)d") in found
    assert len(found) > 150


def test_every_string_has_a_spanish_translation() -> None:
    """A template or view string missing from ``es`` (or empty, or fuzzy) fails here."""
    es = catalogue(i18n.po_path("es"), "es")
    problems = []
    for key, files in sorted(extracted().items(), key=str):
        entry = es.get(key)
        if entry is None:
            problems.append(f"{key} ({files[0]}): not in the es catalogue")
            continue
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)  # type: ignore[attr-defined]
        if not all(strings):
            problems.append(f"{key} ({files[0]}): empty msgstr")
        if entry.fuzzy:  # type: ignore[attr-defined]
            problems.append(f"{key} ({files[0]}): fuzzy")
    assert problems == [], "\n".join(["untranslated strings; see docs/translating.md:", *problems])


def test_the_spanish_translations_keep_their_placeholders() -> None:
    """Babel's checkers: the same %(name)s placeholders, the plural forms Spanish has."""
    with i18n.po_path("es").open("rb") as f:
        cat = read_po(f, locale="es")
    errors = [(m.id, [str(e) for e in errs]) for m, errs in cat.check()]
    assert errors == []


def test_the_committed_template_and_english_catalogue_are_current() -> None:
    """``messages.pot`` and ``en`` hold exactly what extraction finds today (no stale ids)."""
    now = set(extracted())
    pot = set(catalogue(i18n.LOCALE_DIR / "messages.pot"))
    assert pot == now, f"run pybabel extract: missing {now - pot}, stale {pot - now}"
    for lang in i18n.LANGUAGES:
        assert set(catalogue(i18n.po_path(lang), lang)) == now, f"run pybabel update ({lang})"


def test_the_marked_names_follow_the_domain() -> None:
    """Format titles and statuses are marked for translation in the views: the same ones the
    platform stores."""
    assert {name: f.title for name, f in FORMATS.items()} == FORMAT_TITLES
    statuses = {
        *get_args(domain.TournamentStatus),
        *get_args(domain.RoundStatus),
        *get_args(domain.MatchStatus),
        *get_args(domain.BotStatus),
        *get_args(domain.BotResult),
    }
    assert statuses <= set(STATUS_NAMES)


def test_cards_and_cantos_are_named_as_players_say_them() -> None:
    """In Spanish on every page, English too: the words of the game (through the catalogue)."""
    try:
        for lang in i18n.LANGUAGES:
            i18n.activate(lang)
            assert card_name("1E") == "ancho de espadas"
            assert card_name("1B") == "ancho de bastos"
            assert card_name("7E") == "siete de espadas"
            assert card_name("7O") == "siete de oros"
            assert card_name("4C") == "4 de copas"
            assert card_name("12O") == "12 de oros"
            assert card_name("10B") == "10 de bastos"
            assert i18n.gettext(said("vale_cuatro")) == "¡Quiero vale cuatro!"
            assert i18n.gettext(said("mazo")) == "Me voy al mazo."
    finally:
        i18n.activate(i18n.DEFAULT)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("es-AR,es;q=0.9,en;q=0.8", "es"),
        ("es", "es"),
        ("ES-ar", "es"),
        ("en-US,en;q=0.9", "en"),
        ("fr-FR,fr;q=0.9", None),
        ("fr-FR, es;q=0.5", "es"),
        ("en;q=0.4, es;q=0.6", "es"),
        ("es;q=0, en", "en"),  # q=0: not acceptable
        ("es;q=abc, en;q=0.1", "en"),  # a malformed weight drops its range
        ("es;q=nan, en", "en"),
        ("es;q=2", None),
        ("*", None),
        ("", None),
        (";;;,,,=", None),
        ("es-" + "x" * 5000, "es"),
    ],
)
def test_accept_language(header: str, expected: str | None) -> None:
    assert i18n.accepted(header) == expected


@given(st.text(max_size=300))
def test_any_accept_language_gives_an_offered_language_or_none(header: str) -> None:
    assert i18n.accepted(header) in (*i18n.LANGUAGES, None)
    assert i18n.choose({}, {}, header) in i18n.LANGUAGES


def test_query_then_cookie_then_header_then_english() -> None:
    assert i18n.choose({"lang": "es"}, {"lang": "en"}, "en") == "es"
    assert i18n.choose({"lang": "xx"}, {"lang": "es"}, "en") == "es"
    assert i18n.choose({}, {"lang": "zz"}, "es-AR") == "es"
    assert i18n.choose({}, {}, "de") == "en"
    assert i18n.choose({}, {}, None) == "en"
