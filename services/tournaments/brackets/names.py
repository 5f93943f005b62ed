"""The names of a bracket's rounds and matches, one source for every reader: the tournament
page (in its language, through the catalogues) and `truco tournament show` / `watch` (English).

A round is named by where it stands in its bracket: quarter-finals, semi-finals, final, third
place; in double elimination the winners' rounds ("Winners semi-finals"), the losers' rounds
("Losers round 2", the last one "Losers final"), the grand final and its reset. A match is its
round's name, numbered when the round has several ("Semi-final 2", "Losers round 1, match 2").
"""

from __future__ import annotations

from collections.abc import Callable

from services.tournaments.brackets.bracket import Bracket, BracketMatch

Translate = Callable[[str], str]
"""A gettext: the English message in the reader's language."""


def untranslated(message: str) -> str:
    """The English message itself (the CLI's reader)."""
    return message


N_ = untranslated  # marks a word for the pages' catalogues (pybabel's N_ keyword; babel.cfg)

# (the round's heading, the name of one of its matches: %(n)s its number in the round)
THIRD_PLACE = (N_("Third place"), N_("Third place, match %(n)s"))
GRAND_FINAL = (N_("Grand final"), N_("Grand final, match %(n)s"))
RESET = (N_("Grand final reset"), N_("Grand final reset, match %(n)s"))
LOSERS_FINAL = (N_("Losers final"), N_("Losers final, match %(n)s"))
LOSERS_ROUND = (N_("Losers round %(round)d"), N_("Losers round %(round)d, match %(n)s"))
WINNERS_FINAL = (N_("Winners final"), N_("Winners final, match %(n)s"))
FINAL = (N_("Final"), N_("Final, match %(n)s"))
WINNERS_SEMIS = (N_("Winners semi-finals"), N_("Winners semi-final %(n)s"))
SEMIS = (N_("Semi-finals"), N_("Semi-final %(n)s"))
WINNERS_QUARTERS = (N_("Winners quarter-finals"), N_("Winners quarter-final %(n)s"))
QUARTERS = (N_("Quarter-finals"), N_("Quarter-final %(n)s"))
ROUND = (N_("Round %(round)d"), N_("Round %(round)d, match %(n)s"))


def _names(
    match: BracketMatch, rounds: int, double: bool, last_losers: int
) -> tuple[tuple[str, str], dict[str, int]]:
    """A bracket match's round (its two messages) and the numbers they take."""
    if match.bracket == "third_place":
        return THIRD_PLACE, {}
    if match.bracket == "grand_final":
        return GRAND_FINAL, {}
    if match.bracket == "reset":
        return RESET, {}
    at = {"round": match.round}
    if match.bracket == "losers":
        return (LOSERS_FINAL, {}) if match.round == last_losers else (LOSERS_ROUND, at)
    left = rounds - match.round
    if left == 0:
        return (WINNERS_FINAL if double else FINAL), {}
    if left == 1:
        return (WINNERS_SEMIS if double else SEMIS), {}
    if left == 2:
        return (WINNERS_QUARTERS if double else QUARTERS), {}
    return ROUND, at


def bracket_rounds(bracket: Bracket) -> tuple[int, int]:
    """The winners' side's rounds and the losers' side's last round (0: none)."""
    rounds = max(m.round for m in bracket.matches if m.bracket == "winners")
    last_losers = max((m.round for m in bracket.matches if m.bracket == "losers"), default=0)
    return rounds, last_losers


def round_name(
    match: BracketMatch, bracket: Bracket, double: bool, translate: Translate = untranslated
) -> str:
    """The name of a bracket match's round: ``Final``, ``Semi-finals``, ``Losers round 2``..."""
    rounds, last_losers = bracket_rounds(bracket)
    (heading, _one), at = _names(match, rounds, double, last_losers)
    return translate(heading) % at if at else translate(heading)


def round_names(
    bracket: Bracket, double: bool, translate: Translate = untranslated
) -> dict[str, str]:
    """Each bracket match's round name (:func:`round_name`), by match id."""
    return {m.id: round_name(m, bracket, double, translate) for m in bracket.matches}


def match_names(
    bracket: Bracket, double: bool, translate: Translate = untranslated
) -> dict[str, str]:
    """Each bracket match's own name, by match id: ``Semi-final 1``, ``Final``, ``Losers round
    1, match 2`` (a round of one match is named by its round alone)."""
    rounds, last_losers = bracket_rounds(bracket)
    names = {m.id: _names(m, rounds, double, last_losers) for m in bracket.matches}
    counts: dict[tuple[str, int], int] = {}
    for (heading, _one), at in names.values():
        key = (heading, at.get("round", 0))
        counts[key] = counts.get(key, 0) + 1
    labels = {}
    for code, ((heading, one), at) in names.items():
        if counts[(heading, at.get("round", 0))] == 1:
            labels[code] = translate(heading) % at if at else translate(heading)
        else:
            labels[code] = translate(one) % {**at, "n": code.rsplit("-", 1)[-1]}
    return labels
