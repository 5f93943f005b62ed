"""An SPRT test's page (``/tests/{id}``): the LLR's path drawn against its bounds, the figures
and the result in words, all from the API's view of the test (``services.api.routes.sprt_tests``)."""

from __future__ import annotations

from dataclasses import dataclass

from services.api.schemas.sprt import SprtRead
from services.web.i18n import gettext as _
from services.web.i18n import number, percent, signed

HEIGHT = 216  # the plot area's, in pixels; its width is the page's
PATH_WIDTH = 1000  # the line's box, stretched to the plot's width
MIN_GAMES = 20  # the x axis spans at least this many games


@dataclass(frozen=True, slots=True)
class LlrChart:
    """The LLR's path at any width: x in percent of the plot's width, y in pixels of its
    fixed height (the labels keep their size on a phone); ``path`` in a stretched box of
    :data:`PATH_WIDTH` by ``height`` units."""

    height: int
    path: str
    lower: float  # y of the H0 bound
    upper: float  # y of the H1 bound
    zero: float
    x_ticks: list[tuple[float, int]]  # (x percent, games)
    y_ticks: list[tuple[float, str]]  # (y, llr)
    last: tuple[float, float]  # (x percent, y)


@dataclass(frozen=True, slots=True)
class SprtView:
    test: SprtRead
    name_a: str
    name_b: str
    verdict: str
    chart: LlrChart
    live: bool
    llr: str  # "+2.94", "+2,94": the figures as the page's language writes numbers
    bounds: tuple[str, str]
    elo: str
    elo_interval: tuple[str, str]


def llr_chart(test: SprtRead) -> LlrChart:
    """The LLR's path (``test.history``) in SVG coordinates, the bounds as horizontal lines."""
    low, high = test.bounds
    values = [llr for _, llr in test.history]
    y_min = min(low, *values) * 1.1
    y_max = max(high, *values) * 1.1
    x_max = max(MIN_GAMES, test.history[-1][0])

    def x(games: float) -> float:
        return round(100 * games / x_max, 2)

    def y(llr: float) -> float:
        return round(HEIGHT * (y_max - llr) / (y_max - y_min), 1)

    path = " ".join(
        f"{'M' if k == 0 else 'L'}{round(x(games) * PATH_WIDTH / 100, 1)},{y(llr)}"
        for k, (games, llr) in enumerate(test.history)
    )
    step = _nice_step(x_max / 4)
    x_ticks = [(x(g), g) for g in range(0, x_max + 1, step)]
    y_ticks = [(y(v), signed(v, 2)) for v in (low, 0.0, high)]
    games, llr = test.history[-1]
    return LlrChart(
        height=HEIGHT,
        path=path,
        lower=y(low),
        upper=y(high),
        zero=y(0.0),
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        last=(x(games), y(llr)),
    )


def _nice_step(raw: float) -> int:
    """1, 2 or 5 times a power of ten, at least ``raw`` (and at least 2: whole pairs)."""
    power = 1
    while True:
        for factor in (1, 2, 5):
            if factor * power >= raw:
                return max(2, factor * power)
        power *= 10


def verdict(test: SprtRead, name_a: str, name_b: str) -> str:
    """The result, or where the test stands, in one sentence."""
    low, high = test.bounds
    words: dict[str, object] = {
        "games": test.games,
        "a": name_a,
        "b": name_b,
        "elo0": number(test.elo0),
        "elo1": number(test.elo1),
        "low": signed(low, 2),
        "high": signed(high, 2),
        "alpha": percent(test.alpha),
        "beta": percent(test.beta),
        "max": test.max_games,
    }
    if test.status == "running":
        return (
            _(
                "Running: %(games)d games so far. The test accepts H1 (%(a)s is at least "
                "%(elo1)s Elo stronger than %(b)s) when the LLR reaches %(high)s, and "
                "H0 (at most %(elo0)s Elo stronger) when it falls to %(low)s."
            )
            % words
        )
    if test.status == "cancelled":
        return _("Cancelled by its owner after %(games)d games: no result.") % words
    if test.status == "failed":  # why, in the workflow's own words, is shown apart as data
        return _("Stopped after %(games)d games: a pair could not be played; no result.") % words
    if test.result == "H1":
        return (
            _(
                "H1 accepted after %(games)d games: %(a)s is at least %(elo1)s Elo "
                "stronger than %(b)s (a false H1 happens at most %(alpha)s of the time)."
            )
            % words
        )
    if test.result == "H0":
        return (
            _(
                "H0 accepted after %(games)d games: %(a)s is not %(elo1)s Elo stronger "
                "than %(b)s; at most %(elo0)s (a false H0 happens at most "
                "%(beta)s of the time)."
            )
            % words
        )
    return _("Inconclusive: the %(max)d-game limit came before either bound.") % words


def sprt_view(test: SprtRead, name_a: str, name_b: str) -> SprtView:
    return SprtView(
        test=test,
        name_a=name_a,
        name_b=name_b,
        verdict=verdict(test, name_a, name_b),
        chart=llr_chart(test),
        live=test.status == "running",
        llr=signed(test.llr, 2),
        bounds=(signed(test.bounds[0], 2), signed(test.bounds[1], 2)),
        elo=signed(test.elo, 1),
        elo_interval=(signed(test.elo_interval[0], 1), signed(test.elo_interval[1], 1)),
    )
