"""Who is mano in a Swiss pair, by the strength of each player's preference (FIDE colours).

Mano and non-mano are Truco's white and black. A player's preference (Dutch A.6) and the
allocation inside a chosen pair (Dutch E.1-E.5) follow FIDE's colour rules:

1. both preferences granted when they differ (or one player has none);
2. otherwise the stronger preference wins; between two absolute ones, the wider imbalance;
3. otherwise alternate with the most recent game in which the two had different sides;
4. otherwise the higher-placed player's preference;
5. with no preference at all (round one) the higher-placed player is mano when its pairing
   number (initial rank + 1) is odd: FIDE's E.5 with the initial colour "white" (the TRF
   export says so: ``XXC white1``). In round one that is every even board.
"""

from __future__ import annotations

from dataclasses import dataclass

NO_PREFERENCE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class ManoPreference:
    """Which side a player wants next and how much, as FIDE's colour preference (Dutch A.6).

    ``side`` is +1 (wants mano), -1 (wants not to be mano) or 0 (no games yet). ``strength`` is
    ABSOLUTE when mano and non-mano games differ by two or more, or the last two games were on
    the same side; STRONG when they differ by one; MILD when balanced (alternate with the last
    game); NO_PREFERENCE before any game. ``history`` is the side of every game played, oldest
    first (True = mano); byes and absences are not games.
    """

    side: int
    strength: int
    imbalance: int  # |mano games - non-mano games|
    history: tuple[bool, ...]


def mano_preference(history: tuple[bool, ...]) -> ManoPreference:
    """The preference after the games ``history`` (True = was mano), oldest first."""
    if not history:
        return ManoPreference(0, NO_PREFERENCE, 0, history)
    difference = sum(1 if was_mano else -1 for was_mano in history)
    last = -1 if history[-1] else 1  # the other side than the last game
    if abs(difference) >= 2:
        return ManoPreference(-1 if difference > 0 else 1, ABSOLUTE, abs(difference), history)
    if len(history) >= 2 and history[-1] == history[-2]:
        return ManoPreference(last, ABSOLUTE, abs(difference), history)
    if difference:
        return ManoPreference(-difference, STRONG, 1, history)
    return ManoPreference(last, MILD, 0, history)


def same_absolute_preference(a: ManoPreference, b: ManoPreference) -> bool:
    """Both players must have the same side (FIDE Dutch C.3 forbids pairing them, except
    between topscorers in the final round: :attr:`swiss_field.Field.topscorers`)."""
    return a.strength == ABSOLUTE == b.strength and a.side == b.side


def allocate_mano(upper: ManoPreference, lower: ManoPreference, upper_rank: int) -> bool:
    """True when ``upper`` (the higher-placed player of the pair, of initial rank
    ``upper_rank``, 0 = top seed) is mano."""
    if upper.side != lower.side:
        if upper.side and lower.side:
            return upper.side > 0
        return upper.side > 0 if upper.side else lower.side < 0
    if upper.side == 0:
        return upper_rank % 2 == 0
    wants = upper.side > 0  # both want the same side: decide who gets it
    if upper.strength != lower.strength:
        return wants if upper.strength > lower.strength else not wants
    if upper.strength == ABSOLUTE and upper.imbalance != lower.imbalance:
        return wants if upper.imbalance > lower.imbalance else not wants
    for mine, theirs in zip(reversed(upper.history), reversed(lower.history), strict=False):
        if mine != theirs:
            return not mine
    return wants
