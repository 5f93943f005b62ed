"""Single and double elimination brackets as plain data, plus a pure function to advance them.

A bracket is a tuple of :class:`BracketMatch`; each side is a :class:`Slot` holding a seed or
"winner of X" / "loser of X". Seeds above the entrant count are byes: the other side goes
through without playing (and, in double elimination, the bye "loser" drops as a bye too).

A service drives a bracket round by round: :func:`playable` lists the matches whose two
entrants are known and have no result yet; record ``results[match_id] = winning seed``; repeat
until :func:`champion` is not ``None``.

Match ids: ``W{round}-{n}`` winners bracket (the only bracket in single elimination),
``L{round}-{n}`` losers bracket, ``3P`` third place, ``GF`` grand final, ``GF2`` its reset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import msgspec

from services.tournaments.brackets.seeding import bracket_size, seed_order

BYE = 0  # the "entrant" of an empty slot


class Slot(msgspec.Struct, frozen=True):
    seed: int | None = None  # a seed number (1 = best); above the entrant count means a bye
    winner_of: str | None = None
    loser_of: str | None = None


BracketPart = Literal["winners", "losers", "third_place", "grand_final", "reset"]
"""Which part of a bracket a match belongs to."""
BracketKind = Literal["single", "double"]
"""Single or double elimination."""


class BracketMatch(msgspec.Struct, frozen=True):
    id: str
    bracket: BracketPart
    round: int
    a: Slot
    b: Slot


class Bracket(msgspec.Struct, frozen=True):
    kind: BracketKind
    entrants: int
    matches: tuple[BracketMatch, ...]
    final: str  # the match whose winner is champion (GF in double elimination)
    reset: bool = False  # double elimination: GF2 is played if the losers-bracket side wins GF


def _winners_rounds(entrants: int) -> tuple[list[BracketMatch], int]:
    size = bracket_size(entrants)
    order = seed_order(size)
    matches: list[BracketMatch] = []
    previous: list[str] = []
    for k in range(size // 2):
        mid = f"W1-{k + 1}"
        a, b = order[2 * k], order[2 * k + 1]
        matches.append(BracketMatch(mid, "winners", 1, Slot(seed=a), Slot(seed=b)))
        previous.append(mid)
    rounds = 1
    while len(previous) > 1:
        rounds += 1
        current = []
        for k in range(len(previous) // 2):
            mid = f"W{rounds}-{k + 1}"
            top, bottom = Slot(winner_of=previous[2 * k]), Slot(winner_of=previous[2 * k + 1])
            matches.append(BracketMatch(mid, "winners", rounds, top, bottom))
            current.append(mid)
        previous = current
    return matches, rounds


def single_elimination(entrants: int, *, third_place: bool = False) -> Bracket:
    """Standard seeding (1 v 16, 8 v 9, ...); byes go to the top seeds."""
    if entrants < 2:
        raise ValueError("a bracket needs at least two entrants")
    matches, rounds = _winners_rounds(entrants)
    final = f"W{rounds}-1"
    if third_place and rounds >= 2:
        semis = [m.id for m in matches if m.round == rounds - 1]
        matches.append(
            BracketMatch(
                "3P", "third_place", rounds, Slot(loser_of=semis[0]), Slot(loser_of=semis[1])
            )
        )
    return Bracket(kind="single", entrants=entrants, matches=tuple(matches), final=final)


def _drop_order(losers: list[str], drop_round: int) -> list[str]:
    """Where the losers of a winners round land, so they do not meet their recent opponents
    again at once: reversed on odd drop rounds, halves swapped on even ones."""
    if drop_round % 2 == 1:
        return losers[::-1]
    half = len(losers) // 2
    return losers[half:] + losers[:half] if half else losers


def double_elimination(entrants: int, *, reset: bool = True) -> Bracket:
    """Winners and losers brackets and a grand final (with a reset match if ``reset``)."""
    if entrants < 2:
        raise ValueError("a bracket needs at least two entrants")
    matches, rounds = _winners_rounds(entrants)
    by_round = {r: [m.id for m in matches if m.round == r] for r in range(1, rounds + 1)}
    lb_round = 0
    feed: list[Slot] = [Slot(loser_of=mid) for mid in by_round[1]]
    if rounds >= 2:
        lb_round = 1
        current = []
        for k in range(len(feed) // 2):
            mid = f"L1-{k + 1}"
            matches.append(BracketMatch(mid, "losers", 1, feed[2 * k], feed[2 * k + 1]))
            current.append(mid)
        for w in range(2, rounds + 1):
            drops = _drop_order(by_round[w], w - 1)
            lb_round += 1
            merged = []
            for k, (survivor, dropped) in enumerate(zip(current, drops, strict=True)):
                mid = f"L{lb_round}-{k + 1}"
                a, b = Slot(winner_of=survivor), Slot(loser_of=dropped)
                matches.append(BracketMatch(mid, "losers", lb_round, a, b))
                merged.append(mid)
            current = merged
            if len(current) > 1:
                lb_round += 1
                halved = []
                for k in range(len(current) // 2):
                    mid = f"L{lb_round}-{k + 1}"
                    a, b = Slot(winner_of=current[2 * k]), Slot(winner_of=current[2 * k + 1])
                    matches.append(BracketMatch(mid, "losers", lb_round, a, b))
                    halved.append(mid)
                current = halved
        lb_champion = Slot(winner_of=current[0])
    else:
        lb_champion = feed[0]
    wb_final = by_round[rounds][0]
    matches.append(BracketMatch("GF", "grand_final", 1, Slot(winner_of=wb_final), lb_champion))
    if reset:
        matches.append(BracketMatch("GF2", "reset", 2, Slot(winner_of="GF"), Slot(loser_of="GF")))
    return Bracket(
        kind="double", entrants=entrants, matches=tuple(matches), final="GF", reset=reset
    )


class Resolved(msgspec.Struct, frozen=True):
    """A match's entrants (seed, ``BYE`` or ``None`` = not known yet) and outcome if decided."""

    a: int | None
    b: int | None
    winner: int | None
    loser: int | None
    void: bool = False  # a bye match, or a reset that is not needed


def resolve(bracket: Bracket, results: Mapping[str, int]) -> dict[str, Resolved]:
    """Every match's entrants and outcome given the results so far (match id → winning seed)."""
    out: dict[str, Resolved] = {}

    def entrant(slot: Slot) -> int | None:
        if slot.seed is not None:
            return slot.seed if slot.seed <= bracket.entrants else BYE
        source = out[slot.winner_of or slot.loser_of or ""]
        return source.winner if slot.winner_of is not None else source.loser

    for match in bracket.matches:
        a, b = entrant(match.a), entrant(match.b)
        if match.bracket == "reset" and out["GF"].winner is not None:
            gf = out["GF"]
            if gf.winner == gf.a:  # the winners-bracket champion won: no reset
                out[match.id] = Resolved(a, b, gf.winner, BYE, void=True)
                continue
        if a is None or b is None:
            out[match.id] = Resolved(a, b, None, None)
        elif a == BYE or b == BYE:
            out[match.id] = Resolved(a, b, b if a == BYE else a, BYE, void=True)
        elif match.id in results:
            winner = results[match.id]
            if winner not in (a, b):
                raise ValueError(f"{match.id}: winner {winner} is not {a} or {b}")
            out[match.id] = Resolved(a, b, winner, b if winner == a else a)
        else:
            out[match.id] = Resolved(a, b, None, None)
    return out


def playable(bracket: Bracket, results: Mapping[str, int]) -> list[tuple[str, int, int]]:
    """Matches ready to play now: (id, seed a, seed b), in bracket order."""
    return [
        (mid, r.a, r.b)
        for mid, r in resolve(bracket, results).items()
        if r.winner is None and r.a is not None and r.b is not None
    ]


def champion(bracket: Bracket, results: Mapping[str, int]) -> int | None:
    """The tournament winner's seed, or ``None`` while matches remain."""
    state = resolve(bracket, results)
    if bracket.kind == "double" and bracket.reset:
        return state["GF2"].winner
    return state[bracket.final].winner


def advance(
    bracket: Bracket, results: Mapping[str, int], match_id: str, winner: int
) -> dict[str, int]:
    """A new results mapping with ``match_id`` won by ``winner`` (validated)."""
    ready = {mid: (a, b) for mid, a, b in playable(bracket, results)}
    if match_id not in ready:
        raise ValueError(f"match {match_id} is not ready to be played")
    if winner not in ready[match_id]:
        raise ValueError(f"{match_id}: winner {winner} is not one of {ready[match_id]}")
    return {**results, match_id: winner}
