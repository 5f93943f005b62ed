"""The asyncpg pool, with json/jsonb handled by msgspec.

Pass Python values (dicts, lists, msgspec Structs) for json/jsonb parameters and get plain
Python values back: no ``json.dumps`` at call sites. A ``str`` is stored as a JSON string,
not parsed as JSON text.
"""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

_JSONB_VERSION = b"\x01"  # jsonb's binary wire format: a version byte, then JSON text
_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


def encode_jsonb(value: Any) -> bytes:
    return _JSONB_VERSION + _encoder.encode(value)


def decode_jsonb(data: bytes) -> Any:
    if data[:1] != _JSONB_VERSION:
        raise ValueError(f"unexpected jsonb format version {data[:1]!r}")
    return _decoder.decode(data[1:])


def encode_json(value: Any) -> str:
    return _encoder.encode(value).decode()


def decode_json(text: str) -> Any:
    return _decoder.decode(text)


async def init_connection(conn: asyncpg.Connection) -> None:
    """Install the msgspec codecs on one connection (the pool runs this for each)."""
    await conn.set_type_codec(
        "jsonb",
        schema="pg_catalog",
        encoder=encode_jsonb,
        decoder=decode_jsonb,
        format="binary",
    )
    await conn.set_type_codec(
        "json",
        schema="pg_catalog",
        encoder=encode_json,
        decoder=decode_json,
        format="text",
    )


async def connect(url: str, **kwargs: Any) -> asyncpg.Connection:
    """One connection with the same codecs as the pool's (scripts, tests, migrations)."""
    conn: asyncpg.Connection = await asyncpg.connect(url, **kwargs)
    await init_connection(conn)
    return conn


async def create_pool(
    url: str,
    *,
    min_size: int = 1,
    max_size: int = 10,
    command_timeout: float | None = 30.0,
    **kwargs: Any,
) -> asyncpg.Pool:
    """Open a pool on ``url``; close it with ``await pool.close()`` (the app's lifespan)."""
    if min_size < 0 or max_size < 1 or min_size > max_size:
        raise ValueError(f"bad pool size: min_size={min_size}, max_size={max_size}")
    pool: asyncpg.Pool = await asyncpg.create_pool(
        url,
        min_size=min_size,
        max_size=max_size,
        command_timeout=command_timeout,
        init=init_connection,
        **kwargs,
    )
    return pool
