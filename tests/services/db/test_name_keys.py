"""Names: the folding key (services/domain/names.py) and the keys given to rows written before
migration 0006 (services/db/name_keys.py, run by migrate())."""

from __future__ import annotations

import functools
import logging
import sys
import unicodedata

import asyncpg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.wire.visible_text import BLANKS, is_hidden, is_invisible
from services.db.migrate import MIGRATIONS_DIR, migrate_url
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


# issue 21: accounts and bots created beside the real ones with an invisible character
INVISIBLE_SPELLINGS = [
    ("house", "h\u034fouse"),  # COMBINING GRAPHEME JOINER
    ("house", "house\ufe0f"),  # VARIATION SELECTOR-16
    ("house-heuristic", "house-heuristic\u2800"),  # BRAILLE PATTERN BLANK
    ("house-heuristic", "\u115fhouse-heuristic"),  # HANGUL CHOSEONG FILLER
    ("house-heuristic", "house-heur\u17b4istic"),  # KHMER VOWEL INHERENT AQ
    ("house-heuristic", "house-\u3164heuristic"),  # HANGUL FILLER
    ("house-heuristic", "house\uffa0-heuristic"),  # HALFWIDTH HANGUL FILLER (NFKC: U+3164)
    ("house", "house\U000e0041"),  # TAG LATIN CAPITAL LETTER A
    ("house", "hou\U0001d159se"),  # MUSICAL SYMBOL NULL NOTEHEAD
]


@pytest.mark.parametrize(("real", "spelling"), INVISIBLE_SPELLINGS)
def test_invisible_spellings_are_refused_and_key_as_the_real_name(real: str, spelling: str) -> None:
    problem = name_problem(spelling)
    assert problem is not None and "invisible" in problem
    invisible = next(c for c in spelling if c not in real)
    assert f"U+{ord(invisible):04X}" in problem
    # a row stored before the rule (then keyed again by 0021) collides with the real one
    assert name_key(spelling) == name_key(real)


@functools.cache
def all_invisible() -> list[str]:
    """Every invisible code point: a scan of all of Unicode, made when a test first asks (at
    import it ran in every xdist worker while collecting, though one worker runs this file)."""
    return [chr(c) for c in range(sys.maxunicode + 1) if is_invisible(chr(c))]


def test_the_invisible_table_is_unicodes_property() -> None:
    invisible = all_invisible()
    # Default_Ignorable_Code_Point has some 4,170 code points (most reserved ones of the tags
    # block); the blanks that are not default-ignorable are added by name
    assert 4000 < len(invisible) < 4300
    assert {"\u00ad", "\u034f", "\u115f", "\u17b4", "\u200b", "\u3164", "\ufe0f"} <= set(invisible)
    assert set(BLANKS) <= set(invisible)
    assert not any(is_invisible(c) for c in "aZ09 -_.~\u00e9\u4e2d\u0430")


NAMES = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20
)


@given(
    NAMES,
    st.deferred(lambda: st.sampled_from(all_invisible())),
    st.integers(min_value=0, max_value=20),
)
def test_an_inserted_invisible_character_is_refused_and_changes_no_key(
    name: str, invisible: str, at: int
) -> None:
    spelled = name[:at] + invisible + name[at:]
    assert name_problem(spelled) is not None
    assert name_key(spelled) == name_key(name)


@given(NAMES)
def test_an_accepted_name_shows_every_character(name: str) -> None:
    if name_problem(name) is None:
        assert not any(is_hidden(c) for c in name)
        assert all(unicodedata.category(c) not in ("Co", "Cn") for c in name)
        assert not any(is_invisible(c) for c in name_key(name))


async def test_migration_0021_keys_every_row_again(
    fresh_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    await migrate_url(fresh_database)
    conn = await asyncpg.connect(fresh_database)
    try:
        # keys as the folding before 0021 made them: the invisible character kept
        rows = [("house", "house"), ("h\u034fouse", "h\u034fouse"), ("Bob", "bob")]
        ids = [
            await conn.fetchval(
                "INSERT INTO accounts (name, name_key, api_key_hash) VALUES ($1, $2, $3) "
                "RETURNING id",
                name,
                key,
                bytes([number]) * 32,
            )
            for number, (name, key) in enumerate(rows)
        ]
        sql = next(MIGRATIONS_DIR.glob("0021_*.sql")).read_text()
        await conn.execute(sql)
        with caplog.at_level(logging.WARNING, logger="services.db.name_keys"):
            assert await fill_missing_name_keys(conn) == 2
        keys = dict(await conn.fetch("SELECT id, name_key FROM accounts ORDER BY id"))
        assert keys == {ids[0]: name_key("house"), ids[1]: None, ids[2]: name_key("Bob")}
        assert f"account {ids[1]}" in caplog.text
    finally:
        await conn.close()


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
