"""Which attempt at a match this is: a counter per match in Redis, counted when play begins.

A match can begin more than once: the broker hands a killed worker's message out again, the
recovery sweeper sends a stale match again, a bot-calling node holds a message past its
threshold. Each beginning takes the next number (``INCR``, so two workers never share one) and
the match is dealt from it (:mod:`arena.deals`: attempt 0 as always, every later attempt
afresh), so nobody who saw an earlier attempt knows the cards of the next. The number is in the
replay, and the verifier derives the deals from it. A counter lives :data:`TTL_S`, longer than
any match can wait to be played again. It is keyed by the match's id and its seed, so a
database started afresh beside an old Redis (ids used again, new seeds) begins at 0.
"""

from __future__ import annotations

from typing import Final, cast

import redis

TTL_S: Final = 7 * 86400


def attempts_key(prefix: str, match_id: int, seed: int) -> str:
    return f"{prefix}match:{match_id}:{seed}:attempts"


def next_attempt(client: redis.Redis, prefix: str, match_id: int, seed: int) -> int:
    """The number of this beginning of match ``match_id`` (with ``seed``): 0 the first time,
    then 1, 2, ..."""
    key = attempts_key(prefix, match_id, seed)
    pipe = client.pipeline(transaction=True)
    pipe.incr(key)
    pipe.expire(key, TTL_S)
    begun, _ = cast(list[int], pipe.execute())
    return int(begun) - 1
