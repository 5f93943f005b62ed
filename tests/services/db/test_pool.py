"""The asyncpg pool and its msgspec json/jsonb codecs."""

from __future__ import annotations

import msgspec
import pytest

from services.db.pool import connect, create_pool, decode_jsonb, encode_jsonb

pytestmark = pytest.mark.anyio


class Rules(msgspec.Struct):
    points: int
    flor: bool


def test_jsonb_wire_format_has_a_version_byte() -> None:
    assert encode_jsonb({"a": 1}) == b'\x01{"a":1}'
    assert decode_jsonb(b'\x01{"a":[1,2]}') == {"a": [1, 2]}
    with pytest.raises(ValueError, match="format version"):
        decode_jsonb(b'\x02{"a":1}')


async def test_pool_round_trips_json_and_structs(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=2)
    try:
        async with pool.acquire() as conn:
            value = await conn.fetchval("SELECT $1::jsonb", {"games": [{"score": [30, 12]}]})
            assert value == {"games": [{"score": [30, 12]}]}
            stored = await conn.fetchval("SELECT $1::jsonb", Rules(points=30, flor=True))
            assert msgspec.convert(stored, Rules) == Rules(points=30, flor=True)
            # jsonb operators still see a real document, not a string
            assert await conn.fetchval("SELECT ($1::jsonb)->>'points'", {"points": 15}) == "15"
            assert await conn.fetchval("SELECT $1::json", [1, "dos"]) == [1, "dos"]
            assert await conn.fetchval("SELECT '\"texto\"'::jsonb") == "texto"
    finally:
        await pool.close()


async def test_single_connection_has_the_same_codecs(database_url: str) -> None:
    conn = await connect(database_url)
    try:
        assert await conn.fetchval("SELECT jsonb_build_object('k', 1)") == {"k": 1}
    finally:
        await conn.close()


async def test_bad_pool_sizes_are_refused(database_url: str) -> None:
    with pytest.raises(ValueError, match="bad pool size"):
        await create_pool(database_url, min_size=5, max_size=2)
