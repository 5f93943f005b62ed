"""A bracket as `truco tournament show` and `watch` print it: every match named as the
tournament page names it ("Semi-final 2", "Winners final", "Losers round 1, match 2", from
the API's ``bracket``: ``name``, ``round_name``), and the byes, which the platform decides
without a match (so no round of ``rounds`` lists them): "Quarter-final 1: my-bot has a bye"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Bye:
    round: int  # the platform's round it belongs to (the bracket match's depth)
    code: str  # W1-1
    line: str  # "Quarter-final 1: my-bot has a bye"


def _bracket(detail: Mapping[str, Any]) -> list[dict[str, Any]]:
    bracket = detail.get("bracket")
    return list(bracket.get("matches") or []) if isinstance(bracket, Mapping) else []


def match_names(detail: Mapping[str, Any]) -> dict[str, str]:
    """Each bracket match's name by its code (``W1-2``: "Semi-final 2"); empty for a table
    format, or a platform that sends no names."""
    return {m["code"]: m["name"] for m in _bracket(detail) if m.get("name")}


def byes(detail: Mapping[str, Any]) -> list[Bye]:
    """The bracket's byes, in bracket order: a match with one side empty, whose other side
    goes through without playing."""
    names = {row["bot_id"]: row["name"] for row in detail.get("standings") or []}
    found = []
    for match in _bracket(detail):
        a, b = match.get("a") or {}, match.get("b") or {}
        if match.get("match_id") is not None or a.get("bye") == b.get("bye"):
            continue  # played, or not a bye (two byes: nobody; none: still to play)
        through = b if a.get("bye") else a
        bot = through.get("bot_id")
        if bot is None:  # the side is the winner or loser of a match not decided yet
            continue
        who = names.get(bot, f"bot {bot}")
        title = match.get("name") or match["code"]
        found.append(Bye(int(match["round"]), match["code"], f"{title}: {who} has a bye"))
    return found


def labelled(match: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """``match 5`` or, for a bracket match, ``match 5 (Winners semi-final 1)``."""
    name = names.get(match.get("bracket_match") or "")
    return f"match {match['id']}" + (f" ({name})" if name else "")
