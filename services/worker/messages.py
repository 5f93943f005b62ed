"""The arguments of the health probes' tasks, as they travel (JSON). No database types here.
A match's order is :class:`services.domain.match_order.MatchOrder`, one struct for the sender
and the worker."""

from __future__ import annotations

import msgspec


class ProbeTarget(msgspec.Struct, frozen=True):
    bot_id: int
    url: str


class ProbeOutcome(msgspec.Struct, frozen=True):
    bot_id: int
    ok: bool
    error: str | None = None
