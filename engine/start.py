"""Starting a game and its hands: ``new_game``, ``with_deal``, the event that opens a hand, and
the next hand dealt once one is decided (:func:`start_hand`, which ``apply`` calls).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import has_flor
from engine.deal import deal_for, parse_deal
from engine.errors import IllegalAction, RulesError
from engine.events import Event, HandStarted
from engine.rules import Rules
from engine.state import NO_SEAT, State

__all__ = ["initial_events", "new_game", "start_hand", "with_deal"]


def new_game(
    rules: Rules | dict[str, Any] | None = None,
    seed: int = 0,
    *,
    score: Sequence[int] = (0, 0),
    mano: int = 0,
    deal: Sequence[Sequence[object]] | None = None,
) -> State:
    """A new game at its first hand, dealt from ``seed`` (or with the given ``deal``)."""
    rules = rules if isinstance(rules, Rules) else Rules.from_dict(rules)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RulesError(f"the seed must be an integer, not {type(seed).__name__}", "seed")
    players = rules.players
    if not (isinstance(mano, int) and 0 <= mano < players):
        raise RulesError(f"mano must be a seat from 0 to {players - 1}, got {mano!r}", "mano")
    if len(score) != 2 or any(
        not isinstance(s, int) or not 0 <= s < rules.points_to_win for s in score
    ):
        raise RulesError(
            f"score must be two integers from 0 to {rules.points_to_win - 1}, got {list(score)}",
            "score",
        )
    cards = parse_deal(deal, players) if deal is not None else deal_for(seed, 0, players)
    state = State(
        rules=rules,
        seed=seed,
        score=(score[0], score[1]),
        hand=0,
        mano=mano,
        deal=cards,
        cards=cards,
        leader=mano,
        turn=mano,
    )
    state.flor_holders = flor_holders(rules, cards)
    return state


def initial_events(state: State) -> list[Event]:
    """The event that opens the state's current hand (the deal), for replays."""
    return [HandStarted(state.hand, state.mano, state.deal, state.score)]


def with_deal(state: State, deal: Sequence[Sequence[object]], mano: int | None = None) -> State:
    """The same state with the current hand dealt as given (and, optionally, another mano);
    only before the hand's first action. Scenario files and tests use it."""
    if state.log or state.game_over:
        raise IllegalAction("a deal can only be replaced before the hand's first action")
    cards = parse_deal(deal, state.players)
    new = state.clone()
    new.deal = cards
    new.cards = cards
    new.flor_holders = flor_holders(state.rules, cards)
    if mano is not None:
        if not (isinstance(mano, int) and 0 <= mano < state.players):
            raise RulesError(
                f"mano must be a seat from 0 to {state.players - 1}, got {mano!r}", "mano"
            )
        new.mano = new.leader = new.turn = mano
    return new


def flor_holders(rules: Rules, deal: tuple[tuple[str, ...], ...]) -> tuple[int, ...]:
    if not rules.flor:
        return ()
    return tuple(seat for seat, cards in enumerate(deal) if has_flor(cards))


def start_hand(state: State, events: list[Event]) -> None:
    """Deal the next hand into ``state`` (a fresh copy owned by ``apply``)."""
    players = state.players
    hand = state.hand + 1
    mano = (state.mano + 1) % players
    cards = deal_for(state.seed, hand, players)
    state.hand = hand
    state.mano = mano
    state.deal = cards
    state.cards = cards
    state.round = 0
    state.leader = mano
    state.turn = mano
    state.trick = ()
    state.results = ()
    state.truco = 0
    state.truco_team = NO_SEAT
    state.truco_pending = 0
    state.truco_singer = NO_SEAT
    state.truco_answerer = NO_SEAT
    state.envido_chain = ()
    state.envido_singer = NO_SEAT
    state.envido_answerer = NO_SEAT
    state.flor_holders = flor_holders(state.rules, cards)
    state.flor_sung = ()
    state.flor_queue = ()
    state.flor_first_opp = NO_SEAT
    state.flor_bet = ""
    state.flor_bet_seat = NO_SEAT
    state.flor_answered = False
    state.flor_decision = ""
    state.flor_decider = NO_SEAT
    state.flor_answerer = NO_SEAT
    state.flor_interrupt = NO_SEAT
    state.proofs = ()
    state.log = ()
    events.append(HandStarted(hand, mano, cards, state.score))
