"""The live page's narration templates are the catalogue's own sentences: each is a message
of the pages' template (so the Spanish page narrates in Spanish, as a reload would)."""

from __future__ import annotations

from pathlib import Path

from services.web import i18n
from services.web.views.live_words import TEMPLATES

POT = Path(__file__).resolve().parents[3] / "services/web/locale/messages.pot"


def test_every_template_is_a_catalogue_message() -> None:
    pot = POT.read_text(encoding="utf-8")
    for key, template in TEMPLATES.items():
        assert f'msgid "{template}"' in pot, key


def test_the_spanish_templates_are_translated() -> None:
    i18n.activate("es")
    try:
        translated = [i18n.gettext(t) for t in TEMPLATES.values()]
    finally:
        i18n.activate("en")
    assert all(t != e for t, e in zip(translated, TEMPLATES.values(), strict=True))
