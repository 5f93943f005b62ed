"""Names: the folding key (services/domain/names.py) and the keys given to rows written before
migration 0006 (services/db/name_keys.py, run by migrate())."""

from __future__ import annotations

import logging

import asyncpg
import pytest

from services.db.migrate import migrate_url
from services.db.name_keys import fill_missing_name_keys
from services.domain.names import confusable_map, name_key, name_problem

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("ALICE", "\u0410LICE"),  # Cyrillic А (plain case is the lower(name) index's)
        ("alice", "\u0430lice"),  # Cyrillic а
        ("paypal", "p\u0430yp\u0430l"),
        ("paypal", "PayPaI"),  # capital I for l
        ("bob1", "bobl"),
        ("b0b", "BOB"),
        ("Unicode", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"),  # NFKC
        ("full", "ｆｕｌｌ"),
        ("fish", "ﬁsh"),
        ("strasse", "Straße"),  # casefold
        ("two words", "two   words"),
    ],
)
def test_lookalikes_share_a_key(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize(("one", "other"), [("alice", "alicf"), ("ian", "lan"), ("bob", "bab")])
def test_different_names_keep_different_keys(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


def test_the_table_comes_from_the_library_and_is_stable() -> None:
    table = confusable_map()
    assert len(table) > 3000  # Unicode's confusables, not a hand-made list
    assert table["\u0430"] == "a" and table.get("0", "0") == table["O"]
    assert all(table.get(rep, rep) == rep for rep in set(table.values()))  # one step


def test_name_problem_names_the_characters() -> None:
    assert name_problem("plain name") is None
    problem = name_problem("x\u202ey\x1b")
    assert problem is not None
    assert "U+202E RIGHT-TO-LEFT OVERRIDE" in problem and "U+001B" in problem


async def test_rows_from_before_0006_get_their_keys(
    fresh_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    await migrate_url(fresh_database)
    conn = await asyncpg.connect(fresh_database)
    try:
        # rows as the code before 0006 wrote them: no key
        ids = []
        for number, name in enumerate(["alice", "\u0430lice", "Bob"]):
            ids.append(
                await conn.fetchval(
                    "INSERT INTO accounts (name, api_key_hash) VALUES ($1, $2) RETURNING id",
                    name,
                    bytes([number]) * 32,
                )
            )
        with caplog.at_level(logging.WARNING, logger="services.db.name_keys"):
            assert await fill_missing_name_keys(conn) == 2
        keys = dict(await conn.fetch("SELECT id, name_key FROM accounts ORDER BY id"))
        assert keys == {ids[0]: "alice", ids[1]: None, ids[2]: name_key("Bob")}
        assert f"account {ids[1]}" in caplog.text  # the younger look-alike is reported
        # a later migrate() runs it again, and finds nothing new to key
        await migrate_url(fresh_database)
        assert await conn.fetchval("SELECT count(*) FROM accounts WHERE name_key IS NULL") == 1
    finally:
        await conn.close()
