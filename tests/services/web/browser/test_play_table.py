"""``/play`` on the table (issue 35), in Chromium at 390 px, in Spanish, by keyboard alone: a
whole 1v1 game to 15 with flor and a whole 2v2 game with señas against the house heuristic.
Throughout, a recorder in the page notes every line the table shows; afterwards each event of
the stored replay must have been shown, in order, worded as the server words it (every canto
and answer, the envido points each seat declared, the flor sung and settled, the cards shown
at a hand's end, who won each round and each hand), with the fósforos drawn equal to the score
after every hand; every card on screen has an accessible name and nothing is wider than the
screen. Then the same on the game's replay page, ``/play/{id}/replay``, which plays itself.

The 1v1 match's seed is chosen (``secrets.randbits`` in the API, patched) so that the person
holds flor in the first hand, the bot in the second, and both in the seventh."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from arena.game.deals import INDEPENDENT, game_seed
from arena.match.replay import Replay, load_replay
from engine.cards import SUIT
from engine.deal import deal_for
from services.web.views.play_replay import person_view, play_sides
from tests.services.helpers.sse_client import Served
from tests.services.web.accessibility import blocking_violations
from tests.services.web.browser.play_site import (  # noqa: F401 - the module's fixtures
    play_chromium,
    play_served,
)
from tests.services.web.conftest import error_free_page
from tests.services.web.table_checks import (
    RECORDER,
    check_shown,
    expected,
    fits,
    rounds_and_hands,
    unnamed_cards,
)
from tests.services.web.waits import eventually, eventually_ticking

pytestmark = pytest.mark.slow

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
)
GAME_MS = 600_000  # a hang guard for a whole game played by keyboard
FLOR_SEED = 53822


def _flor(cards: tuple[str, ...]) -> bool:
    return len({SUIT[c] for c in cards}) == 1


def test_the_chosen_seed_deals_flor() -> None:
    engine_seed = game_seed(FLOR_SEED, 0, INDEPENDENT)
    assert _flor(deal_for(engine_seed, 0, 2)[0])  # the person's, in the first hand
    assert _flor(deal_for(engine_seed, 1, 2)[1])  # the bot's, in the second
    assert all(_flor(d) for d in deal_for(engine_seed, 6, 2))  # both, in the seventh


@pytest.fixture
def phone(chromium: Any, served: Served) -> Iterator[Any]:
    with error_free_page(
        chromium,
        served.base,
        init_script=RECORDER,
        viewport={"width": 390, "height": 844},
        locale="es-AR",
    ) as page:
        yield page


def _focused(page: Any) -> str:
    return str(
        page.evaluate(
            "() => { const a = document.activeElement; if (!a || !a.getAttribute) return ''; "
            "return a.getAttribute('data-focus') || (a.name ? a.name + ':' + a.value : a.id); }"
        )
    )


def _tab_to(page: Any, wanted: str, presses: int = 60) -> None:
    """Tab (forwards) until the focused element is ``wanted`` (its data-focus, or name:value)."""
    for _ in range(presses):
        if _focused(page) == wanted:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {wanted!r} (at {_focused(page)!r})")


def _start(page: Any, players: int, flor: bool) -> str:
    """The form by keyboard: Tab from the top of the page, arrows in the radio groups, Space on
    the flor box, Enter on the button. The table's id."""
    page.clock.install()  # the table's pacing (play.js) runs on a clock the test moves on
    page.goto("/play?lang=es")
    page.locator("body").focus()
    _tab_to(page, "players:2")
    if players == 4:
        page.keyboard.press("ArrowRight")
        assert page.locator("input[name=players][value='4']").is_checked()
    if flor:
        _tab_to(page, "flor:true")
        page.keyboard.press("Space")
        assert page.locator("input[name=flor]").is_checked()
    _tab_to(page, "play-start")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/play/\d+$"), timeout=20_000)
    return str(page.url.rsplit("/", 1)[1])


CALLS = ("flor", "contraflor", "con_flor_quiero", "quiero", "envido", "real_envido", "truco")


def _choose(page: Any, view: dict[str, Any], turn: int, players: int) -> None:
    """One decision by keyboard: sing what there is to sing (flor first, envido, truco every
    third turn), answer "quiero" (now and then "no quiero"), else play a card with its number
    key; in 2v2 a seña goes with every other card."""
    legal = view["turn"]["legal_actions"]
    words = {a["action"] for a in legal}
    for word in CALLS:
        if word in words and (word != "truco" or turn % 3 == 0):
            if word == "quiero" and "no_quiero" in words and turn % 5 == 4:
                word = "no_quiero"
            _tab_to(page, f"call:{word}")
            page.keyboard.press("Enter")
            return
    cards = [a["card"] for a in legal if a["action"] == "play"]
    hand = page.locator("#hand button")
    mine = [hand.nth(i).get_attribute("data-card") for i in range(hand.count())]
    if cards:
        if players == 4 and turn % 2 == 0:
            _tab_to(page, "sena:tres")
            page.keyboard.press("Enter")
            assert page.locator('[data-focus="sena:tres"]').get_attribute("aria-pressed") == "true"
        page.keyboard.press(str(mine.index(cards[0]) + 1))
        return
    first = next(w for w in words if w not in ("mazo",))
    _tab_to(page, f"call:{first}")
    page.keyboard.press("Enter")


def _view(page: Any, play_id: str) -> dict[str, Any]:
    token = page.evaluate(f"sessionStorage.getItem('play:{play_id}')")
    answer = page.request.get(f"/v1/play/{play_id}?since=999999", headers={"X-Play-Token": token})
    assert answer.ok, answer.text()
    found: dict[str, Any] = answer.json()
    return found


def _play_to_the_end(page: Any, play_id: str, players: int) -> dict[str, int]:
    """Play by keyboard until the end of the match; what was seen on the way."""
    seen = {"turns": 0, "summaries": 0, "checked": 0}
    last = ""
    for _ in range(2000):
        eventually_ticking(
            page,
            "(last) => !document.querySelector('#continue-box').hidden || "
            "document.querySelector('#end').textContent.trim() !== '' || "
            "((document.querySelector('#board').dataset.turn || '') !== '' && "
            "document.querySelector('#board').dataset.turn !== last)",
            last,
            timeout_ms=GAME_MS,
        )
        if page.locator("#end").inner_text().strip():
            break
        if page.locator("#continue-box").is_visible():
            # a hand's end: its summary stays, the focus on "Seguir"; Enter goes on
            assert page.locator("#summary").is_visible()
            assert page.evaluate("document.activeElement.id") == "continue"
            if seen["summaries"] % 3 == 0:
                assert unnamed_cards(page) == []
                assert fits(page) == []
            seen["summaries"] += 1
            page.keyboard.press("Enter")
            continue
        last = page.locator("#board").get_attribute("data-turn") or ""
        if seen["turns"] % 7 == 0:
            assert unnamed_cards(page) == []
            assert fits(page) == []
            seen["checked"] += 1
        _choose(page, _view(page, play_id), seen["turns"], players)
        seen["turns"] += 1
    return seen


def _replay(page: Any, play_id: str) -> Replay:
    return load_replay(page.request.get(f"/v1/play/{play_id}/replay").body())


def _the_replay_page_shows_it_all(page: Any, replay: Replay, play_id: str) -> None:
    """/play/{id}/replay: linked at the end, it plays itself from the person's seat; stepped
    by keyboard to the end, it shows every event as the table did."""
    link = page.get_by_role("link", name="Ver la repetición")
    assert link.get_attribute("href") == f"/play/{play_id}/replay"
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf".*/play/{play_id}/replay"))
    eventually_ticking(page, "!!window.__trucoPlayer && window.__trucoPlayer.step() > 0")  # plays
    page.keyboard.press("p")  # pause
    views = [person_view(replay, g + 1) for g in range(len(replay.games))]
    assert page.locator(".tabs.views a.on").get_attribute("data-view") == views[0]
    lines = expected(replay, play_sides(replay), views)
    page.keyboard.press("Home")
    total = int(page.evaluate("window.__trucoPlayer.steps"))
    for _ in range(total - 1):
        page.keyboard.press("ArrowRight")
    eventually(page, f"window.__trucoPlayer.step() === {total - 1}")
    check_shown(page, [line for line in lines if line.game == 1], replay.rules.points_to_win)
    assert unnamed_cards(page) == []
    assert fits(page) == []
    assert blocking_violations(page) == []


def test_a_whole_1v1_game_to_15_with_flor_by_keyboard(
    phone: Any, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("services.api.routes.play.secrets.randbits", lambda bits: FLOR_SEED)
    page = phone
    play_id = _start(page, players=2, flor=True)
    seen = _play_to_the_end(page, play_id, players=2)
    assert re.search(r"(Ganaste|Perdiste|sin ganador)", page.locator("#end").inner_text())
    replay = _replay(page, play_id)
    assert replay.rules.flor and replay.rules.points_to_win == 15 and replay.seed == FLOR_SEED
    lines = expected(replay, play_sides(replay), [person_view(replay, 1)])
    check_shown(page, lines, 15)
    texts = " ".join(line.text for line in lines)
    # what a Truco player must have seen: flor sung and settled, the points declared, the
    # cards shown, each round's and hand's winner, in the second person for the person
    assert "cantó flor" in texts or "Cantaste flor" in texts
    assert re.search(r"Flor \((sola|querida|no querida)\)", texts)
    assert "mostró" in texts or "Mostraste" in texts
    assert re.search(r"dij(o|iste) «tengo \d+»", texts)
    assert "Jugaste el " in texts and " jugó el " in texts
    rounds, hands = rounds_and_hands(lines)
    assert rounds > 3 and hands == seen["summaries"] > 2
    assert page.locator("#score strong[data-team='0']").inner_text() in {
        str(replay.games[0].score[0])
    }
    assert seen["checked"] > 0
    _the_replay_page_shows_it_all(page, replay, play_id)


def test_a_whole_2v2_game_with_senas_by_keyboard(phone: Any, served: Served) -> None:
    page = phone
    play_id = _start(page, players=4, flor=False)
    seen = _play_to_the_end(page, play_id, players=4)
    replay = _replay(page, play_id)
    assert replay.rules.players == 4 and len(replay.entrants) == 4
    lines = expected(replay, play_sides(replay), [person_view(replay, 1)])
    check_shown(page, lines, 15)
    texts = " ".join(line.text for line in lines)
    # the person's señas went with their cards and were said; the two rivals are told apart
    assert ", con seña: un tres" in texts
    assert "(1)" in texts and "(2)" in texts and "(compañero)" in texts
    rounds, hands = rounds_and_hands(lines)
    assert rounds > 3 and hands == seen["summaries"] > 2
    _the_replay_page_shows_it_all(page, replay, play_id)
