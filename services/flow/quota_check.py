"""A quota counted under advisory locks in the inserting transaction.

Challenges (``services.flow.challenge_quota``) and SPRT tests (``services.flow.sprt_quota``) both bound
what an account may have open and what a bot may receive from other accounts: the check takes
the locks first, so concurrent requests cannot all see the same count, then refuses with the
first limit whose count has reached its most.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from services.db.accounts import Connection

Check = Callable[[Connection], Awaitable[None]]
Count = Callable[[Connection], Awaitable[int]]


def counted_check(lock: Check, limits: Sequence[tuple[Count, int, Exception]]) -> Check:
    """A check for the inserting transaction: ``lock(conn)``, then for each
    ``(count, most, refusal)`` in order, raise ``refusal`` when ``count(conn) >= most``."""

    async def check(conn: Connection) -> None:
        await lock(conn)
        for count, most, refusal in limits:
            if await count(conn) >= most:
                raise refusal

    return check
