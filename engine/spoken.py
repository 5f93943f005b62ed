"""The words of the game as players say them (the action words of docs/rules.md R-10, in Spanish).

``SAID`` is what a seat says aloud when it takes the action ("¡Quiero retruco!"); ``NAMED`` is
the bare name of the call or bet, for labels and timelines ("Retruco"). Narrations (the
command-line tool, the replay viewer) read both from here, so they never drift apart.
"""

from __future__ import annotations


def N_(words: str) -> str:
    """Marks ``words`` for the web pages' message catalogues (docs/translating.md), where a
    translation may adapt them to a region; here they stay as said."""
    return words


SAID: dict[str, str] = {
    "truco": N_("¡Truco!"),
    "retruco": N_("¡Quiero retruco!"),
    "vale_cuatro": N_("¡Quiero vale cuatro!"),
    "envido": N_("Envido."),
    "real_envido": N_("Real envido."),
    "falta_envido": N_("¡Falta envido!"),
    "flor": N_("¡Flor!"),
    "contraflor": N_("¡Contraflor!"),
    "contraflor_al_resto": N_("¡Contraflor al resto!"),
    "con_flor_quiero": N_("Con flor quiero."),
    "con_flor_me_achico": N_("Con flor me achico."),
    "quiero": N_("Quiero."),
    "no_quiero": N_("No quiero."),
    "mazo": N_("Me voy al mazo."),
}

NAMED: dict[str, str] = {
    "truco": N_("Truco"),
    "retruco": N_("Retruco"),
    "vale_cuatro": N_("Vale cuatro"),
    "envido": N_("Envido"),
    "real_envido": N_("Real envido"),
    "falta_envido": N_("Falta envido"),
    "flor": N_("Flor"),
    "contraflor": N_("Contraflor"),
    "contraflor_al_resto": N_("Contraflor al resto"),
    "con_flor_quiero": N_("Con flor quiero"),
    "con_flor_me_achico": N_("Con flor me achico"),
    "quiero": N_("Quiero"),
    "no_quiero": N_("No quiero"),
    "mazo": N_("Mazo"),
}


def said(word: str) -> str:
    """What a seat says for action ``word`` (the word itself when it is not a call)."""
    return SAID.get(word, word)


def named(word: str) -> str:
    """The name of call or bet ``word`` (the word itself when unknown)."""
    return NAMED.get(word, word)
