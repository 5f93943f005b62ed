"""Which actions the seat to act may take now (R-5 to R-8, R-10)."""

from __future__ import annotations

from engine.actions import PLAY_ACTIONS, TRUCO_WORDS, WORD_ACTIONS, Action
from engine.state import State

_A = WORD_ACTIONS
FLOR_ONLY = [_A["flor"]]
FIRST_FLOR_ANSWERS = [
    _A["flor"],
    _A["con_flor_quiero"],
    _A["con_flor_me_achico"],
    _A["contraflor"],
    _A["contraflor_al_resto"],
]
CONTRAFLOR_ANSWERS = [_A["con_flor_quiero"], _A["con_flor_me_achico"], _A["contraflor_al_resto"]]
AL_RESTO_ANSWERS = [_A["con_flor_quiero"], _A["con_flor_me_achico"]]
ENVIDO_CANTOS = [_A["envido"], _A["real_envido"], _A["falta_envido"]]
QUIERO = _A["quiero"]
NO_QUIERO = _A["no_quiero"]
MAZO = _A["mazo"]
TRUCO_ACTIONS = [_A[word] for word in TRUCO_WORDS]


def envido_raises(chain: tuple[str, ...]) -> list[Action]:
    """Raises allowed after an envido chain: E, E E, R, E R, E E R, each then F; or F alone."""
    raises = []
    if "real_envido" not in chain and "falta_envido" not in chain:
        if len(chain) < 2:  # chain is () or ("envido",)
            raises.append(_A["envido"])
        raises.append(_A["real_envido"])
    if "falta_envido" not in chain:
        raises.append(_A["falta_envido"])
    return raises


def can_sing_envido(state: State, seat: int) -> bool:
    """R-6: round 1, before the seat's first card, nothing of envido or flor sung this hand,
    and no truco answered yet (a raise counts as an answer)."""
    return (
        state.round == 0
        and len(state.cards[seat]) == 3
        and not state.envido_chain
        and not state.flor_sung
        and state.truco == 0
    )


def must_sing_flor(state: State, seat: int) -> bool:
    return seat in state.flor_holders and seat not in state.flor_sung


def legal_actions(state: State) -> list[Action]:
    """Every legal action of the seat to act, each card a separate ``play``. Empty when the
    game is over. The list is new; its Action values are shared and immutable."""
    if state.game_over:
        return []
    if state.flor_queue:
        seat = state.flor_queue[0]
        if seat == state.flor_first_opp and not state.flor_answered:
            return list(FIRST_FLOR_ANSWERS)
        return list(FLOR_ONLY)
    if state.flor_answerer >= 0:
        return list(CONTRAFLOR_ANSWERS if state.flor_bet == "contraflor" else AL_RESTO_ANSWERS)
    seat = state.to_act
    if state.flor_holders and must_sing_flor(state, seat):
        return list(FLOR_ONLY)
    if state.envido_answerer >= 0:
        return [QUIERO, NO_QUIERO, *envido_raises(state.envido_chain)]
    if state.truco_answerer >= 0:
        actions = [QUIERO, NO_QUIERO]
        if state.truco_pending < 3:
            actions.append(TRUCO_ACTIONS[state.truco_pending])
        actions.append(MAZO)
        if can_sing_envido(state, seat):
            actions.extend(ENVIDO_CANTOS)
        return actions
    actions = [PLAY_ACTIONS[card] for card in state.cards[seat]]
    level = state.truco
    if level == 0 or (level < 3 and state.truco_team == seat % 2):
        actions.append(TRUCO_ACTIONS[level])
    if can_sing_envido(state, seat):
        actions.extend(ENVIDO_CANTOS)
    actions.append(MAZO)
    return actions
