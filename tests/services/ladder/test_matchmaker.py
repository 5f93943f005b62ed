"""The ladder's matchmaker on plain data: its limits, its owners rule, its diversity rule and
its priorities (placing bots first, then the top of the table), in 1v1 and individual 2v2."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from services.ladder.matchmaker import pair_key, pick_1v1, pick_individual, pick_matches
from services.ladder.model import (
    NEW_BOT_HALFWIDTH,
    PLACEMENT_HALFWIDTH,
    LadderBot,
    MatchmakerRules,
    even_matches_to_place,
    placement_progress,
)


def placed_pool(n: int, seed: int = 0, owners: int | None = None) -> list[LadderBot]:
    rng = random.Random(seed)
    return [
        LadderBot(
            bot_id=k + 1,
            owner_id=(k % owners if owners else k) + 100,
            rating=rng.gauss(1500, 200),
            halfwidth=rng.uniform(40, 95),
        )
        for k in range(n)
    ]


bots_strategy = st.lists(
    st.builds(
        LadderBot,
        bot_id=st.integers(1, 10**6),
        owner_id=st.integers(1, 6),
        rating=st.floats(800, 2200),
        halfwidth=st.floats(20, 600),
        available=st.booleans(),
    ),
    max_size=40,
    unique_by=lambda b: b.bot_id,
)


@settings(max_examples=150, deadline=None)
@given(bots=bots_strategy, slots=st.integers(0, 12), limit=st.integers(1, 3), seed=st.integers())
def test_every_pick_keeps_the_rules(
    bots: list[LadderBot], slots: int, limit: int, seed: int
) -> None:
    """At most ``slots`` picks; each bot available, in at most one pick; never two bots of one
    owner in a match; never a pair that met ``pair_per_day`` times today."""
    rng = random.Random(seed)
    met = {
        pair_key(a.bot_id, b.bot_id): rng.randint(0, limit)
        for a in bots
        for b in bots
        if a.bot_id < b.bot_id and rng.random() < 0.3
    }
    rules = MatchmakerRules(slots=slots, pair_per_day=limit)
    for players in (2, 4):
        picks = pick_matches(bots, met, rules, players=players)
        assert len(picks) <= slots
        by_id = {b.bot_id: b for b in bots}
        seated = [bot for p in picks for bot in p.seats]
        assert len(seated) == len(set(seated))
        for pick in picks:
            assert len(pick.seats) == players
            assert all(by_id[b].available for b in pick.seats)
            assert len({by_id[b].owner_id for b in pick.seats}) == players
            for x in pick.seats:
                for y in pick.seats:
                    if x < y:
                        assert met.get(pair_key(x, y), 0) < limit


def test_the_cap_is_used_when_bots_allow_it() -> None:
    bots = placed_pool(40)
    assert len(pick_1v1(bots, {}, MatchmakerRules(slots=7))) == 7
    assert len(pick_1v1(bots, {}, MatchmakerRules(slots=50))) == 20
    assert len(pick_individual(bots, {}, MatchmakerRules(slots=50))) == 10
    assert pick_1v1(bots, {}, MatchmakerRules(slots=0)) == []


def test_bots_of_one_owner_never_meet_even_when_nothing_else_is_left() -> None:
    bots = [LadderBot(k, owner_id=1, rating=1500, halfwidth=300) for k in range(1, 7)]
    assert pick_1v1(bots, {}, MatchmakerRules(slots=3)) == []
    bots.append(LadderBot(9, owner_id=2, rating=1500, halfwidth=300))
    (pick,) = pick_1v1(bots, {}, MatchmakerRules(slots=3))
    assert 9 in pick.seats


def test_a_pair_that_met_enough_today_is_not_chosen_again() -> None:
    a = LadderBot(1, 1, 1500, 300)
    b = LadderBot(2, 2, 1500, 300)
    c = LadderBot(3, 3, 1900, 60)
    (first,) = pick_1v1([a, b], {}, MatchmakerRules(slots=1))
    assert set(first.seats) == {1, 2}
    assert pick_1v1([a, b], {(1, 2): 3}, MatchmakerRules(slots=1, pair_per_day=3)) == []
    (other,) = pick_1v1([a, b, c], {(1, 2): 3}, MatchmakerRules(slots=1, pair_per_day=3))
    assert 3 in other.seats


def test_a_new_bot_is_served_first_against_a_well_known_bot_near_its_estimate() -> None:
    bots = placed_pool(60)
    new = LadderBot(999, 999, rating=1500, halfwidth=NEW_BOT_HALFWIDTH)
    picks = pick_1v1([*bots, new], {}, MatchmakerRules(slots=1))
    (pick,) = picks
    assert 999 in pick.seats and pick.reason == "placing"
    opponent = next(b for b in bots if b.bot_id in pick.seats)
    # among the placed bots within 150 Elo of 1500, the opponent is one of the best known
    near = sorted(b.halfwidth for b in bots if abs(b.rating - 1500) < 150)
    assert opponent.halfwidth <= near[len(near) // 2]


def test_two_new_bots_are_not_spent_on_each_other_while_known_bots_are_free() -> None:
    bots = placed_pool(30)
    news = [LadderBot(900 + k, 900 + k, 1500, NEW_BOT_HALFWIDTH) for k in range(2)]
    picks = pick_1v1([*bots, *news], {}, MatchmakerRules(slots=2))
    assert len(picks) == 2
    for pick in picks:
        assert sum(1 for b in pick.seats if b >= 900) == 1


def test_a_placing_bot_meets_a_placed_bot_before_another_placing_bot() -> None:
    """Two bots half placed (+-200) and one placed bot (+-90), all at 1500: counted by value
    alone, the two placing bots would meet (the needier's share plus a tenth of the other's,
    0.162, against 0.158); a placing bot meets a placed one first."""
    half = [LadderBot(k, k, 1500, 200) for k in (1, 2)]
    known = LadderBot(3, 3, 1500, 90)
    picks = pick_1v1([*half, known], {}, MatchmakerRules(slots=2))
    assert len(picks) == 1 and 3 in picks[0].seats and picks[0].reason == "placing"
    # with no placed bot within reach, two placing bots still meet (a cold start)
    (cold,) = pick_1v1(half, {}, MatchmakerRules(slots=1))
    assert set(cold.seats) == {1, 2}


def test_a_new_bot_meets_an_opponent_it_has_not_met_today_before_one_it_has() -> None:
    """A new bot's estimate leans on its opponents' ratings: errors of different opponents
    average out, those of one opponent met again add up. Of two placed bots at its estimate,
    the slightly better known one (+-60 against +-64), already met once today, gives way."""
    new = LadderBot(1, 1, 1500, 300)
    met_once = LadderBot(2, 2, 1500, 60)
    fresh = LadderBot(3, 3, 1500, 64)
    rules = MatchmakerRules(slots=1)
    (first,) = pick_1v1([new, met_once, fresh], {}, rules)
    assert set(first.seats) == {1, 2}  # the better known, when neither was met
    (again,) = pick_1v1([new, met_once, fresh], {pair_key(1, 2): 1}, rules)
    assert set(again.seats) == {1, 3}


def test_the_top_of_the_table_comes_before_the_rest_once_everyone_is_placed() -> None:
    """Placed bots, three close together at the top and the rest far apart and well known:
    the one match is among the three."""
    rest = [LadderBot(k, k, 1000 + 50 * k, 20) for k in range(1, 18)]
    top = [LadderBot(100 + k, 100 + k, 1900 + 5 * k, 60) for k in range(3)]
    (pick,) = pick_1v1([*rest, *top], {}, MatchmakerRules(slots=1))
    assert set(pick.seats) <= {100, 101, 102} and pick.reason == "top"


def test_unavailable_bots_are_left_alone_but_still_shape_the_table() -> None:
    bots = placed_pool(10)
    busy = [LadderBot(b.bot_id, b.owner_id, b.rating, b.halfwidth, available=False) for b in bots]
    assert pick_1v1(busy, {}, MatchmakerRules(slots=5)) == []


def test_individual_tables_seat_four_owners_in_two_partnerships() -> None:
    bots = placed_pool(16, owners=5)
    picks = pick_individual(bots, {}, MatchmakerRules(slots=4))
    assert picks
    by_id = {b.bot_id: b for b in bots}
    for pick in picks:
        assert len(pick.side_a) == len(pick.side_b) == 2
        assert len({by_id[b].owner_id for b in pick.seats}) == 4
        assert pick.seats == (pick.side_a[0], pick.side_b[0], pick.side_a[1], pick.side_b[1])


def test_the_matchmaker_reads_no_history_only_the_current_fit() -> None:
    """Its work depends on the bots and today's meetings, not on matches ever played: the
    same inputs give the same picks, whatever came before."""
    bots = placed_pool(200, seed=3)
    met = Counter({pair_key(1, 2): 1})
    rules = MatchmakerRules(slots=20)
    assert pick_1v1(bots, met, rules) == pick_1v1(list(bots), dict(met), rules)


def test_placement_progress_and_the_information_bound() -> None:
    bound = even_matches_to_place()
    assert 40 <= bound <= 50  # (1.96 / 100)^2 / (q^2 / 4) - 1 = 45.4
    assert even_matches_to_place(players_a_side=2) > 3 * bound
    played, about = placement_progress(11, 200.0)
    assert played == 11 and about > 11
    assert placement_progress(11, 150.0)[1] < about
    assert placement_progress(60, PLACEMENT_HALFWIDTH - 1)[1] == 60
