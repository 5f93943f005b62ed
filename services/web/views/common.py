"""Pieces every page uses: bot links, a finished match's outcome and how it reads, and the
names of cards, statuses and formats in the page's language (:mod:`services.web.i18n`)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.match.replay import Replay
from engine.cards import RANK, SUIT
from engine.spoken import named
from services.db.page_reads import FINISHED_MATCH, MatchRow
from services.tournaments.played import knockout_decision
from services.web.i18n import N_, pgettext
from services.web.i18n import gettext as _


@dataclass(frozen=True, slots=True)
class BotLink:
    """A bot mention: a link when the bot is known to the platform."""

    name: str
    id: int | None = None


def short(text: str, limit: int = 22) -> str:
    """``text`` cut to ``limit`` characters (for fixed-width SVG boxes)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def side_links(match: MatchRow, side: int) -> list[BotLink]:
    return [BotLink(e.name, e.bot_id) for e in match.entrants if e.side == side]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished match from side 0's and side 1's points of view."""

    winner_side: int | None
    games: tuple[int, int] | None
    tantos: tuple[int, int] | None
    reason: str | None = None  # how it was decided (``StoredResult.reason``), when known


def outcome(match: MatchRow, replay: Replay | None = None) -> Outcome | None:
    """The result of a finished match (``None`` while it is not over)."""
    if match.status not in FINISHED_MATCH:
        return None
    games: tuple[int, int] | None = None
    tantos: tuple[int, int] | None = None
    reason: str | None = None
    if match.result is not None:
        games, tantos = match.result.games_won, match.result.tantos
        reason = match.result.reason
    elif replay is not None:
        games, tantos = replay.result.games_won, replay.result.tantos
        reason = replay.result.reason
    return Outcome(match.winner_side, games, tantos, reason)


def score_text(out: Outcome | None) -> str:
    if out is None:
        return ""
    if out.games is None:
        return _("win") if out.winner_side is not None else _("draw")
    return f"{out.games[0]}-{out.games[1]}"


def knockout_note(match: MatchRow, out: Outcome | None) -> str:
    """How a bracket match level on games was decided: "1-1, through on tantos 45-38" (the
    tantos of the side that goes through first) or "1-1, through on seed"; "" otherwise."""
    how = knockout_decision(match.bracket_match, match.result)
    if out is None or out.games is None or how is None or how == "games":
        return ""
    level = f"{out.games[0]}-{out.games[1]}"
    if how == "seed" or out.tantos is None:
        return _("%(level)s, through on seed") % {"level": level}
    high, low = max(out.tantos), min(out.tantos)
    return _("%(level)s, through on tantos %(high)d-%(low)d") % {
        "level": level,
        "high": high,
        "low": low,
    }


FORMAT_TITLES = {
    "swiss": N_("Swiss"),
    "single_elimination": N_("Single elimination"),
    "double_elimination": N_("Double elimination"),
    "round_robin": N_("Round robin"),
}
"""Each format's title (``services.tournaments.formats``' ``title``, a test keeps them equal),
marked here for the catalogues."""


def format_names() -> dict[str, str]:
    """Each format's title in the page's language."""
    return {name: _(title) for name, title in FORMAT_TITLES.items()}


def translated(names: dict[str, str], word: str) -> str:
    """``word``'s name from ``names`` in the page's language; a word the table lacks as it is."""
    return _(names[word]) if word in names else word


STATUS_NAMES = {
    "registering": N_("registering"),
    "running": N_("running"),
    "finished": N_("finished"),
    "cancelled": N_("cancelled"),
    "pending": N_("pending"),
    "queued": N_("queued"),
    "done": N_("done"),
    "forfeit": N_("forfeit"),
    "error": N_("error"),
    "active": N_("active"),
    "unavailable": N_("unavailable"),
    "deleted": N_("deleted"),
    "win": N_("win"),
    "loss": N_("loss"),
    "draw": N_("draw"),
    "failed": N_("failed"),
    "inconclusive": N_("inconclusive"),
}
"""Every status a tournament, round, match or bot shows (``services.domain``), and a match's
result for one bot."""


def status_name(status: str) -> str:
    return translated(STATUS_NAMES, status)


REASON_NAMES = {
    "games": N_("games"),
    "tantos": N_("tantos"),
    "draw": N_("draw"),
    "forfeit": N_("forfeit"),
    "walkover": N_("walkover"),
}
"""How a match was decided (``arena.match.replay.MatchResult.reason``)."""


def reason_name(reason: str) -> str:
    return translated(REASON_NAMES, reason)


DECIDED_NAMES = {
    "games": N_("on games"),
    "tantos": N_("level on games, decided on tantos"),
    "draw": N_("level on games and tantos"),
    "forfeit": N_("by forfeit"),
    "walkover": N_("by walkover"),
}
"""How a match was decided, as the match page's header says it."""


def decided_name(reason: str) -> str:
    return translated(DECIDED_NAMES, reason)


SPECIAL_CARDS = {
    "1E": N_("ancho de espadas"),
    "1B": N_("ancho de bastos"),
    "7E": N_("siete de espadas"),
    "7O": N_("siete de oros"),
}
"""The four cards players name rather than number. Like the cantos, cards are named in Spanish
on every page, English too: these are the words of the game (a catalogue may adapt them)."""
SUIT_CARDS = {
    "E": N_("%(rank)d de espadas"),
    "B": N_("%(rank)d de bastos"),
    "O": N_("%(rank)d de oros"),
    "C": N_("%(rank)d de copas"),
}


def card_name(card: str) -> str:
    """A card as players say it: "ancho de espadas", "4 de copas" (through the catalogue)."""
    if card in SPECIAL_CARDS:
        return _(SPECIAL_CARDS[card])
    if card not in RANK:
        return card
    return _(SUIT_CARDS[SUIT[card]]) % {"rank": RANK[card]}


POOL_NAMES = {
    "1v1": N_("1v1"),
    "2v2": N_("2v2 teams"),
    "2v2-individual": N_("2v2 individual"),
}
"""A rating pool (``services.domain.RATING_POOLS``) or a mode as a heading names it."""


def mode_name(mode: str, partnership: str | None = None) -> str:
    """A mode in the page's language: "1v1", "2v2 teams" ("2v2 por equipos"), "2v2
    individual"; ``mode`` may also be a rating pool's name ("2v2-individual")."""
    if mode == "2v2" and partnership == "individual":
        mode = "2v2-individual"
    return translated(POOL_NAMES, mode)


SENA_NAMES = {
    "ancho_espada": N_("ancho de espadas"),
    "ancho_basto": N_("ancho de bastos"),
    "siete": N_("siete bravo"),
    "tres": N_("un tres"),
    "dos": N_("un dos"),
    "ancho_falso": N_("ancho falso"),
    "buen_envido": N_("buen envido"),
    "nada": N_("nada"),
}
"""The señas (``engine.actions.SENAS``) as players name them: Spanish on every page, like the
cards (a catalogue may adapt them)."""


def sena_name(sena: str) -> str:
    return translated(SENA_NAMES, sena)


def round_status_name(status: str) -> str:
    """A round's status: Spanish says "jugada" of a round, "jugado" of a match."""
    names = {
        "pending": pgettext("round", "pending"),
        "running": pgettext("round", "running"),
        "done": pgettext("round", "done"),
    }
    return names.get(status) or status_name(status)


def canto_name(word: str) -> str:
    """A call or bet as players say it ("Vale cuatro"), through the catalogue like the
    replay's narration (``engine.spoken``)."""
    return _(named(word))
