"""A complete Truco Arena bot: flor and envido by points, truco on two strong cards."""

import os

from arena.sdk import ActRequest, serve
from engine import Action, strength


def decide(req: ActRequest) -> Action:
    obs, words = req.observation, {a.action: a for a in req.legal_actions}
    strong = sum(strength(card) >= 10 for card in obs.cards)  # the threes and better
    if "flor" in words or "con_flor_quiero" in words:  # a flor must be sung; facing one: show
        return words.get("flor") or words["con_flor_quiero"]
    if "envido" in words and obs.envido_points >= 28:
        return words["envido"]
    if "quiero" in words:  # truco questions offer the mazo, envido ones do not
        good = strong >= 1 if "mazo" in words else obs.envido_points >= 27
        return words["quiero" if good else "no_quiero"]
    if "truco" in words and strong >= 2:
        return Action("truco", say="¡Truco!")  # any answer may carry a say (and, in 2v2, a sena)
    table = [strength(card) for _, card in obs.rounds[-1]]  # the round being played
    mine = sorted(obs.cards, key=strength)
    winners = [card for card in mine if strength(card) > max(table, default=99)]
    return Action("play", (winners or mine)[0])  # the cheapest winner, else the weakest


if __name__ == "__main__":
    port = int(os.environ.get("PORT", "8080"))
    serve(decide, name="example", port=port, secret=os.environ.get("TRUCO_BOT_SECRET"))
