"""Quotas on running SPRT tests, so one account, or many, cannot flood the workers or a bot.

A test keeps at most its ``concurrency`` pairs (at most :data:`services.domain.sprt_runs.MAX_CONCURRENCY`) in play, so
the quotas bound the matches tests put on the workers: an account may have at most
``per_account`` running tests, and a bot may be bot B of at most ``per_bot`` running tests of
other accounts than its owner (the flood of many accounts against one open bot). The two
numbers are settings (``services.base.config.SprtQuota``: ``TRUCO_RUNNING_TESTS_PER_ACCOUNT`` and
``TRUCO_RUNNING_TESTS_PER_BOT``, docs/settings.md). Counted under advisory locks in the
creating transaction, as ``services.flow.challenge_quota`` does, so a burst is admitted exactly up
to the quota; over it the API answers 429 with ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from services.db import sprt_tests as db_sprt
from services.db.accounts import Connection
from services.flow.quota_check import Count, counted_check

RETRY_AFTER_S: Final = 60
"""What a refused caller is told to wait: running tests end as they decide."""


class SprtQuotaExceeded(Exception):
    """Too many running tests; ``str()`` says which quota."""


def sprt_quota(
    account_id: int,
    bot_b: int,
    bot_b_owner: int,
    *,
    per_account: int,
    per_bot: int,
) -> Callable[[Connection], Awaitable[None]]:
    """A check to run in the test's transaction, before the test is inserted."""
    limits: list[tuple[Count, int, Exception]] = [
        (
            lambda conn: db_sprt.running_by_owner(conn, account_id),
            per_account,
            SprtQuotaExceeded(
                f"you have {per_account} running tests, the most an account may have; wait "
                "for one to finish or cancel one"
            ),
        )
    ]
    if bot_b_owner != account_id:
        limits.append(
            (
                lambda conn: db_sprt.running_against(conn, bot_b, bot_b_owner),
                per_bot,
                SprtQuotaExceeded(
                    f"bot {bot_b} is already bot B of {per_bot} running tests of other "
                    "accounts, the most a bot may be; try again later"
                ),
            )
        )
    return counted_check(lambda conn: db_sprt.lock_tests(conn, account_id, bot_b), limits)
