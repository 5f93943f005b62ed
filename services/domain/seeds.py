"""Match seeds nobody chose: a committed master seed per event, every match seed derived from it.

Scheme ``truco-arena/seeds/v1`` (explained for spectators in docs/verify.md):

* **Master seed**: 32 bytes from the operating system (:func:`secrets.token_bytes`), drawn when
  a tournament (or a challenge) is created, and kept secret until it is over.
* **Commitment**: ``SHA-256("truco-arena/commitment/v1:" || master seed)`` in hex, published
  from creation on. Once the master seed is revealed anyone can recompute it; finding another
  master seed with the same commitment would break SHA-256.
* **Match seed** (63 bits, the engine's integer seed): the first 8 bytes, big-endian, shifted
  right by one, of ``HMAC-SHA256(key = master seed, message = identity)`` where the identity is
  ``truco-arena/match/v1/{tournament id}/{round}/{board}/{bracket match or -}`` for a tournament
  match and ``truco-arena/challenge/v1/{bot a}/{bot b}`` for a challenge, and
  ``truco-arena/ladder/v1/{pool}/{day}/{number}/{bots in slot order}`` for the ``number``-th
  ladder match of a ladder day, whose master seed is the day's (committed when the day's first
  match is made, revealed once the day is over and its matches have stopped). The identity is the
  match's place in the event, fixed by the pairing, never a database id the platform could skip.
  Knowing one match seed tells nothing about the master seed or any other match's seed.
* **Game seeds** below it: :func:`arena.game.deals.game_seed` of the match seed and the attempt (a
  match begun again after a crash is dealt afresh; attempt 0 is the derivation it always was,
  and the attempt is in the replay and the export).

Rows stored before this scheme (migration 0008) keep the random seed they were played with and
are marked :data:`LEGACY`: nothing can prove how those seeds were chosen.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final, Literal

SCHEME: Final = "truco-arena/seeds/v1"
COMMITMENT_PREFIX: Final = b"truco-arena/commitment/v1:"
MASTER_SEED_BYTES: Final = 32
MATCH_SEED_BITS: Final = 63  # fits PostgreSQL's bigint

SeedScheme = Literal["derived-v1", "legacy"]
DERIVED: Final = "derived-v1"
LEGACY: Final = "legacy"
SEED_SCHEMES: tuple[str, ...] = (DERIVED, LEGACY)


def new_master_seed() -> bytes:
    """A fresh 256-bit master seed from the operating system's random source."""
    return secrets.token_bytes(MASTER_SEED_BYTES)


def commitment(master_seed: bytes) -> str:
    """The published commitment to ``master_seed`` (64 hex digits)."""
    return hashlib.sha256(COMMITMENT_PREFIX + master_seed).hexdigest()


def match_identity(tournament_id: int, round: int, board: int, bracket_match: str | None) -> str:
    """The HMAC message of a tournament match: its place in the event."""
    return f"truco-arena/match/v1/{tournament_id}/{round}/{board}/{bracket_match or '-'}"


def challenge_identity(bot_a: int, bot_b: int) -> str:
    """The HMAC message of a challenge (side 0's bot first)."""
    return f"truco-arena/challenge/v1/{bot_a}/{bot_b}"


def ladder_identity(pool: str, day: str, number: int, seats: tuple[int, ...]) -> str:
    """The HMAC message of a ladder match: its pool, its day (``YYYY-MM-DD``, UTC), its number
    in the day and its bots in slot order (``-`` between them)."""
    return f"truco-arena/ladder/v1/{pool}/{day}/{number}/{'-'.join(map(str, seats))}"


def ladder_seed(
    master_seed: bytes, pool: str, day: str, number: int, seats: tuple[int, ...]
) -> int:
    return derive_seed(master_seed, ladder_identity(pool, day, number, seats))


def derive_seed(master_seed: bytes, identity: str) -> int:
    """The match seed for ``identity`` under ``master_seed``."""
    digest = hmac.new(master_seed, identity.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - MATCH_SEED_BITS)


def tournament_match_seed(
    master_seed: bytes, tournament_id: int, round: int, board: int, bracket_match: str | None
) -> int:
    return derive_seed(master_seed, match_identity(tournament_id, round, board, bracket_match))


def challenge_seed(master_seed: bytes, bot_a: int, bot_b: int) -> int:
    return derive_seed(master_seed, challenge_identity(bot_a, bot_b))


def parse_master_seed(text: str) -> bytes:
    """A revealed master seed from its hex; ValueError unless it is 32 bytes of hex."""
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise ValueError("the master seed is not hexadecimal") from None
    if len(raw) != MASTER_SEED_BYTES:
        raise ValueError(f"the master seed has {len(raw)} bytes, not {MASTER_SEED_BYTES}")
    return raw
