"""The luck model (docs/luck.md): the per-hand term is exactly antisymmetric under the
exchange of the teams' hands, zero-mean over random deals in every mode, a function of the
state at the deal and the deal alone, and summed into a game by :func:`arena.luck.game_luck`."""

from __future__ import annotations

import math
import random
from itertools import pairwise
from operator import mul

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.luck import LATEST, game_luck, load_model
from arena.luck.features import deal_features, feature_names
from arena.luck.hand import deal_luck, exchanged_deal, sena_luck
from arena.luck.hands import HANDS, hand_info
from arena.luck.model import UnknownModel, config_key
from arena.luck.model import load_model as load_version
from engine import DECK, Rules, apply, legal_actions, new_game
from engine.events import HandStarted
from engine.start import initial_events, with_deal

MODES = [
    Rules(players=players, flor=flor, points_to_win=points)
    for players in (2, 4)
    for flor in (True, False)
    for points in (30, 15)
]
MODEL = load_model()


def random_deal(rng: random.Random, players: int) -> tuple[tuple[str, ...], ...]:
    cards = rng.sample(DECK, 3 * players)
    return tuple(tuple(cards[3 * s : 3 * s + 3]) for s in range(players))


@st.composite
def deal_states(draw: st.DrawFn) -> tuple[Rules, tuple[int, int], int, tuple[tuple[str, ...], ...]]:
    rules = draw(st.sampled_from(MODES))
    target = rules.points_to_win
    score = (draw(st.integers(0, target - 1)), draw(st.integers(0, target - 1)))
    mano = draw(st.integers(0, rules.players - 1))
    cards = draw(st.permutations(DECK))
    deal = tuple(tuple(cards[3 * s : 3 * s + 3]) for s in range(rules.players))
    return rules, score, mano, deal


@settings(max_examples=400, deadline=None)
@given(deal_states())
def test_a_deal_and_its_exchange_cancel_exactly(case: tuple) -> None:  # type: ignore[type-arg]
    rules, score, mano, deal = case
    luck = deal_luck(MODEL, rules, score, mano, deal)
    other = deal_luck(MODEL, rules, score, mano, exchanged_deal(deal, mano))
    assert luck.tantos + other.tantos == 0.0
    assert luck.win + other.win == 0.0


def test_the_exchange_gives_each_team_the_other_teams_hands() -> None:
    deal = (("1E", "2E", "3E"), ("4E", "5E", "6E"), ("7E", "10E", "11E"), ("12E", "1B", "2B"))
    for mano in range(4):
        swapped = exchanged_deal(deal, mano)
        assert sorted(swapped) == sorted(deal) and exchanged_deal(swapped, mano) == deal
        for seat in range(4):
            assert swapped[seat] != deal[seat]
            assert deal.index(swapped[seat]) % 2 != seat % 2  # an opponent's hand
    assert exchanged_deal(deal[:2], 1) == (deal[1], deal[0])


@pytest.mark.parametrize(
    "rules",
    [r for r in MODES if r.points_to_win == 30],
    ids=lambda r: config_key(r.players, r.flor, r.points_to_win),
)
def test_zero_mean_over_100000_random_deals(rules: Rules) -> None:
    """In every mode (1v1 and 2v2, with and without flor), the mean over 100,000 random deals
    (each at a random score and mano) is zero within 4 standard errors, while the luck itself
    is far from zero: the check could fail. (Games to 15 share the construction: the exact
    exchange test above covers them.)"""
    rng = random.Random(f"zero-mean/{rules}")
    target = rules.points_to_win
    n = 100_000
    sums = [0.0, 0.0]
    squares = [0.0, 0.0]
    for _ in range(n):
        score = (rng.randrange(target), rng.randrange(target))
        luck = deal_luck(
            MODEL, rules, score, rng.randrange(rules.players), random_deal(rng, rules.players)
        )
        for i, value in enumerate(luck):
            sums[i] += value
            squares[i] += value * value
    for total, square in zip(sums, squares, strict=True):
        mean = total / n
        sd = math.sqrt(square / n - mean * mean)
        assert sd > 0.01  # tantos: about 1-2; win: a few points of chance
        assert abs(mean) < 4 * sd / math.sqrt(n)


def test_tantos_luck_follows_the_cards() -> None:
    """The mano holding 1E 1B 7E against three fours is lucky, by tantos and by a share of
    the game; with the teams' labels swapped (team 1 mano with those cards, at an even score)
    the luck is exactly the opposite."""
    rules = Rules(players=2, flor=False)
    good, bad = ("1E", "1B", "7E"), ("4C", "4O", "4B")
    luck = deal_luck(MODEL, rules, (10, 10), 0, (good, bad))
    assert luck.tantos > 1.0 and luck.win > 0.02
    mirrored = deal_luck(MODEL, rules, (10, 10), 1, (bad, good))
    assert (mirrored.tantos, mirrored.win) == (-luck.tantos, -luck.win)


def _play_to_hand(rules: Rules, seed: int, hands: int) -> object:
    """A game played with random legal actions until hand ``hands`` is dealt."""
    rng = random.Random(seed)
    state = new_game(rules, seed)
    while state.hand < hands and not state.game_over:
        options = legal_actions(state)
        state, _ = apply(state, options[rng.randrange(len(options))])
    return state


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(MODES), st.integers(0, 10**6), st.integers(1, 6))
def test_a_hands_luck_is_a_function_of_the_state_at_the_deal_and_the_deal(
    rules: Rules, seed: int, hands: int
) -> None:
    """A game played to some hand, and a fresh game started at that hand's score and mano with
    the same cards dealt: different play before, the same term."""
    state = _play_to_hand(rules, seed, hands)
    if state.game_over:  # type: ignore[attr-defined]
        return
    deal = random_deal(random.Random(seed), rules.players)
    played = with_deal(state, deal)  # type: ignore[arg-type]
    fresh = new_game(rules, seed + 1, score=played.score, mano=played.mano, deal=deal)
    [opened] = initial_events(played)
    [started] = initial_events(fresh)
    assert isinstance(opened, HandStarted) and isinstance(started, HandStarted)
    assert opened.hand == played.hand >= 1 and started.hand == 0  # different histories
    ours = game_luck(MODEL, rules, [opened]).hands[0]
    theirs = game_luck(MODEL, rules, [started]).hands[0]
    assert (ours.tantos, ours.win) == (theirs.tantos, theirs.win)


def test_the_luck_depends_on_the_score_at_the_deal() -> None:
    """The same deal is worth more of the game when the game is close to its end."""
    rules = Rules(players=2, flor=False)
    deal = (("1E", "1B", "3O"), ("4C", "5O", "6B"))
    early = deal_luck(MODEL, rules, (0, 0), 0, deal)
    late = deal_luck(MODEL, rules, (26, 26), 0, deal)
    assert late.win > early.win > 0.0


def test_the_fast_value_is_the_fitted_linear_value() -> None:
    rng = random.Random(5)
    for rules in MODES:
        tables = MODEL.tables(rules)
        weights = MODEL.data.configs[
            config_key(rules.players, rules.flor, rules.points_to_win)
        ].weights
        assert len(weights) == len(feature_names(rules.players))
        for _ in range(300):
            infos = tuple(map(hand_info, random_deal(rng, rules.players)))
            full = sum(map(mul, weights, deal_features(infos, rules.flor)))
            assert tables.value(infos, rules.flor) == pytest.approx(full, abs=1e-9)


def test_the_tables_are_chances() -> None:
    """The game chances before a deal are probabilities that grow with one's own score and
    fall with the other's; a point is worth more of the game near the end."""
    for rules in MODES:
        tables = MODEL.tables(rules)
        target = rules.points_to_win
        for a in range(target):
            for b in range(target):
                assert 0.0 <= tables.before[a][b] <= 1.0
                assert tables.leverage[a][b] >= 0.0
            for b1, b2 in pairwise(range(target)):
                assert tables.before[a][b1] >= tables.before[a][b2] - 1e-12
        assert 0.4 < tables.before[0][0] < 0.65
        assert tables.leverage[target - 2][target - 2] > tables.leverage[0][0]
        for row in tables.win[0][0], tables.win[target - 1][target - 1]:
            assert all(0.0 <= chance <= 1.0 for chance in row)


def test_a_sena_term_is_zero_mean_for_any_cost() -> None:
    """Each opponent sees a seña with chance p (R-9): weighting the term of 0, 1 and 2 seen
    by their binomial chances gives zero, whatever the cost the model puts on a seen seña."""
    rules = Rules(players=4, sena_seen_by_opponents=0.3)
    model = load_version(LATEST)
    assert model.sena_value == 0.0  # v1 fits none: the term is zero
    assert sena_luck(model, rules, (3, 9), 1, 0, 2) == (0.0, 0.0)
    saved = model.sena_value
    try:
        model.sena_value = 1.5
        p = rules.sena_seen_by_opponents
        chances = [(1 - p) ** 2, 2 * p * (1 - p), p * p]
        for team in (0, 1):
            terms = [sena_luck(model, rules, (3, 9), 1, team, seen) for seen in range(3)]
            assert sum(c * t.tantos for c, t in zip(chances, terms, strict=True)) == pytest.approx(
                0.0, abs=1e-12
            )
            assert sum(c * t.win for c, t in zip(chances, terms, strict=True)) == pytest.approx(
                0.0, abs=1e-12
            )
            assert terms[2].tantos != 0.0
    finally:
        model.sena_value = saved


def test_a_games_luck_sums_its_hands() -> None:
    rules = Rules(players=2)
    rng = random.Random(3)
    state = new_game(rules, 11)
    events: list[object] = list(initial_events(state))
    while not state.game_over:
        options = legal_actions(state)
        state, caused = apply(state, options[rng.randrange(len(options))])
        events.extend(caused)
    luck = game_luck(MODEL, rules, events)
    assert luck.score == state.score and luck.won == (state.winner == 0)
    assert len(luck.hands) == state.hand + 1
    assert tuple(map(sum, zip(*(h.points for h in luck.hands), strict=True))) == state.score
    assert luck.tantos == pytest.approx(sum(h.tantos for h in luck.hands))
    assert luck.adjusted_tantos == pytest.approx(state.score[0] - state.score[1] - luck.tantos)
    assert luck.adjusted_win == pytest.approx(float(state.winner == 0) - luck.win)
    for hand in luck.hands:
        assert hand.adjusted == pytest.approx(hand.points[0] - hand.points[1] - hand.tantos)


def test_the_model_file_says_how_it_was_fitted() -> None:
    data = MODEL.data
    assert data.version == LATEST == MODEL.version
    assert {config_key(r.players, r.flor, r.points_to_win) for r in MODES} == set(data.configs)
    assert data.fit.command.startswith("python -m tools.luck_fit") and data.fit.hands > 0
    assert "cautious" not in data.fit.strategies and "reckless" not in data.fit.strategies
    with pytest.raises(UnknownModel):
        load_version("truco-luck/0")
    assert len(HANDS) == 9880
