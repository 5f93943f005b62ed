"""The luck of the cards on the pages (docs/luck.md): the match page's sentence, a hand's line
in the replay viewer, and a bot's luck so far. Figures come from the stored result's ``luck``
(side 0's view); the words go through the page's catalogue."""

from __future__ import annotations

from dataclasses import dataclass, replace

from arena.match.luck import HandLuckRecord, MatchLuck
from services.db.luck import BotLuck
from services.web.i18n import decimal, signed
from services.web.i18n import gettext as _
from services.web.views.common import BotLink
from services.web.views.hands import HandRow


@dataclass(frozen=True, slots=True)
class MatchLuckLine:
    """The match page's sentence: the side dealt the better cards (``side``), its luck in
    tantos and in games' chance, and the games won by each side once the luck is taken off
    (that side first)."""

    side: int
    who: list[BotLink]
    tantos: str
    games: str
    adjusted: tuple[str, str]


def match_luck_line(
    luck: MatchLuck | None,
    sides: tuple[list[BotLink], list[BotLink]],
    games_won: tuple[int, int],
) -> MatchLuckLine | None:
    if luck is None:
        return None
    side = 0 if luck.tantos >= 0 else 1
    sign = 1.0 if side == 0 else -1.0
    adjusted = (games_won[0] - luck.win, games_won[1] + luck.win)
    return MatchLuckLine(
        side=side,
        who=sides[side],
        tantos=signed(sign * luck.tantos),
        games=signed(sign * luck.win, 2),
        adjusted=(decimal(adjusted[side], 1), decimal(adjusted[1 - side], 1)),
    )


def hand_luck_text(record: HandLuckRecord, team_names: tuple[str, str], side0_team: int) -> str:
    """One hand's luck as the replay's score by hand says it: the team dealt the better cards
    and by how much ("luck: Norte +1.3 tantos, +4% of the game")."""
    team = side0_team if record.tantos >= 0 else 1 - side0_team
    sign = 1.0 if record.tantos >= 0 else -1.0
    return _("luck: %(team)s %(tantos)s tantos, %(chance)s%% of the game") % {
        "team": team_names[team],
        "tantos": signed(sign * record.tantos),
        "chance": signed(100.0 * sign * record.win, 0),
    }


def with_luck(
    rows: list[HandRow], luck: MatchLuck, game: int, team_names: tuple[str, str], side0_team: int
) -> list[HandRow]:
    """The score by hand with each hand's luck (the game's hands as the stored result has
    them); ``side0_team`` is the team side 0 sat as in this game."""
    found = next((g for g in luck.games if g.number == game), None)
    if found is None:
        return rows
    by_hand = {h.hand + 1: h for h in found.hands}
    return [
        replace(row, luck=hand_luck_text(by_hand[row.hand], team_names, side0_team))
        if row.hand in by_hand
        else row
        for row in rows
    ]


@dataclass(frozen=True, slots=True)
class BotLuckLine:
    matches: int
    tantos: str
    games: str
    won: int
    decided: int
    adjusted: str


def bot_luck_line(luck: BotLuck) -> BotLuckLine | None:
    """A bot's luck so far (None before its first match with luck figures)."""
    if luck.matches == 0:
        return None
    return BotLuckLine(
        matches=luck.matches,
        tantos=signed(luck.tantos),
        games=signed(luck.win, 2),
        won=luck.won,
        decided=luck.games,
        adjusted=decimal(luck.adjusted_won, 1),
    )
