"""A replay as it travels from the bot-calling worker and as it is stored: its JSON document,
zlib-compressed once, by the worker that played it.

The worker packs the replay (:func:`pack`) and sends those bytes in ``truco.store_result``; the
trusted worker unpacks them (:func:`unpack`, bounded: a message cannot make it inflate more than
:data:`MAX_REPLAY_BYTES`), decodes and verifies the replay, and stores the very bytes it received
(``replays.data``, compression ``zlib``). No JSON text inside the message's JSON, and nothing
encoded or compressed twice.
"""

from __future__ import annotations

import zlib
from typing import Final

import msgspec

from arena.match.replay import Replay

LEVEL: Final = 6
MAX_REPLAY_BYTES: Final = 64 * 1024 * 1024
"""The largest replay document (uncompressed) the trusted worker inflates: a match of 100 games
to 30 points is a few MB; a message claiming more is refused before it takes the memory."""


class TooLarge(ValueError):
    """The packed bytes inflate past the limit (or are not zlib data)."""


class PackedReplay(msgspec.Struct, frozen=True):
    """A replay's JSON document, zlib-compressed (``data``), and the document's size."""

    data: bytes
    size: int


def pack_document(document: bytes) -> PackedReplay:
    return PackedReplay(zlib.compress(document, LEVEL), len(document))


def pack(replay: Replay) -> PackedReplay:
    """The replay encoded once and compressed once."""
    return pack_document(msgspec.json.encode(replay))


def unpack(data: bytes, limit: int | None = None) -> bytes:
    """The JSON document of packed bytes; :class:`TooLarge` past ``limit`` bytes (by default
    :data:`MAX_REPLAY_BYTES`) or if the bytes are not one complete zlib stream."""
    limit = MAX_REPLAY_BYTES if limit is None else limit
    inflater = zlib.decompressobj()
    try:
        document = inflater.decompress(data, limit)
    except zlib.error as exc:
        raise TooLarge(f"not zlib data: {exc}") from None
    if inflater.unconsumed_tail:
        raise TooLarge(f"the replay inflates past {limit} bytes")
    if not inflater.eof or inflater.unused_data:
        raise TooLarge("not one complete zlib stream")
    return document
