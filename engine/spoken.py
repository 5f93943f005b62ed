"""The words of the game as players say them (the action words of docs/rules.md R-10, in Spanish).

``SAID`` is what a seat says aloud when it takes the action ("¡Quiero retruco!"); ``NAMED`` is
the bare name of the call or bet, for labels and timelines ("Retruco"). Narrations (the
command-line tool, the replay viewer) read both from here, so they never drift apart.
"""

from __future__ import annotations

SAID: dict[str, str] = {
    "truco": "¡Truco!",
    "retruco": "¡Quiero retruco!",
    "vale_cuatro": "¡Quiero vale cuatro!",
    "envido": "Envido.",
    "real_envido": "Real envido.",
    "falta_envido": "¡Falta envido!",
    "flor": "¡Flor!",
    "contraflor": "¡Contraflor!",
    "contraflor_al_resto": "¡Contraflor al resto!",
    "con_flor_quiero": "Con flor quiero.",
    "con_flor_me_achico": "Con flor me achico.",
    "quiero": "Quiero.",
    "no_quiero": "No quiero.",
    "mazo": "Me voy al mazo.",
}

NAMED: dict[str, str] = {
    "truco": "Truco",
    "retruco": "Retruco",
    "vale_cuatro": "Vale cuatro",
    "envido": "Envido",
    "real_envido": "Real envido",
    "falta_envido": "Falta envido",
    "flor": "Flor",
    "contraflor": "Contraflor",
    "contraflor_al_resto": "Contraflor al resto",
    "con_flor_quiero": "Con flor quiero",
    "con_flor_me_achico": "Con flor me achico",
    "quiero": "Quiero",
    "no_quiero": "No quiero",
    "mazo": "Mazo",
}


def said(word: str) -> str:
    """What a seat says for action ``word`` (the word itself when it is not a call)."""
    return SAID.get(word, word)


def named(word: str) -> str:
    """The name of call or bet ``word`` (the word itself when unknown)."""
    return NAMED.get(word, word)
