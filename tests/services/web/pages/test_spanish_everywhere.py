"""No English left on a Spanish page: every page type, a walkover, a forfeit of every fault kind
and the error pages, rendered in Spanish through a pseudo-catalogue that marks each string it
translates (``⟦...⟧``). Whatever is left in ``<main>`` once the marked strings, the data (bot,
tournament and owner names, numbers) and the words that are the same in every language are
taken out is a string that bypassed the catalogue, and fails the test.

Nothing is exempt for being marked ``lang="en"``: a fault's detail (a bot client's own
description of a network failure) is worded through the catalogue too, or left out of a page in
another language (``services/web/views/fault_details.py``). Only the replay's quoted ``say`` (a
bot's words) is left out."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from html.parser import HTMLParser

import httpx
import pytest
from babel.support import Translations

from services.web import i18n
from services.web.pages import render
from tests.services.web.conftest import WebData
from tests.services.web.page_types import every_page
from tests.services.web.seed import XSS_SAY
from tests.services.web.seed_faults import FAILURES, ILLEGAL_WORD

OPEN, CLOSE = "⟦", "⟧"
SAME_IN_EVERY_LANGUAGE = {
    # modes, units, the protocol's words, and hypothesis names of the SPRT
    "1v1", "2v2", "ms", "Elo", "H0", "H1", "LLR", "p50", "p90", "p99", "GET", "HTTP", "act",
    "start", "info", "end", "vs", "2xx",
    # words of the game, Spanish on every page (docs/translating.md)
    "mano", "parda", "truco", "envido", "flor", "Truco", "Arena",
}  # fmt: skip
"""Tokens that are no language's sentence: a page in any language shows them as they are."""
GAME_PHRASES = ("no querido", "querido")
"""The answer to a canto, said in Spanish on every page (``arena.game.narrate``)."""


PLACEHOLDER = re.compile(r"%%|%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[sdifr]")


def mark(text: str) -> str:
    """``text`` between marks, its placeholders outside them: what fills a placeholder is
    checked too (a name is data; an English word passed in is caught)."""
    outside = PLACEHOLDER.sub(lambda m: m[0] if m[0] == "%%" else CLOSE + m[0] + OPEN, text)
    return OPEN + outside + CLOSE


class Marked:
    """The Spanish catalogue, with every string it hands out wrapped in ⟦ ⟧ (what Jinja2's
    i18n extension and :mod:`services.web.i18n` call of a catalogue, nothing else)."""

    def __init__(self, spanish: Translations) -> None:
        self.spanish = spanish

    def gettext(self, message: str) -> str:
        return mark(self.spanish.gettext(message))

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return mark(self.spanish.ngettext(singular, plural, n))

    def pgettext(self, context: str, message: str) -> str:
        return mark(str(self.spanish.pgettext(context, message)))

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return mark(str(self.spanish.npgettext(context, singular, plural, n)))


@pytest.fixture
def marked_spanish(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Spanish pages rendered through :class:`Marked` (the templates' engine rebuilt)."""
    real = i18n.translations
    marked = Marked(real("es"))
    monkeypatch.setattr(i18n, "translations", lambda lang: marked if lang == "es" else real(lang))
    render._engine.cache_clear()
    try:
        yield
    finally:
        render._engine.cache_clear()


class MainText(HTMLParser):
    """The text of ``<main>`` a reader meets (text, title, aria-label, alt), without quoted
    bot speech."""

    SKIP = ("script", "style")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.in_main = False
        self.parts: list[str] = []

    def _skipping(self) -> bool:
        return any(skipped for _, skipped in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "main":
            self.in_main = True
        void = tag in {"br", "img", "input", "meta", "link", "col", "hr", "use", "rect", "line",
                       "circle", "path"}  # fmt: skip
        skipped = tag in self.SKIP or "say" in (a.get("class") or "")
        if self.in_main and not self._skipping() and not skipped:
            self.parts.extend(v for k, v in attrs if k in ("title", "aria-label", "alt") and v)
        if not void:
            self.stack.append((tag, skipped))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.in_main and not self._skipping():
            self.parts.extend(v for k, v in attrs if k in ("title", "aria-label", "alt") and v)

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self.in_main = False
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.in_main and not self._skipping():
            self.parts.append(data)


def main_text(page: str) -> str:
    parser = MainText()
    parser.feed(page)
    return " ".join(parser.parts)


def unmarked(text: str, data: list[str]) -> list[str]:
    """The words of ``text`` outside every ⟦marked⟧ string, the ``data`` and the numbers."""
    for name in sorted(data, key=len, reverse=True):
        text = text.replace(name, " ")
        for k in range(4, len(name)):  # a name shortened to fit a box: "a-rather-long-par…"
            text = text.replace(name[:k] + "…", " ")
    while True:  # innermost marks first: a translation may hold another one
        shorter = re.sub(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", " ", text)
        if shorter == text:
            break
        text = shorter
    for phrase in GAME_PHRASES:
        text = text.replace(phrase, " ")
    # owners' and events' generated names, match numbers, a moment's link, seed commitments
    text = re.sub(
        r"(?:org|bot|ladder|newcomer)-[0-9a-f]{8}|cup-[0-9a-f]{6}|#\d+|#?g\d+-s\d+|[0-9a-f]{32,}",
        " ",
        text,
    )
    words = [w.strip("-'’") for w in re.findall(r"[\w'’-]+", text)]
    return [
        w
        for w in words
        if re.search(r"[^\W\d_]", w) and w not in SAME_IN_EVERY_LANGUAGE and len(w) > 1
    ]


def spanish_addresses(web: WebData) -> dict[str, str]:
    s = web.seeded
    found = dict(every_page(web))
    for name in FAILURES:  # each way of losing without playing: the match and the bot
        found[f"lost by {name}"] = f"/matches/{s.lost_by[name]}"
        found[f"bot {name}"] = f"/bots/{s.bots[name]}"
    found["error 400"] = "/matches/1?step=abc"
    for step in (0, 3, 9, 20):
        found[f"forfeit at step {step}"] = f"/matches/{s.lost_by['tramposo']}?game=1&step={step}"
    return found


def data_of(web: WebData) -> list[str]:
    """What the pages show as written by users: names of bots, events and owners, a bot's say."""
    names = list(web.seeded.bots)
    ladder = web.seeded.ladder
    if ladder is not None:  # the ladders' bots, and the pools as the JSON's address names them
        names += [*ladder.names.values(), "/v1/ladders/1v1", "/v1/ladders/2v2-individual"]
    events = [
        "Copa <i>Swiss</i> de Otoño", "Doble Eliminación", "Todos contra todos",
        "Eliminación simple", "Copa 1v1 a eliminar", "Copa 2v2 a eliminar", "Copa de a uno",
        "Copa de las fallas", "web <b>owner</b>", XSS_SAY,
        ILLEGAL_WORD,  # what a bot answered, quoted in its fault's detail
    ]  # fmt: skip
    return names + events


@pytest.mark.anyio
async def test_no_english_left_on_a_spanish_page(
    client: httpx.AsyncClient, web_data: WebData, marked_spanish: None
) -> None:
    data = data_of(web_data)
    found: dict[str, list[str]] = {}
    for name, url in spanish_addresses(web_data).items():
        page = await client.get(url, headers={"accept-language": "es-AR"})
        assert page.status_code in (200, 400, 404), (name, url, page.status_code)
        text = main_text(page.text)
        assert OPEN in text, (name, "the marked catalogue was not used")
        if words := unmarked(text, data):
            found[f"{name} ({url})"] = sorted(set(words))
    # a method a page does not answer: the framework's error, in Spanish too
    page = await client.post("/tournaments", headers={"accept-language": "es-AR"})
    assert page.status_code == 405
    if words := unmarked(main_text(page.text), data):
        found["POST /tournaments"] = sorted(set(words))
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_the_check_sees_english_that_bypasses_the_catalogue() -> None:
    page = (
        "<html><body><main><p>⟦Ronda 1⟧ connection refused <span lang='en'>timed out</span>"
        " ⟦gana ⟦sano⟧⟧ sano 2-0 1v1</p><q class='say'>hola</q></main>"
        "<footer>not checked</footer></body></html>"
    )
    found = unmarked(main_text(html.unescape(page)), ["sano"])
    assert found == ["connection", "refused", "timed", "out"]  # lang="en" is no excuse
