"""A game a person played at ``/play``, as its replay page shows it (``/play/{id}/replay``): the
replay viewer of any match, on the same table, with the person named "Vos" and spoken to
(:mod:`services.web.views.table_names`), seen from the person's seat unless another view is
asked for."""

from __future__ import annotations

from dataclasses import dataclass

from arena.match.replay import Replay
from services.web.i18n import gettext as _
from services.web.views.common import BotLink
from services.web.views.table_names import PERSON


def entrant_link(name: str, source: str) -> BotLink:
    """An entrant as a link: a bot (``bot:ID``) to its page, the person to nothing."""
    if source == PERSON:
        return BotLink(_("You"))
    if source.startswith("bot:") and source[4:].isdigit():
        return BotLink(name, int(source[4:]))
    return BotLink(name)


def play_sides(replay: Replay) -> tuple[list[BotLink], list[BotLink]]:
    """Each side's entrants in slot order (slot ``k`` plays for side ``k % 2``)."""
    links = [entrant_link(e.name, e.source) for e in replay.entrants]
    return links[0::2], links[1::2]


def person_view(replay: Replay, game: int) -> str:
    """The view of the person's seat in game ``game`` (1-based): "seatN"."""
    index = min(max(game, 1), len(replay.games)) - 1 if replay.games else 0
    players = replay.rules.players
    if not replay.games:
        return "all"
    record = replay.games[index]
    for seat in range(players):
        if len(record.seats) == players == len(replay.entrants):
            entrant = record.seats[seat]
        else:
            entrant = record.teams[seat % 2]
        if replay.entrants[entrant].source == PERSON:
            return f"seat{seat}"
    return "all"


@dataclass(frozen=True, slots=True)
class PlayedResult:
    """How the person's match ended, in a sentence, and whom they played."""

    sentence: str
    opponent: str


def played_result(replay: Replay) -> PlayedResult:
    person = next((i for i, e in enumerate(replay.entrants) if e.source == PERSON), 0)
    side = person % 2
    rivals = [e.name for i, e in enumerate(replay.entrants) if i % 2 != side]
    won = replay.result.games_won
    mine, theirs = won[side], won[1 - side]
    if replay.result.winner is None:
        sentence = _("No winner: %(a)d-%(b)d in games.") % {"a": mine, "b": theirs}
    elif replay.result.winner == side:
        sentence = _("You won %(a)d-%(b)d in games.") % {"a": mine, "b": theirs}
    else:
        sentence = _("You lost %(a)d-%(b)d in games.") % {"a": mine, "b": theirs}
    return PlayedResult(sentence, rivals[0] if rivals else "")
