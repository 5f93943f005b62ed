"""Property tests over random legal games (R-1..R-11 invariants)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    GameOverError,
    IllegalAction,
    InvalidAction,
    Observation,
    Rules,
    State,
    apply,
    legal_actions,
    new_game,
    observation,
    replay,
)
from engine.actions import SENAS, WORDS
from engine.cards import DECK
from engine.events import ActionTaken, Event, GameEnded, HandEnded, HandStarted
from tests.engine.strategies import cards_in, play_out, random_game, rules_strategy

seeds = st.integers(min_value=0, max_value=2**63 - 1)
EXAMPLES = settings(max_examples=60, deadline=None)


@EXAMPLES
@given(rules=rules_strategy, seed=seeds)
def test_random_play_ends_with_a_winner_and_sane_scores(rules: Rules, seed: int) -> None:
    last_score = (0, 0)
    final: State | None = None
    for before, _, after, events in random_game(rules, seed):
        assert before.score[0] <= after.score[0] and before.score[1] <= after.score[1]
        assert max(after.score) <= rules.points_to_win
        last_score = after.score
        final = after
        for event in events:
            if isinstance(event, HandEnded) and event.winner is not None:
                assert event.points >= 1
    assert final is not None and final.game_over
    assert final.winner is not None
    assert last_score[final.winner] == rules.points_to_win
    assert last_score[1 - final.winner] < rules.points_to_win
    assert legal_actions(final) == []
    with pytest.raises(GameOverError):
        apply(final, Action("mazo"))


@EXAMPLES
@given(rules=rules_strategy, seed=seeds)
def test_apply_never_changes_its_input_and_illegal_actions_change_nothing(
    rules: Rules, seed: int
) -> None:
    for step, (before, _, after, _) in enumerate(random_game(rules, seed)):
        if step % 3:
            continue
        snapshot = msgspec.json.encode(before)
        legal_keys = {a.key for a in legal_actions(before)}
        illegal = [Action("play", c) for c in DECK if ("play", c) not in legal_keys]
        illegal += [Action(w) for w in ("truco", "quiero", "flor", "envido", "mazo")]
        for action in illegal:
            if action.key in legal_keys:
                continue
            with pytest.raises(IllegalAction):
                apply(before, action)
        for malformed in (
            Action("grito"),
            Action("play"),
            Action("play", "8E"),
            Action("mazo", "1E"),
        ):
            with pytest.raises(InvalidAction):
                apply(before, malformed)
        with pytest.raises(InvalidAction):
            apply(
                before, Action(next(iter(legal_keys))[0], next(iter(legal_keys))[1], say="x" * 281)
            )
        assert msgspec.json.encode(before) == snapshot
        assert after is not before


def _public_cards(events: tuple[Event, ...]) -> set[str]:
    """Cards every seat may see in a hand's events: cards played and proofs shown."""
    public: set[str] = set()
    for event in events:
        if isinstance(event, ActionTaken) and event.card is not None:
            public.add(event.card)
        if isinstance(event, HandEnded):
            for shown in event.shown:
                public.update(shown.cards)
    return public


@EXAMPLES
@given(rules=rules_strategy, seed=seeds)
def test_no_observation_shows_another_seats_unplayed_cards(rules: Rules, seed: int) -> None:
    previous_deal: tuple[tuple[str, ...], ...] = ()
    current_deal = new_game(rules, seed).deal
    for _, _, after, events in random_game(rules, seed):
        for event in events:
            if isinstance(event, HandStarted):
                previous_deal, current_deal = current_deal, event.deal
        assert after.game_over or after.deal == current_deal
        for seat in range(rules.players):
            obs = observation(after, seat)
            now = cards_in((obs.cards, obs.rounds, obs.events))
            allowed_now = set(current_deal[seat]) | _public_cards(after.log)
            assert now <= allowed_now, f"seat {seat} sees {now - allowed_now}"
            if obs.previous_hand:
                deal = current_deal if after.game_over and not after.log else previous_deal
                before = cards_in(obs.previous_hand)
                allowed_before = set(deal[seat]) | _public_cards(after.previous)
                assert before <= allowed_before, f"seat {seat} saw {before - allowed_before}"
            for event in obs.events + obs.previous_hand:
                assert not isinstance(event, HandStarted)
                if isinstance(event, ActionTaken) and event.sena is not None:
                    assert event.seat == seat or seat in event.sena_seen_by
        for event in after.log:
            if isinstance(event, ActionTaken) and event.sena is not None:
                partners = {s for s in range(rules.players) if s % 2 == event.seat % 2}
                assert partners - {event.seat} <= set(event.sena_seen_by)


@EXAMPLES
@given(rules=rules_strategy, seed=seeds)
def test_replay_reproduces_every_event(rules: Rules, seed: int) -> None:
    final, actions, events = play_out(rules, seed)
    again, replayed = replay(rules, seed, actions)
    assert msgspec.json.encode(replayed) == msgspec.json.encode(events)
    assert msgspec.json.encode(again) == msgspec.json.encode(final)
    assert isinstance(events[-1], GameEnded)


@settings(max_examples=25, deadline=None)
@given(rules=rules_strategy, seed=seeds)
def test_serialization_round_trips(rules: Rules, seed: int) -> None:
    for step, (_, action, after, events) in enumerate(random_game(rules, seed)):
        if step % 4:
            continue
        assert msgspec.json.decode(msgspec.json.encode(after), type=State) == after
        assert msgspec.json.decode(msgspec.json.encode(action), type=Action) == action
        decoded = msgspec.json.decode(msgspec.json.encode(events), type=list[Event])
        assert decoded == events
        obs = observation(after, step % rules.players)
        assert msgspec.json.decode(msgspec.json.encode(obs), type=Observation) == obs


@EXAMPLES
@given(
    rules=rules_strategy.filter(lambda r: r.players == 2),
    seed=seeds,
    sena=st.sampled_from(SENAS),
    word=st.sampled_from(WORDS),
    card=st.sampled_from(DECK),
)
def test_a_sena_in_1v1_is_invalid_whatever_the_action_legality(
    rules: Rules, seed: int, sena: str, word: str, card: str
) -> None:
    """R-9: señas exist only in 2v2, so in 1v1 an action carrying one is malformed
    (``InvalidAction``), whether or not the same action without it would be legal now."""
    legal_seen = illegal_seen = False
    for before, _, _, _ in random_game(rules, seed):
        for action in (
            Action(word, card if word == "play" else None),
            *legal_actions(before),
        ):
            try:
                apply(before, action)
            except IllegalAction:
                illegal_seen = True
            else:
                legal_seen = True
            with pytest.raises(InvalidAction, match="señas exist only in 2v2"):
                apply(before, msgspec.structs.replace(action, sena=sena))
    assert legal_seen and illegal_seen
