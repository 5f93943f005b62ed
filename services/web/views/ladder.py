"""The ladder pages: a ladder's table (rank, rating and its 95% interval, LOS, placement,
paused, playing) and a bot's ladder entries, from the API's own rows (``/v1/ladders``), with
numbers written as the page's language writes them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from babel.numbers import format_percent

from services.api.schemas.ladders import LadderEntryRead, Placement
from services.web import i18n
from services.web.i18n import gettext as _
from services.web.views.common import BotLink

LADDER_NAMES = {"1v1": "1v1", "2v2-individual": i18n.N_("individual 2v2")}
"""A ladder's name on the pages (marked for the catalogues, shown translated)."""


def ladder_name(pool: str) -> str:
    return _(LADDER_NAMES.get(pool, pool))


def percent(probability: float) -> str:
    """A LOS as the page's language writes it: whole percents, a decimal near certainty, never
    100%: "97%" / "97 %", ">99.9%" / ">99,9 %"."""
    locale = "es" if i18n.current() == "es" else "en"
    sign = "\u00a0%" if locale == "es" else "%"
    value = 100 * probability
    if value >= 99.95:
        return ">" + format_percent(0.999, "#0.0" + sign, locale=locale)
    if value < 0.05:
        return "<" + format_percent(0.001, "#0.0" + sign, locale=locale)
    digits = "#0" if 1 <= value <= 99 else "#0.0"
    return format_percent(probability, digits + sign, locale=locale)


def placement_text(placement: Placement) -> str:
    """``placement: 11 of about 48 matches``, ``placed``, ``waiting`` or, when the pool cannot
    give it a match now, ``waiting for opponents: 3 of about 16 ...``."""
    if placement.state == "placed":
        return _("placed")
    if placement.state == "waiting":
        return _("waiting for its first match")
    if placement.state == "needs_opponents":
        needed = placement.needed or 0
        return i18n.ngettext(
            "waiting for opponents: %(have)d of about %(needed)d bot of other owners a "
            "placement needs",
            "waiting for opponents: %(have)d of about %(needed)d bots of other owners a "
            "placement needs",
            needed,
        ) % {"have": placement.opponents or 0, "needed": needed}
    if placement.about is None and placement.at_least is not None:
        return i18n.ngettext(
            "placement: %(num)d of at least %(least)d match (not fitted yet)",
            "placement: %(num)d of at least %(least)d matches (not fitted yet)",
            placement.at_least,
        ) % {"num": placement.matches, "least": placement.at_least}
    return i18n.ngettext(
        "placement: %(num)d of about %(about)d match",
        "placement: %(num)d of about %(about)d matches",
        placement.about or placement.matches,
    ) % {"num": placement.matches, "about": placement.about or placement.matches}


@dataclass(frozen=True, slots=True)
class LadderLine:
    rank: int | None
    bot: BotLink
    owner: str
    rating: int | None
    low: int | None
    high: int | None
    los: str | None  # likelihood of superiority over the bot right below
    matches: int
    state: str  # waiting | placing | placed
    placement: str
    paused: bool
    playing: bool
    cause: str | None = None  # only for its owner (the API shows it to them alone)

    @property
    def interval(self) -> str | None:
        if self.low is None or self.high is None:
            return None
        return _("%(low)d to %(high)d") % {"low": self.low, "high": self.high}


def ladder_lines(entries: Sequence[LadderEntryRead]) -> list[LadderLine]:
    return [
        LadderLine(
            rank=e.rank,
            bot=BotLink(e.name, e.bot_id),
            owner=e.owner,
            rating=None if e.rating is None else round(e.rating),
            low=None if e.interval is None else round(e.interval[0]),
            high=None if e.interval is None else round(e.interval[1]),
            los=None if e.los_next is None else percent(e.los_next),
            matches=e.matches,
            state=e.placement.state,
            placement=placement_text(e.placement),
            paused=e.paused,
            playing=e.playing,
            cause=e.pause_cause,
        )
        for e in entries
    ]


@dataclass(frozen=True, slots=True)
class BotLadder:
    """One ladder a bot is on, as its page shows it."""

    pool: str
    name: str
    line: LadderLine
    size: int  # bots on that ladder


def bot_ladders(
    tables: Sequence[tuple[str, Sequence[LadderEntryRead]]], bot_id: int
) -> list[BotLadder]:
    """The bot's line in each ladder table it is on."""
    found = []
    for pool, entries in tables:
        for line in ladder_lines([e for e in entries if e.bot_id == bot_id]):
            found.append(BotLadder(pool, ladder_name(pool), line, len(entries)))
    return found
