"""Knockout tie-break order, and round robin by the circle method."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from services.domain.result import stored_result
from services.tournaments.brackets.knockout import decided_by, knockout_winner
from services.tournaments.played import knockout_decision
from services.tournaments.round_robin.circle import round_robin


def test_knockout_tiebreak_order() -> None:
    assert knockout_winner((2, 1), (10, 90), (2, 1)) == "a"  # games first
    assert knockout_winner((1, 1), (40, 55), (1, 2)) == "b"  # then tantos
    assert knockout_winner((2, 2), (70, 70), (2, 1)) == "b"  # then seed: no extra games
    assert knockout_winner((0, 0), (0, 0), (1, 4)) == "a"


def test_decided_by_follows_the_tiebreak_order() -> None:
    assert decided_by((2, 1), (10, 90)) == "games"
    assert decided_by((1, 1), (40, 55)) == "tantos"
    assert decided_by((1, 1), (40, 40)) == "seed"


def test_knockout_decision_only_for_bracket_matches_played_to_the_end() -> None:
    level = stored_result(
        {"games": [], "games_won": [1, 1], "tantos": [45, 38], "reason": "tantos",
         "forfeit": None, "walkover": [], "faults": [0, 0]}
    )  # fmt: skip
    assert knockout_decision("W1-1", level) == "tantos"
    even = msgspec.structs.replace(level, tantos=(40, 40), reason="draw")
    assert knockout_decision("W1-1", even) == "seed"
    assert knockout_decision(None, level) is None  # Swiss, round robin, challenges
    assert knockout_decision("W1-1", None) is None  # not finished
    for reason in ("forfeit", "walkover", "withdrawn", "error"):
        assert knockout_decision("W1-1", msgspec.structs.replace(level, reason=reason)) is None


@settings(max_examples=30, deadline=None)
@given(size=st.integers(2, 40), double=st.booleans())
def test_round_robin_meets_everyone_with_balanced_mano(size: int, double: bool) -> None:
    rounds = round_robin(list(range(size)), double=double)
    cycles = 2 if double else 1
    assert len(rounds) == cycles * (size - 1 if size % 2 == 0 else size)
    meetings = Counter(frozenset((f.mano, f.other)) for r in rounds for f in r)
    assert set(meetings) == {frozenset(p) for p in combinations(range(size), 2)}
    assert set(meetings.values()) == {cycles}
    for fixtures in rounds:
        seen = [x for f in fixtures for x in (f.mano, f.other)]
        assert len(seen) == len(set(seen))  # nobody twice in a round
    mano = Counter(f.mano for r in rounds for f in r)
    played = Counter(x for r in rounds for f in r for x in (f.mano, f.other))
    assert all(abs(2 * mano[p] - played[p]) <= 1 for p in range(size))
    if double:  # each pair has one mano each way
        first = len(rounds) // 2
        pairs = {(f.mano, f.other) for r in rounds for f in r}
        assert all((b, a) in pairs for a, b in pairs)
        assert first > 0


def test_round_robin_of_four() -> None:
    # circle: a fixed, [b c d] rotating right each round; board 0 = a v last, a mano in even
    # rounds; board 1 = the odd position (2nd of the order) is mano.
    rounds = round_robin(["a", "b", "c", "d"])
    assert [[(f.mano, f.other) for f in r] for r in rounds] == [
        [("a", "d"), ("b", "c")],  # order a b c d
        [("c", "a"), ("d", "b")],  # order a d b c
        [("a", "b"), ("c", "d")],  # order a c d b
    ]
