"""Why a bot lost without playing it out, and its faults, in the page's language.

A walkover's or forfeit's :class:`~arena.replay.Cause` and a replay's faults carry the fault's
kind, the call it happened on and, for an ``http_status`` fault, the HTTP status: the pages word
them from those through the catalogues ("signature rejected (401) on /start", "firma rechazada
(401) en /start"). The client's own description of the failure (``detail``, English, written by
the arena) is shown apart, in the page's language too (:mod:`services.web.views.fault_details`):
a detail of no known shape only on an English page, marked as English.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from arena.match.replay import Cause, Decision, Replay
from services.db.page_reads import MatchRow
from services.web.i18n import N_
from services.web.i18n import gettext as _
from services.web.views.common import BotLink, side_links
from services.web.views.fault_details import shown_detail

FAULT_WORDS = {
    "timeout": N_("no answer in time"),
    "connect": N_("could not connect"),
    "http_status": N_("HTTP error"),
    "bad_body": N_("answer not understood"),
    "too_large": N_("answer too large"),
    "illegal_action": N_("illegal action"),
}
"""What went wrong, as the reason of a loss says it (``arena.faults.FaultKind``)."""

FAULT_TAGS = {
    "timeout": N_("timeout"),
    "connect": N_("no connection"),
    "http_status": N_("HTTP error"),
    "bad_body": N_("bad answer"),
    "too_large": N_("answer too large"),
    "illegal_action": N_("illegal action"),
}
"""A fault kind as a short tag ("timeout × 3") on the bot page and in the replay."""


def fault_tag(kind: str) -> str:
    return _(FAULT_TAGS[kind]) if kind in FAULT_TAGS else kind


def fault_words(kind: str, status: int | None = None) -> str:
    """The fault in a few words: "signature rejected (401)", "HTTP error (500)", ..."""
    if kind == "http_status" and status == 401:
        return _("signature rejected (401)")
    if kind == "http_status" and status is not None:
        return _("HTTP error (%(status)d)") % {"status": status}
    return _(FAULT_WORDS[kind]) if kind in FAULT_WORDS else kind


def call_path(call: str) -> str:
    """The bot's endpoint the call went to, as the protocol names it (not translated)."""
    return "GET /" if call == "info" else f"/{call}"


@dataclass(frozen=True, slots=True)
class CauseView:
    entrant: int  # the entrant that lost (in individual 2v2 one of a side's two bots)
    side: int
    summary: str  # "signature rejected (401) on /start"
    where: str  # "fault 5 in game 1" for a forfeit; "" for a walkover
    raw: str  # the client's own words, in the page's language; "" when nothing to add
    who: tuple[BotLink, ...] = ()  # the bot that lost it (a side's bots when not known)
    raw_lang: str | None = None  # "en": ``raw`` is the English data itself (an English page)


def cause_view(cause: Cause, replay: Replay | None) -> CauseView:
    """``cause`` worded for the page; the forfeit's fault is found in ``replay`` (its number
    and game) rather than read back from the English ``detail``."""
    summary = _("%(fault)s on %(call)s") % {
        "fault": fault_words(cause.kind, cause.status),
        "call": call_path(cause.call),
    }
    where, raw = "", cause.detail
    found = _forfeit_fault(cause, replay) if cause.call == "act" else None
    if found is not None:
        game, decision = found
        where = _("fault %(n)d in game %(game)d") % {"n": decision.strikes, "game": game}
        raw = decision.detail or ""
    if raw == cause.kind:
        raw = ""
    shown = shown_detail(raw)
    return CauseView(cause.side, cause.side % 2, summary, where, shown.text, raw_lang=shown.lang)


def _forfeit_fault(cause: Cause, replay: Replay | None) -> tuple[int, Decision] | None:
    """The faulted decision that forfeited the match: the last one of ``cause``'s entrant in
    the game that was forfeited."""
    if replay is None:
        return None
    for game in replay.games:
        if game.forfeit is None:
            continue
        for event in reversed(game.events):
            if (
                isinstance(event, Decision)
                and event.fault is not None
                and game.entrant_at(event.seat) == cause.side
            ):
                return game.number, event
    return None


def match_causes(match: MatchRow, replay: Replay | None) -> list[CauseView]:
    """The causes of ``match``'s walkover or forfeit, each naming the bot that lost it: in
    individual 2v2 the one bot of its side (by slot), else the side's bots."""
    causes = match.result.causes if match.result is not None else None
    by_slot = {e.slot: BotLink(e.name, e.bot_id) for e in match.entrants}
    individual = len(match.entrants) == 4 and len({e.bot_id for e in match.entrants}) == 4
    views = []
    for cause in causes or ():
        view = cause_view(cause, replay)
        who = (
            (by_slot[cause.side],)
            if individual and cause.side in by_slot
            else tuple(side_links(match, view.side))
        )
        views.append(dataclasses.replace(view, who=who))
    return views
