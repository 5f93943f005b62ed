"""Who sits at a table, named so that nobody is mistaken for anyone else.

* Two seats with one name (the same bot on both rival seats of a 2v2, the house heuristic
  three times at a person's 2v2) are told apart by a number: "house-heuristic (1)",
  "house-heuristic (2)".
* At a person's table (an entrant whose source is ``person``: ``/play`` and its replay) the
  person is "Vos" ("You") and is spoken to in the second person
  (:class:`services.web.views.narration.Narrator`); their partner is "NAME (compañero)"; the
  teams are "Nosotros" and "Ellos" ("Us", "Them"), as a player keeps the score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from services.web.i18n import gettext as _
from services.web.views.common import BotLink

PERSON = "person"
"""The source of a person's entrant in a replay (``services.play.session``)."""


def told_apart(names: Sequence[BotLink]) -> list[BotLink]:
    """``names`` with a number after each name that more than one seat has."""
    counts = Counter(n.name for n in names)
    seen: Counter[str] = Counter()
    out = []
    for link in names:
        if counts[link.name] > 1:
            seen[link.name] += 1
            link = replace(link, name=f"{link.name} ({seen[link.name]})")
        out.append(link)
    return out


@dataclass(frozen=True, slots=True)
class TableNames:
    """A table's names: ``seats`` (a link each, as the seat is labelled and as a sentence
    names it), ``teams`` (labels) and ``team_words`` (the teams inside a sentence), ``you``
    the person's seat when a person plays."""

    seats: list[BotLink]
    teams: tuple[str, str]
    team_words: tuple[str, str]
    you: int | None = None


def table_names(
    seats: Sequence[BotLink], teams: tuple[str, str], people: Sequence[bool] = ()
) -> TableNames:
    """The names of a table whose seats are ``seats`` (by seat), its teams ``teams``;
    ``people[seat]`` is True for a person's seat."""
    you = next((s for s, person in enumerate(people) if person), None)
    if you is None:
        return TableNames(told_apart(seats), teams, teams)
    named = list(seats)
    named[you] = BotLink(_("You"))
    partner = [s for s in range(len(seats)) if s != you and s % 2 == you % 2]
    for seat in partner:
        named[seat] = replace(
            seats[seat], name=_("%(name)s (partner)") % {"name": seats[seat].name}
        )
    rivals = [s for s in range(len(seats)) if s % 2 != you % 2]
    for seat, link in zip(rivals, told_apart([seats[s] for s in rivals]), strict=True):
        named[seat] = link
    labels = (_("Us"), _("Them")) if you % 2 == 0 else (_("Them"), _("Us"))
    return TableNames(named, labels, (labels[0].lower(), labels[1].lower()), you)
