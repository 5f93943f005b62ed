"""A bot's luck so far (docs/luck.md): what its cards were worth over every match whose stored
result has luck figures (``match_results.result -> 'luck'``), summed on its side."""

from __future__ import annotations

from dataclasses import dataclass

from services.db.accounts import Executor


@dataclass(frozen=True, slots=True)
class BotLuck:
    """Over ``matches`` matches: the bot's side's luck in tantos and in games' chance, and
    the games it won of those decided."""

    matches: int
    tantos: float
    win: float
    won: int
    games: int

    @property
    def adjusted_won(self) -> float:
        """The games won minus the luck: what the cards alone do not explain."""
        return self.won - self.win


async def bot_luck(conn: Executor, bot_id: int) -> BotLuck:
    """The bot's luck over its matches with luck figures (all zero when it has none)."""
    row = await conn.fetchrow(
        "SELECT count(*) AS matches, "
        "  coalesce(sum(CASE e.side WHEN 0 THEN 1 ELSE -1 END "
        "    * (r.result -> 'luck' ->> 'tantos')::float8), 0) AS tantos, "
        "  coalesce(sum(CASE e.side WHEN 0 THEN 1 ELSE -1 END "
        "    * (r.result -> 'luck' ->> 'win')::float8), 0) AS win, "
        "  coalesce(sum((r.result -> 'games_won' ->> e.side::int)::int), 0) AS won, "
        "  coalesce(sum((r.result -> 'games_won' ->> 0)::int "
        "    + (r.result -> 'games_won' ->> 1)::int), 0) AS games "
        "FROM match_entrants e JOIN match_results r ON r.match_id = e.match_id "
        "WHERE e.bot_id = $1 AND r.result ? 'luck'",
        bot_id,
    )
    assert row is not None
    return BotLuck(
        matches=int(row["matches"]),
        tantos=float(row["tantos"]),
        win=float(row["win"]),
        won=int(row["won"]),
        games=int(row["games"]),
    )
