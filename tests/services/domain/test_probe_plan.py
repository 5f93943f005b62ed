"""Health probes scale down for idle bots and are capped per account (issue 21, break 9):
:func:`services.domain.probe_plan.plan_probes` driven round by round with a fake clock."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from services.domain.probe_plan import ProbeCandidate, ProbePolicy, due, plan_probes

T0 = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
POLICY = ProbePolicy(round_every_s=60, idle_every_s=3600, per_account_per_minute=20)


def _bot(bot_id: int, owner: int, *, busy: bool, checked: datetime | None = None) -> ProbeCandidate:
    return ProbeCandidate(bot_id, owner, f"http://127.0.0.1:9/{bot_id}", checked, busy)


class Fleet:
    """The bots' health columns as the database keeps them; each round probes the plan and
    records the checks a couple of seconds later (the answer's round trip)."""

    def __init__(self, bots: list[ProbeCandidate]) -> None:
        self.bots = {bot.bot_id: bot for bot in bots}
        self.probes: list[tuple[int, int]] = []  # (minute, bot id)

    def round(self, minute: int) -> list[ProbeCandidate]:
        now = T0 + timedelta(minutes=minute)
        planned = plan_probes(self.bots.values(), now, POLICY)
        for bot in planned:
            self.bots[bot.bot_id] = replace(bot, last_check_at=now + timedelta(seconds=2))
            self.probes.append((minute, bot.bot_id))
        return planned


def test_a_thousand_bots_of_one_account_get_a_bounded_number_of_probes_a_minute() -> None:
    big = [_bot(i, owner=1, busy=i < 100) for i in range(1000)]  # 100 of them busy
    small = [_bot(5000, owner=2, busy=True), _bot(5001, owner=2, busy=False)]
    fleet = Fleet(big + small)
    minutes = 180
    for minute in range(minutes):
        fleet.round(minute)

    owner_of = {bot_id: bot.owner_id for bot_id, bot in fleet.bots.items()}
    per_minute = Counter(minute for minute, bot in fleet.probes if owner_of[bot] == 1)
    assert max(per_minute.values()) == 20  # the cap, never more (was 1,000 a minute)
    assert sum(per_minute.values()) <= 20 * minutes
    # every one of the thousand was checked at least once (never-checked bots come first)
    assert {bot for _, bot in fleet.probes if owner_of[bot] == 1} == set(range(1000))
    # the other account is not starved: its busy bot every minute, its idle one hourly
    small_probes = Counter(bot for _, bot in fleet.probes if owner_of[bot] == 2)
    assert small_probes[5000] == minutes
    assert 3 <= small_probes[5001] <= 4  # minute 0, then about every hour (61 min with slack)


def test_busy_bots_are_probed_every_round_and_idle_ones_hourly() -> None:
    fleet = Fleet([_bot(1, owner=1, busy=True), _bot(2, owner=1, busy=False)])
    for minute in range(125):
        fleet.round(minute)
    busy = [minute for minute, bot in fleet.probes if bot == 1]
    idle = [minute for minute, bot in fleet.probes if bot == 2]
    assert busy == list(range(125))
    assert idle == [0, 61, 122]  # checked at +2 s, so an hour has passed one round later


def test_the_cap_favours_new_then_busy_then_the_longest_unchecked() -> None:
    now = T0
    old = now - timedelta(hours=5)
    older = now - timedelta(hours=6)
    candidates = [
        _bot(1, owner=1, busy=False, checked=old),
        _bot(2, owner=1, busy=True, checked=old),
        _bot(3, owner=1, busy=False, checked=None),
        _bot(4, owner=1, busy=False, checked=older),
    ]
    policy = ProbePolicy(round_every_s=60, idle_every_s=3600, per_account_per_minute=3)
    assert [c.bot_id for c in plan_probes(candidates, now, policy)] == [3, 2, 4]


def test_due() -> None:
    recent = T0 - timedelta(minutes=30)
    assert due(_bot(1, 1, busy=True, checked=recent), T0, POLICY)
    assert not due(_bot(1, 1, busy=False, checked=recent), T0, POLICY)
    assert due(_bot(1, 1, busy=False, checked=T0 - timedelta(hours=1)), T0, POLICY)
    assert due(_bot(1, 1, busy=False), T0, POLICY)
    # a round every 5 minutes keeps a minute's cap: 100 probes a round
    assert ProbePolicy(round_every_s=300, per_account_per_minute=20).per_account_per_round == 100
