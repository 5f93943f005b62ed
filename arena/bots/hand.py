"""Reading a hand from one seat's observation: which card to play and how likely the hand is won.

Everything here is pure and uses only what the seat may know (R-11): its own cards, the cards
played so far and the round results. The estimate treats each remaining round as an independent
duel between one of our cards and an unseen card; rough, but cheap and good enough to bet on.
"""

from __future__ import annotations

from engine import Observation
from engine.cards import DECK, STRENGTH, Card
from engine.scoring import hand_decided


def played_cards(obs: Observation) -> list[tuple[int, Card]]:
    """Every (seat, card) played this hand, the current round included."""
    return [play for trick in obs.rounds for play in trick]


def own_hand(obs: Observation) -> tuple[Card, ...]:
    """The seat's three cards of this hand: the unplayed ones plus the ones it already played."""
    mine = [card for seat, card in played_cards(obs) if seat == obs.seat]
    return (*obs.cards, *mine)


def unseen_cards(obs: Observation) -> list[Card]:
    """Cards this seat has not seen: the deck minus its own hand and every card played."""
    seen = set(own_hand(obs)) | {card for _, card in played_cards(obs)}
    return [card for card in DECK if card not in seen]


def current_trick(obs: Observation) -> tuple[tuple[int, Card], ...]:
    """The plays of the round in progress (empty when leading it)."""
    if obs.game_over or len(obs.rounds) <= obs.round:
        return ()
    return obs.rounds[obs.round]


def beat_chance(card: Card, unseen: list[Card]) -> float:
    """Chance the card beats one unseen card (a tie counts half)."""
    if not unseen:
        return 1.0
    mine = STRENGTH[card]
    score = 0.0
    for other in unseen:
        theirs = STRENGTH[other]
        score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return score / len(unseen)


def by_strength(cards: tuple[Card, ...] | list[Card]) -> list[Card]:
    """Weakest first (ties keep their order)."""
    return sorted(cards, key=STRENGTH.__getitem__)


def _trick_bests(obs: Observation) -> tuple[int, int]:
    """Best strength played this round by our team and by the other team (0 if none)."""
    ours = theirs = 0
    for seat, card in current_trick(obs):
        if seat % 2 == obs.team:
            ours = max(ours, STRENGTH[card])
        else:
            theirs = max(theirs, STRENGTH[card])
    return ours, theirs


def choose_card(obs: Observation) -> Card:
    """The card to play now: win the round cheaply, else throw the weakest; lead by the rounds."""
    cards = by_strength(obs.cards)
    trick = current_trick(obs)
    if trick:
        ours, theirs = _trick_bests(obs)
        if ours > theirs:
            return cards[0]  # the team already wins the round: keep the good cards
        winners = [c for c in cards if STRENGTH[c] > theirs]
        if winners:
            return winners[0]
        won_first = obs.round_winners[:1] == (obs.team,)
        ties = [c for c in cards if STRENGTH[c] == theirs]
        if ties and (won_first or obs.round == 2):
            return ties[0]  # a parda after winning round 1 wins the hand
        return cards[0]
    if obs.round == 0 and len(cards) == 3:
        return cards[1]  # lead round 1 with the middle card, keep the best for later
    return cards[-1]  # lead strong after round 1, whatever it gave


def _round_chance(obs: Observation, card: Card | None, unseen: list[Card]) -> float:
    """Chance our team wins the current round, playing ``card`` (None: already played)."""
    ours, theirs = _trick_bests(obs)
    if card is not None:
        ours = max(ours, STRENGTH[card])
    opponents = obs.players // 2
    played_opp = sum(1 for seat, _ in current_trick(obs) if seat % 2 != obs.team)
    left = opponents - played_opp
    if ours < theirs:
        return 0.0
    base = 0.5 if ours == theirs else 1.0
    if left <= 0:
        return base
    below = sum(1 for c in unseen if STRENGTH[c] < ours) + 0.5 * sum(
        1 for c in unseen if STRENGTH[c] == ours
    )
    return base * (below / max(len(unseen), 1)) ** left


def win_chance(obs: Observation) -> float:
    """Estimated chance that our team wins the hand's rounds from this position."""
    unseen = unseen_cards(obs)
    results = [-1 if w is None else w for w in obs.round_winners]
    played_now = any(seat == obs.seat for seat, _ in current_trick(obs))
    rest = list(obs.cards)
    chances: list[float] = []
    if played_now:
        chances.append(_round_chance(obs, None, unseen))
    elif rest:
        card = choose_card(obs)
        rest.remove(card)
        chances.append(_round_chance(obs, card, unseen))
    chances.extend(beat_chance(c, unseen) for c in reversed(by_strength(rest)))
    return _combine(results, chances, obs.team, obs.mano % 2)


def _combine(results: list[int], chances: list[float], team: int, mano_team: int) -> float:
    """Chance ``team`` wins the hand, given finished results and per-round win chances."""
    decided = hand_decided(results, mano_team)
    if decided is not None:
        return 1.0 if decided == team else 0.0
    if not chances:
        return 0.5
    first, rest = chances[0], chances[1:]
    win = _combine([*results, team], rest, team, mano_team)
    lose = _combine([*results, 1 - team], rest, team, mano_team)
    return first * win + (1.0 - first) * lose
