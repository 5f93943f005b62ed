"""Which bots a round of health probes calls (issue 21, break 9).

Every bot used to be probed every minute: 1,000 bots of one account meant 1,000 probes a
minute on that account's behalf. Now:

* a **busy** bot (in a registering or running tournament, on a ladder, in a running SPRT test,
  or with a match in the last day) is probed every round (``busy_every_s``, a minute);
* an **idle** bot (none of these) only every ``idle_every_s`` (an hour);
* a bot never checked yet is due at once (a ladder gives matches only to answered bots);
* each account has at most ``per_account_per_minute`` probes a minute (scaled to the round's
  period): its never-checked bots first, then busy bots, then the longest unchecked.

Pure: the clock is an argument, so the plan is tested with a fake one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class ProbePolicy:
    round_every_s: float = 60.0
    """How often a round runs (beat's period); a busy bot is due every round."""
    idle_every_s: float = 3600.0
    per_account_per_minute: int = 20

    @property
    def per_account_per_round(self) -> int:
        return max(1, math.floor(self.per_account_per_minute * self.round_every_s / 60.0))


@dataclass(frozen=True, slots=True)
class ProbeCandidate:
    bot_id: int
    owner_id: int
    url: str
    last_check_at: datetime | None
    busy: bool


def due(candidate: ProbeCandidate, now: datetime, policy: ProbePolicy) -> bool:
    """Whether the bot's last check is old enough for its kind (busy or idle)."""
    if candidate.last_check_at is None:
        return True
    # a little slack: a round that comes a moment early still probes the busy bots
    every = policy.round_every_s * 0.9 if candidate.busy else policy.idle_every_s
    return (now - candidate.last_check_at).total_seconds() >= every


def _urgency(candidate: ProbeCandidate) -> tuple[bool, bool, float]:
    checked = candidate.last_check_at
    return (checked is not None, not candidate.busy, checked.timestamp() if checked else 0.0)


def plan_probes(
    candidates: Iterable[ProbeCandidate], now: datetime, policy: ProbePolicy
) -> list[ProbeCandidate]:
    """The due candidates to probe this round, at most ``per_account_per_round`` per account,
    most urgent first."""
    chosen: list[ProbeCandidate] = []
    per_owner: dict[int, int] = {}
    cap = policy.per_account_per_round
    for candidate in sorted((c for c in candidates if due(c, now, policy)), key=_urgency):
        taken = per_owner.get(candidate.owner_id, 0)
        if taken >= cap:
            continue
        per_owner[candidate.owner_id] = taken + 1
        chosen.append(candidate)
    return chosen
