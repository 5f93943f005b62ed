"""The limits of ``/v1/play``, in one module (issue 33, 9; issue 37: the sessions left the API
process for the workers, and their caps are counted in Redis, across every API process).

* **Starts**: ``TRUCO_PLAY_STARTS_PER_HOUR`` per client address (IPv6 per /64), counted in
  ``play_matches`` under a keyed digest of the address (no address is stored).
* **At once**: ``TRUCO_PLAY_PER_ADDRESS`` sessions per client address and ``TRUCO_PLAY_TOTAL``
  on the whole platform, counted in Redis (:meth:`services.play.store.PlayStore.admit`: sorted
  sets scored by each session's lease), held until the session ends, and given back within a
  lease if its worker dies (the sweeper ends it).
* **Time**: each decision has ``TRUCO_PLAY_CLOCK_S``, and each game ``TRUCO_PLAY_BANK_S`` of the
  person's thinking time in all (:class:`~arena.match.human.HumanSeat`'s bank): an answer just
  before each clock no longer holds a session for a whole match, so a session lasts at most
  its games' banks of the person's time (15 minutes for three games) and then forfeits.

Why these numbers (docs/play.md): 50 addresses x 2 sessions reached the old per-process cap of
100, and each could be held for an hour and more. A session waiting on a person costs memory
only (about 34 KiB, on the bot-calling worker that plays it) and CPU only when it acts (a
request, under the API's budgets), so the total is 1,000 (34 MiB); held sessions now end within
their banks, so keeping the platform full takes 500 addresses that act on time and start again
every game.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime, timedelta
from typing import Final

import asyncpg

from services.api.problems import ProblemError
from services.base.config import PlaySettings, Secret
from services.db import play_matches as db_play
from services.play.store import PlayStore

HOUR: Final = timedelta(hours=1)


def address_key(secret: Secret, address: str) -> bytes:
    """The keyed digest an address's starts are counted under (HMAC-SHA-256, the secret key)."""
    key = secret.reveal().encode()
    return hmac.new(key, b"play-address:" + address.encode(), hashlib.sha256).digest()


async def admit(
    pool: asyncpg.Pool, store: PlayStore, limits: PlaySettings, digest: str, key: bytes
) -> str:
    """A new session's reservation for the address whose digest is ``key`` (``digest`` in
    hex), or the 429 problem."""
    since = datetime.now(UTC) - HOUR
    if await db_play.starts_since(pool, key, since) >= limits.starts_per_hour:
        raise ProblemError(
            429,
            f"at most {limits.starts_per_hour} play sessions an hour from one address",
            slug="too-many-play-sessions",
            headers={"Retry-After": "600"},
        )
    refused, reservation = await store.admit(digest, limits.per_address, limits.total)
    if refused:
        raise ProblemError(
            429,
            "too many play sessions going on (from this address or on this server); "
            "finish or leave one first",
            slug="too-many-play-sessions",
            headers={"Retry-After": "60"},
        )
    return reservation
