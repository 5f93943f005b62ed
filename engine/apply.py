"""Applying actions: ``apply`` and ``replay`` (a game starts in :mod:`engine.start`).

``apply(state, action)`` validates the action's form, checks it against ``legal_actions``,
then returns a new state and the events the action caused. The input state is never changed,
so an :class:`~engine.errors.IllegalAction` or :class:`~engine.errors.InvalidAction` leaves
everything as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.actions import TRUCO_WORDS, Action, validate_action
from engine.cards import STRENGTH, envido_points, envido_proof, flor_points
from engine.deal import sena_rng
from engine.errors import GameOverError, IllegalAction, InvalidAction
from engine.events import (
    ActionTaken,
    Declaration,
    EnvidoCancelled,
    EnvidoSettled,
    Event,
    FlorOutcome,
    FlorSettled,
    GameEnded,
    HandEnded,
    HandEndReason,
    RoundEnded,
    Shown,
    TrucoSettled,
)
from engine.legal import legal_actions
from engine.rules import Rules
from engine.scoring import declare, envido_value, falta_points, hand_decided
from engine.start import initial_events, new_game, start_hand
from engine.state import NO_SEAT, TRUCO_LEVELS, TRUCO_VALUE, State, order_from, seats_after

__all__ = ["apply", "legal_actions", "replay"]


# ---------------------------------------------------------------- applying


def apply(state: State, action: Action, seat: int | None = None) -> tuple[State, list[Event]]:
    """Apply the action of the seat to act. With ``seat`` given, it must be that seat.

    Returns the new state and the events caused, in order. Raises ``InvalidAction`` for a
    malformed action and ``IllegalAction`` for one the rules do not allow now.
    """
    if state.game_over:
        raise GameOverError("the game is over: no action is legal")
    action = validate_action(action)
    players = state.players
    if action.sena is not None and players < 4:  # malformed here, whatever the word
        raise InvalidAction("señas exist only in 2v2 (R-9)")
    actor = state.to_act
    if seat is not None and seat != actor:
        raise IllegalAction(f"seat {seat} may not act now: it is seat {actor}'s turn")
    word = action.action
    card = action.card
    legal = legal_actions(state)
    for option in legal:
        if option.action == word and option.card == card:
            break
    else:
        raise IllegalAction(
            f"{action} is not legal for seat {actor} now",
            sorted({str(a) for a in legal}),
        )
    new = state.clone()
    events: list[Event] = []
    taken = ActionTaken(
        actor,
        word,
        card,
        action.say,
        action.sena,
        _sena_witnesses(state, actor) if action.sena is not None else (),
    )
    new.log = (*state.log, taken)
    events.append(taken)
    _HANDLERS[word](new, actor, word, card, events)
    return new, events


def _sena_witnesses(state: State, actor: int) -> tuple[int, ...]:
    """The partner always sees a seña; each opponent by the option's probability (R-9)."""
    players = state.players
    chance = state.rules.sena_seen_by_opponents
    rng = sena_rng(state.seed, state.hand, len(state.log))
    seen = []
    for other in range(players):
        if other == actor:
            continue
        if other % 2 == actor % 2 or rng.random() < chance:
            seen.append(other)
    return tuple(seen)


def _emit(state: State, events: list[Event], event: Event) -> None:
    """Record an event of the current hand: in the caller's list and in the hand's log."""
    events.append(event)
    state.log = (*state.log, event)


def _award(state: State, team: int, points: int) -> bool:
    """Add points to a team, capped at ``points_to_win``; True when that ends the game (R-3)."""
    target = state.rules.points_to_win
    score = list(state.score)
    score[team] = min(target, score[team] + points)
    state.score = (score[0], score[1])
    if score[team] >= target:
        state.game_over = True
        state.winner = team
        return True
    return False


def _finish_hand(
    state: State, winner: int | None, points: int, reason: HandEndReason, events: list[Event]
) -> None:
    """End the hand: score it, close the log, then end the game or deal the next hand."""
    if winner is not None and points:
        _award(state, winner, points)
    ended = HandEnded(state.hand, winner, points, reason, state.proofs, state.score)
    _emit(state, events, ended)
    state.previous = state.log
    state.log = ()
    if state.game_over:
        assert state.winner is not None
        events.append(GameEnded(state.winner, state.score))
        return
    start_hand(state, events)


def _game_cut_short(state: State, events: list[Event]) -> None:
    """A bet settled mid-hand reached ``points_to_win``: the rest of the hand is not played."""
    _finish_hand(state, None, 0, "game_over", events)


# ---------------------------------------------------------------- cards


def _play(state: State, seat: int, word: str, card: str | None, events: list[Event]) -> None:
    assert card is not None
    hands = list(state.cards)
    own = hands[seat]
    at = own.index(card)  # legal: the card is in the seat's hand, once
    hands[seat] = own[:at] + own[at + 1 :]
    state.cards = tuple(hands)
    trick = (*state.trick, (seat, card))
    players = state.players
    if len(trick) < players:
        state.trick = trick
        state.turn = (seat + 1) % players
        return
    best = max(STRENGTH[c] for _, c in trick)
    top = [s for s, c in trick if STRENGTH[c] == best]
    teams = {s % 2 for s in top}
    if len(teams) == 2:
        result, leader = -1, state.leader  # parda: the same seat leads again
    else:
        result, leader = top[0] % 2, top[0]
    state.results = (*state.results, result)
    state.trick = ()
    _emit(state, events, RoundEnded(state.round, trick, None if result < 0 else result, leader))
    winner = hand_decided(state.results, state.mano % 2)
    if winner is not None:
        _finish_hand(state, winner, TRUCO_VALUE[state.truco], "rounds", events)
        return
    state.round += 1
    state.leader = leader
    state.turn = leader


# ---------------------------------------------------------------- truco and mazo


def _truco(state: State, seat: int, word: str, card: str | None, events: list[Event]) -> None:
    level = TRUCO_LEVELS.index(word)
    if state.truco_answerer == seat:
        # a raise answers the level just sung: it accepts that level
        state.truco = state.truco_pending
        state.truco_team = seat % 2
    state.truco_pending = level
    state.truco_singer = seat
    state.truco_answerer = (seat + 1) % state.players


def _answer(state: State, seat: int, word: str, card: str | None, events: list[Event]) -> None:
    if state.envido_answerer >= 0:
        _settle_envido(state, word == "quiero", events)
        return
    level = state.truco_pending
    if word == "quiero":
        state.truco = level
        state.truco_team = seat % 2
        state.truco_pending = 0
        state.truco_singer = NO_SEAT
        state.truco_answerer = NO_SEAT
        _emit(state, events, TrucoSettled(TRUCO_WORDS[level - 1], True, seat))
        return
    _emit(state, events, TrucoSettled(TRUCO_WORDS[level - 1], False, seat))
    # no querido: the singer's team scores the level below the one refused
    _finish_hand(state, state.truco_singer % 2, TRUCO_VALUE[level - 1], "no_quiero", events)


def _mazo(state: State, seat: int, word: str, card: str | None, events: list[Event]) -> None:
    if state.truco_pending:
        value = TRUCO_VALUE[state.truco_pending - 1]  # the pending level's no-querido value
    else:
        value = TRUCO_VALUE[state.truco]
        if (
            value == 1
            and state.rules.mazo_first_round_costs_two
            and state.round == 0
            and not state.envido_chain
            and not state.flor_sung
            and len(state.cards[seat]) == 3
        ):
            value = 2
    _finish_hand(state, 1 - seat % 2, value, "mazo", events)


# ---------------------------------------------------------------- envido


def _envido(state: State, seat: int, word: str, card: str | None, events: list[Event]) -> None:
    players = state.players
    state.envido_chain = (*state.envido_chain, word)
    state.envido_singer = seat
    state.envido_answerer = (seat + 1) % players
    if state.flor_holders:
        # a flor not yet sung is sung now, by the first holder after the singer
        for other in seats_after(seat, players):
            if other in state.flor_holders and other not in state.flor_sung:
                state.flor_interrupt = other
                break


def _settle_envido(state: State, querido: bool, events: list[Event]) -> None:
    chain = state.envido_chain
    falta = falta_points(state.rules, state.score)
    points = envido_value(chain, querido, falta)
    state.envido_answerer = NO_SEAT
    declarations: tuple[Declaration, ...] = ()
    if querido:
        deal = state.deal
        declarations, best = declare(
            order_from(state.mano, state.players), lambda s: envido_points(deal[s])
        )
        winner = best % 2
        state.proofs = (*state.proofs, Shown(best, envido_proof(deal[best])))
    else:
        winner = state.envido_singer % 2
    over = _award(state, winner, points)
    _emit(
        state,
        events,
        EnvidoSettled(chain, querido, winner, points, declarations, state.score),
    )
    if over:
        _game_cut_short(state, events)


# ---------------------------------------------------------------- flor


def _flor(state: State, seat: int, word: str, card: str | None, events: list[Event]) -> None:
    players = state.players
    if state.flor_queue:
        _flor_speaks(state, seat, word)
    elif state.flor_answerer >= 0:
        _flor_answers(state, seat, word)
    else:
        # a new flor: every other holder will speak, in playing order after the singer
        state.flor_sung = (seat,)
        state.flor_bet = "flor"
        state.flor_bet_seat = seat
        state.flor_interrupt = NO_SEAT
        queue = tuple(s for s in seats_after(seat, players) if s in state.flor_holders)
        state.flor_queue = queue
        state.flor_first_opp = next((s for s in queue if s % 2 != seat % 2), NO_SEAT)
        if state.envido_answerer >= 0:
            state.envido_answerer = NO_SEAT
            _emit(state, events, EnvidoCancelled(state.envido_chain, "flor"))
    if not state.flor_queue and state.flor_answerer < 0:
        if state.flor_bet != "flor" and not state.flor_decision:
            # an open contraflor: the other side's first flor after the bettor answers
            bettor = state.flor_bet_seat
            state.flor_answerer = next(
                s
                for s in seats_after(bettor, players)
                if s % 2 != bettor % 2 and s in state.flor_sung
            )
        else:
            _settle_flor(state, events)


def _flor_speaks(state: State, seat: int, word: str) -> None:
    """A seat in the flor queue speaks: sings its flor, or (the first opponent) answers."""
    state.flor_queue = state.flor_queue[1:]
    state.flor_sung = (*state.flor_sung, seat)
    if seat != state.flor_first_opp or state.flor_answered:
        return
    state.flor_answered = True
    if word in ("flor", "con_flor_quiero"):
        state.flor_decision = "quiero"
        state.flor_decider = seat
    elif word == "con_flor_me_achico":
        state.flor_decision = "achico"
        state.flor_decider = seat
    else:
        state.flor_bet = "contraflor" if word == "contraflor" else "contraflor_al_resto"
        state.flor_bet_seat = seat


def _flor_answers(state: State, seat: int, word: str) -> None:
    """The answer to an open contraflor or contraflor al resto."""
    state.flor_answerer = NO_SEAT
    if word == "contraflor_al_resto":
        state.flor_bet = "contraflor_al_resto"
        state.flor_bet_seat = seat
        return
    state.flor_decision = "quiero" if word == "con_flor_quiero" else "achico"
    state.flor_decider = seat


def _settle_flor(state: State, events: list[Event]) -> None:
    sung = state.flor_sung
    deal = state.deal
    teams = {s % 2 for s in sung}
    declarations: tuple[Declaration, ...] = ()
    bet = state.flor_bet
    assert bet, "a flor is settled only after one was sung"
    outcome: FlorOutcome
    if len(teams) == 1:
        outcome = "alone"
        winner = sung[0] % 2
        points = 3 * len(sung)
        shown = list(sung)
    elif state.flor_decision == "achico":
        outcome = "achico"
        winner = 1 - state.flor_decider % 2
        own = [s for s in sung if s % 2 == winner]
        points = 3 * len(own) + 1 if bet == "flor" else 4
        shown = own
    else:
        outcome = "quiero"
        order = [s for s in order_from(state.mano, state.players) if s in sung]
        declarations, best = declare(order, lambda s: flor_points(deal[s]))
        winner = best % 2
        points = 3 * len(sung)
        if bet == "contraflor_al_resto":
            points += falta_points(state.rules, state.score)
        shown = [best]
    state.flor_queue = ()
    state.flor_answerer = NO_SEAT
    state.proofs = (*state.proofs, *(Shown(s, deal[s]) for s in shown))
    over = _award(state, winner, points)
    _emit(
        state,
        events,
        FlorSettled(sung, bet, outcome, winner, points, declarations, state.score),
    )
    if over:
        _game_cut_short(state, events)


_HANDLERS = {
    "play": _play,
    "truco": _truco,
    "retruco": _truco,
    "vale_cuatro": _truco,
    "quiero": _answer,
    "no_quiero": _answer,
    "mazo": _mazo,
    "envido": _envido,
    "real_envido": _envido,
    "falta_envido": _envido,
    "flor": _flor,
    "contraflor": _flor,
    "contraflor_al_resto": _flor,
    "con_flor_quiero": _flor,
    "con_flor_me_achico": _flor,
}


# ---------------------------------------------------------------- replay


def replay(
    rules: Rules | dict[str, Any] | None, seed: int, actions: Iterable[Action]
) -> tuple[State, list[Event]]:
    """Reproduce a game from (rules, seed, actions): the final state and every event."""
    state = new_game(rules, seed)
    events = initial_events(state)
    for action in actions:
        state, caused = apply(state, action)
        events.extend(caused)
    return state, events
