"""What every table must show, checked in a browser page (issue 35): a recorder put into the page
before its scripts run notes, in order, each line of the hand's timeline as it first appears
(its game, its step, its words, the fósforos drawn at that moment) and each status line; the
checks compare that with the game's replay, line by line, worded as the server words it
(:mod:`services.web.views.narration`), and ask that every card on screen has a name and that
nothing is wider than the screen.

Nothing here waits with a sleep: callers wait for conditions (:func:`tests.services.web.waits.
eventually`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.match.replay import Replay
from engine.events import HandEnded, RoundEnded
from services.web import i18n
from services.web.views.common import BotLink
from services.web.views.replay import _describe, narrated_names, visible_event
from services.web.views.steps import game_steps
from tests.services.web.fit import problems

RECORDER = """
(() => {
  const shown = [];
  const captions = [];
  const seen = new Set();
  const count = (team) => {
    const svg = document.querySelector('#score svg.fosforos[data-team="' + team + '"]');
    return svg ? svg.querySelectorAll('line.palo').length : -1;
  };
  const gameOf = () => {
    const holder = document.querySelector('#board[data-game], #viewer[data-game]');
    return holder ? parseInt(holder.dataset.game, 10) : 1;
  };
  const look = () => {
    const game = gameOf();
    for (const li of document.querySelectorAll('#timeline li[data-step]')) {
      if (li.classList.contains('future')) continue;
      const key = game + ':' + li.dataset.step;
      if (seen.has(key)) continue;
      seen.add(key);
      const first = li.firstElementChild;
      shown.push({game, step: parseInt(li.dataset.step, 10), text: first ? first.textContent : '',
                  fosforos: [count(0), count(1)]});
    }
    const caption = document.getElementById('caption');
    const text = caption ? caption.textContent : '';
    if (text && captions[captions.length - 1] !== text) captions.push(text);
  };
  window.__tableShown = shown;
  window.__tableCaptions = captions;
  const start = () => {
    look();
    new MutationObserver(look).observe(document.body, {subtree: true, childList: true, characterData: true});
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
"""
"""Put into a page with ``page.add_init_script`` (or a context's) before it loads."""


@dataclass(frozen=True)
class Line:
    game: int  # 1-based
    step: int
    text: str
    kind: str  # the event's type
    score: tuple[int, int] | None  # after a hand's end: the score


def expected(
    replay: Replay,
    sides: tuple[list[BotLink], list[BotLink]],
    views: Sequence[str],
    lang: str = "es",
) -> list[Line]:
    """Every step of every game of ``replay`` as the server words it for view ``views[g]``."""
    i18n.activate(lang)  # type: ignore[arg-type]
    try:
        out = []
        for index, game in enumerate(replay.games):
            _, _, narrator = narrated_names(replay, index, sides)
            for step in game_steps(game.events):
                event = visible_event(step.event, views[index])
                score = event.score if isinstance(event, HandEnded) else None
                out.append(
                    Line(index + 1, step.index, _describe(event, narrator), _kind(event), score)
                )
        return out
    finally:
        i18n.activate("en")


def _kind(event: Any) -> str:
    """An event's type as the replay document tags it ("hand_ended")."""
    config = getattr(type(event), "__struct_config__", None)
    return str(getattr(config, "tag", None) or type(event).__name__)


def recorded(page: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("window.__tableShown || []")
    return found


def captions(page: Any) -> list[str]:
    found: list[str] = page.evaluate("window.__tableCaptions || []")
    return found


def check_shown(page: Any, lines: Sequence[Line], target: int) -> None:
    """Every line of ``lines`` was shown, in order, with its words, and after each hand the
    fósforos drawn were the score."""
    shown = recorded(page)
    keys = [(s["game"], s["step"]) for s in shown]
    assert keys == sorted(keys), "the lines came out of order"
    by_key = {(s["game"], s["step"]): s for s in shown}
    missing = [
        (line.game, line.step, line.text) for line in lines if (line.game, line.step) not in by_key
    ]
    assert missing == [], f"never shown: {missing[:5]} (of {len(missing)})"
    for line in lines:
        got = by_key[(line.game, line.step)]
        assert got["text"] == line.text, (line, got)
        if line.score is not None:
            assert got["fosforos"] == [min(line.score[0], target), min(line.score[1], target)], (
                line,
                got,
            )
    said = set(captions(page))
    unsaid = [line.text for line in lines if line.text not in said]
    assert unsaid == [], f"never the status line: {unsaid[:5]}"


def unnamed_cards(page: Any) -> list[str]:
    """Every card drawn on the page that has no accessible name (a card button: its label)."""
    found: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('svg.card')].filter((svg) => {
             const r = svg.getBoundingClientRect();
             if (!r.width || svg.closest('[hidden]')) return false;
             const button = svg.closest('button');
             const name = button ? button.getAttribute('aria-label') : svg.getAttribute('aria-label');
             return !name || !name.trim() || svg.getAttribute('role') !== 'img';
           }).map((svg) => svg.outerHTML.slice(0, 80))"""
    )
    return found


def fits(page: Any) -> list[str]:
    """What does not fit (:func:`tests.services.web.fit.problems`)."""
    return problems(page)


def rounds_and_hands(lines: Sequence[Line]) -> tuple[int, int]:
    """How many round and hand ends ``lines`` has (a game must have had some)."""
    rounds = sum(1 for line in lines if line.kind == _kind(RoundEnded(0, (), None, 0)))
    hands = sum(1 for line in lines if line.kind == "hand_ended")
    return rounds, hands
