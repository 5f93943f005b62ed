"""Every detail the bot client writes of a real failure reads in the page's language: the real
``BotClient`` against real misbehaving servers on 127.0.0.1 (nothing listening, a 500, a 401, a
redirect, a compressed answer, an oversized one, one too slow, a malformed body, a closed
connection), each fault's ``detail`` through :func:`services.web.views.fault_details.detail_words`
in Spanish: none is left in English, and none is unknown. A walkover's page says who won by
walkover (no "0-0", no tantos) and why, in either language."""

from __future__ import annotations

import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import msgspec
import pytest

from arena.client.bot_client import BotClient, ClientConfig, Fault, Reply, TimeBank
from arena.client.egress import EgressPolicy
from arena.client.signing import generate_secret
from services.web import i18n
from services.web.views.fault_details import detail_words, shown_detail
from tests.arena.conftest import (
    ArenaTestBot,
    close_without_answer,
    forbidden_resolver,
    huge_body,
    respond,
)
from tests.services.web.conftest import WebData

pytestmark = pytest.mark.anyio


@pytest.fixture
async def bot(anyio_backend: str) -> AsyncIterator[ArenaTestBot]:
    server = ArenaTestBot()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _client(base: str, timeout_ms: float = 10_000.0) -> BotClient:
    config = ClientConfig(timeout_ms=timeout_ms, policy=EgressPolicy(allow_loopback=True))
    return BotClient(base, generate_secret(), config=config, resolver=forbidden_resolver)


class _Act(msgspec.Struct):
    action: str


async def _faults(bot: ArenaTestBot) -> dict[str, Fault]:
    """One real fault per way a bot fails, as the client words it."""
    found: dict[str, Fault] = {}
    body = {"apiversion": "1"}

    async def act(name: str, timeout_ms: float = 10_000.0) -> None:
        async with _client(bot.base, timeout_ms) as client:
            result = await client.act(body, TimeBank(60_000))
        if isinstance(result, Reply):
            result = result.decode(_Act)
        assert isinstance(result, Fault), (name, result)
        found[name] = result

    cases: list[tuple[str, Callable[..., Awaitable[bool]], float]] = [
        ("server error", respond(status=500), 10_000.0),
        ("signature", respond(status=401), 10_000.0),
        ("redirect", respond(status=302, headers={"location": "http://127.0.0.1/"}), 10_000.0),
        ("compressed", respond(headers={"content-encoding": "gzip"}), 10_000.0),
        ("declared too large", huge_body(10_000_000, declare_length=True), 10_000.0),
        ("too large", huge_body(10_000_000, declare_length=False), 10_000.0),
        ("malformed", respond(body=b"{not json"), 10_000.0),
        ("not the protocol", respond(body=b'{"card": 7}'), 10_000.0),
        ("too slow", respond(delay=2.0), 300.0),
        ("closed", close_without_answer, 10_000.0),
    ]
    for name, handler, timeout_ms in cases:
        bot.routes["/act"] = handler
        await act(name, timeout_ms)
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    async with _client(f"http://127.0.0.1:{closed}") as client:
        refused = await client.info()
    assert isinstance(refused, Fault)
    found["nothing listening"] = refused
    return found


async def test_every_real_fault_detail_reads_in_spanish(bot: ArenaTestBot) -> None:
    faults = await _faults(bot)
    i18n.activate("es")
    try:
        spanish = {name: detail_words(f.detail) for name, f in faults.items()}
        shown = {name: shown_detail(f.detail) for name, f in faults.items()}
    finally:
        i18n.activate("en")
    english = {name: detail_words(f.detail) for name, f in faults.items()}
    unknown = {name: faults[name].detail for name, words in spanish.items() if words is None}
    assert unknown == {}, unknown
    for name, words in spanish.items():
        assert words != english[name], (name, words)  # translated, not the English again
        assert shown[name].lang is None and shown[name].text == words
    assert spanish["nothing listening"] == "conexión rechazada"
    # English pages show the client's own words
    assert english["nothing listening"] == faults["nothing listening"].detail


def test_an_unknown_detail_is_shown_only_on_an_english_page() -> None:
    odd = "SomeLibraryError: the frobnicator jammed"
    assert detail_words(odd) is None
    assert shown_detail(odd).text == odd and shown_detail(odd).lang == "en"
    i18n.activate("es")
    try:
        assert shown_detail(odd).text == ""
    finally:
        i18n.activate("en")


async def test_a_walkover_page_says_who_won_and_why_in_either_language(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    match = web_data.seeded.lost_by["caido"]  # "sano" against a bot nobody could reach

    def text(page: httpx.Response) -> str:
        assert page.status_code == 200
        return re.sub(r"<[^>]+>", "", re.sub(r"\s+", " ", page.text))

    english = text(await client.get(f"/matches/{match}?lang=en"))
    assert "sano wins by walkover" in english
    assert "caido lost by walkover: could not connect on GET / connection refused" in english
    assert "0-0" not in english and "tantos" not in english
    spanish = text(await client.get(f"/matches/{match}?lang=es"))
    assert "gana sano por W.O." in spanish
    assert "conexión rechazada" in spanish and "connection refused" not in spanish
