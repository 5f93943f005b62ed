"""A text picture of a game for ``render_mode="ansi"`` (every seat's cards: a debugging view)."""

from __future__ import annotations

from engine import State


def render_text(state: State) -> str:
    lines = [f"hand {state.hand}  score {state.score[0]}-{state.score[1]}  mano seat {state.mano}"]
    for seat, cards in enumerate(state.cards):
        marker = "*" if seat == state.to_act else " "
        lines.append(f"{marker} seat {seat} (team {seat % 2}): {' '.join(cards) or '-'}")
    table = " ".join(f"{seat}:{card}" for seat, card in state.trick)
    lines.append(f"  table: {table or '-'}")
    if state.game_over:
        lines.append(f"  game over: team {state.winner} wins")
    return "\n".join(lines)
