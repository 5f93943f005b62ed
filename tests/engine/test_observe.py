"""The one observer, by viewer (engine.observe): on random games, whatever a seat, a
partnership or a spectator is shown of the hand in play holds no card still in a hand it may
not see, no deal, and exactly the señas that reached it (R-9, R-11)."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import ActionTaken, HandStarted
from engine.observe import (
    SPECTATOR,
    HandShown,
    Partners,
    Seat,
    Viewer,
    observation,
    sees_sena,
    visible,
    visible_events,
)
from engine.rules import Rules
from tests.engine.strategies import cards_in, random_game, rules_strategy

seeds = st.integers(min_value=0, max_value=2**63 - 1)


def viewers(players: int) -> list[Viewer]:
    return [*(Seat(s) for s in range(players)), Partners(0), Partners(1), SPECTATOR]


def own_seats(viewer: Viewer, players: int) -> set[int]:
    """The seats whose unplayed cards the viewer may know."""
    if isinstance(viewer, Seat):
        return {viewer.seat}
    if isinstance(viewer, Partners):
        return {s for s in range(players) if s % 2 == viewer.team}
    return set()


def addressed(event: ActionTaken, viewer: Viewer) -> bool:
    """Who a seña reached, from the event alone (R-9): the actor and its witnesses."""
    reached = {event.seat, *event.sena_seen_by}
    if isinstance(viewer, Seat):
        return viewer.seat in reached
    if isinstance(viewer, Partners):
        return any(s % 2 == viewer.team for s in reached)
    return False


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, seed=seeds)
def test_no_viewer_sees_a_card_still_in_a_hand_it_may_not_see(rules: Rules, seed: int) -> None:
    for _, _, after, events in random_game(rules, seed):
        for viewer in viewers(rules.players):
            hidden = {
                card
                for seat, cards in enumerate(after.cards)
                if seat not in own_seats(viewer, rules.players)
                for card in cards
            }
            # the hand in play, as this viewer sees it (its end shows the proofs: R-11)
            shown = visible_events(after.log, viewer)
            assert not cards_in(msgspec.to_builtins(shown)) & hidden, viewer
            for event, seen in zip(events, visible_events(events, viewer), strict=True):
                if isinstance(event, HandStarted):
                    assert isinstance(seen, HandShown)
                    assert "deal" not in msgspec.to_builtins(seen)
                    assert (seen.hand, seen.mano, seen.score) == (
                        event.hand,
                        event.mano,
                        event.score,
                    )
                elif isinstance(event, ActionTaken) and event.sena is not None:
                    assert isinstance(seen, ActionTaken)
                    kept = addressed(event, viewer)
                    assert sees_sena(event, viewer) == kept
                    assert seen == (
                        event
                        if kept
                        else msgspec.structs.replace(event, sena=None, sena_seen_by=())
                    )
                else:
                    assert seen == event  # everything else is public
        if not after.game_over:
            seat = after.to_act
            obs = observation(after, seat)
            others = {c for s, cards in enumerate(after.cards) if s != seat for c in cards}
            sent = msgspec.to_builtins((obs.cards, obs.rounds, obs.events))
            assert not cards_in(sent) & others


def test_a_deal_is_never_shown_and_a_spectator_never_sees_a_sena() -> None:
    deal = HandStarted(2, 1, (("1E", "7O", "3B"), ("4C", "5C", "6C")), (3, 4))
    for viewer in viewers(2):
        assert visible(deal, viewer) == HandShown(2, 1, (3, 4))
    sena = ActionTaken(0, "play", "1E", None, "ancho_espada", (2, 3))
    assert visible(sena, SPECTATOR) == ActionTaken(0, "play", "1E")
    assert visible(sena, Seat(1)) == ActionTaken(0, "play", "1E")
    assert visible(sena, Seat(2)) == sena and visible(sena, Seat(3)) == sena
    assert visible(sena, Partners(0)) == sena and visible(sena, Partners(1)) == sena
    alone = ActionTaken(1, "truco", None, None, "tres", (3,))
    assert visible(alone, Partners(0)) == ActionTaken(1, "truco")
    assert visible(alone, Partners(1)) == alone


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy, seed=seeds)
def test_an_observation_holds_the_hands_as_its_seat_sees_them(rules: Rules, seed: int) -> None:
    """Whatever shortcut builds it (in 1v1, with no señas, the logs as they are), an
    observation's events are exactly what the one observer shows that seat."""
    for _, _, after, _ in random_game(rules, seed):
        for seat in range(rules.players):
            obs = observation(after, seat)
            assert obs.events == visible_events(after.log, Seat(seat))
            assert obs.previous_hand == visible_events(after.previous, Seat(seat))
