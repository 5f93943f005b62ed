"""Quotas on open challenges, so one account cannot flood the workers or another's bot.

An account may have at most ``per_account`` open challenges (pending, queued or running),
and a bot at most ``per_bot`` open challenges from other accounts. A challenge over either
is refused with :class:`QuotaExceeded` (the API answers 429 with ``Retry-After``). The
counts are taken under advisory locks in the transaction that inserts the match, so a burst
of concurrent challenges is admitted exactly up to the quota.

=====================================  =======  ==========================================
``TRUCO_OPEN_CHALLENGES_PER_ACCOUNT``  8        open challenges an account may have
``TRUCO_OPEN_CHALLENGES_PER_BOT``      4        open challenges a bot may receive from
                                                other accounts
=====================================  =======  ==========================================
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from services.db import challenges as db_challenges
from services.db.accounts import Connection
from services.flow.quota_check import Count, counted_check

RETRY_AFTER_S = 30
"""What a refused challenger is told to wait: open challenges end as their matches finish."""


class QuotaExceeded(Exception):
    """Too many open challenges; ``str()`` says which quota."""


def challenge_quota(
    account_id: int, target_bot_id: int, target_owner_id: int, per_account: int, per_bot: int
) -> Callable[[Connection], Awaitable[None]]:
    """A check to run in the challenge's transaction, before its match is inserted."""
    limits: list[tuple[Count, int, Exception]] = [
        (
            lambda conn: db_challenges.open_by_account(conn, account_id),
            per_account,
            QuotaExceeded(
                f"you have {per_account} open challenges, the most an account may have; "
                "wait for one to finish"
            ),
        )
    ]
    if target_owner_id != account_id:  # your own bots: only the account's quota
        limits.append(
            (
                lambda conn: db_challenges.open_against(conn, target_bot_id, target_owner_id),
                per_bot,
                QuotaExceeded(
                    f"bot {target_bot_id} already has {per_bot} open challenges from other "
                    "accounts, the most a bot may have; try again later"
                ),
            )
        )
    return counted_check(
        lambda conn: db_challenges.lock_challenges(conn, account_id, target_bot_id), limits
    )
