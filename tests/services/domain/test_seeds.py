"""The seed scheme (services/domain/seeds.py): the formulas docs/verify.md gives, computed here with
hashlib and hmac from the text alone, and the properties a verifier relies on."""

from __future__ import annotations

import hashlib
import hmac
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.game.deals import game_seed
from services.domain import seeds
from tests.conftest import ROOT

DOC = (ROOT / "docs" / "verify.md").read_text()
masters = st.binary(min_size=32, max_size=32)
places = st.tuples(
    st.integers(1, 2**40), st.integers(1, 64), st.integers(0, 600), st.none() | st.text(max_size=6)
)


def _documented_match_seed(master: bytes, identity: str) -> int:
    """docs/verify.md: the first 8 bytes of HMAC-SHA256(master, identity), big-endian, >> 1."""
    digest = hmac.new(master, identity.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def test_the_worked_example_of_the_docs_is_what_the_code_computes() -> None:
    example = DOC.split("## A worked example", 1)[1]
    values = dict(re.findall(r"^- (\w[\w ]*\w): `([0-9a-f]+)`$", example, flags=re.MULTILINE))
    master = bytes.fromhex(values["master seed"])
    assert master == bytes(range(32))
    assert values["commitment"] == seeds.commitment(master)
    assert (
        values["commitment"] == hashlib.sha256(b"truco-arena/commitment/v1:" + master).hexdigest()
    )
    match_seed = seeds.tournament_match_seed(master, 7, 2, 0, None)
    assert int(values["match seed"]) == match_seed
    assert match_seed == _documented_match_seed(master, "truco-arena/match/v1/7/2/0/-")
    assert int(values["game 1 seed"]) == game_seed(match_seed, 0, "independent")
    assert int(values["challenge seed"]) == seeds.challenge_seed(master, 3, 5)


@given(masters, places)
def test_a_match_seed_is_the_documented_hmac_and_fits_a_bigint(
    master: bytes, place: tuple[int, int, int, str | None]
) -> None:
    tournament, round_, board, code = place
    seed = seeds.tournament_match_seed(master, tournament, round_, board, code)
    identity = f"truco-arena/match/v1/{tournament}/{round_}/{board}/{code or '-'}"
    assert seed == _documented_match_seed(master, identity)
    assert 0 <= seed < 2**63


@given(masters, places, places)
def test_different_places_get_different_seeds(
    master: bytes, a: tuple[int, int, int, str | None], b: tuple[int, int, int, str | None]
) -> None:
    if seeds.match_identity(*a) != seeds.match_identity(*b):
        assert seeds.tournament_match_seed(master, *a) != seeds.tournament_match_seed(master, *b)


@given(masters, st.integers(0, 31), st.integers(1, 255))
def test_every_bit_of_the_master_seed_matters(master: bytes, at: int, flip: int) -> None:
    other = bytearray(master)
    other[at] ^= flip
    assert seeds.commitment(master) != seeds.commitment(bytes(other))
    assert seeds.tournament_match_seed(master, 1, 1, 0, None) != seeds.tournament_match_seed(
        bytes(other), 1, 1, 0, None
    )


def test_master_seeds_are_fresh_and_parsed_strictly() -> None:
    drawn = {seeds.new_master_seed() for _ in range(50)}
    assert len(drawn) == 50 and {len(m) for m in drawn} == {32}
    master = drawn.pop()
    assert seeds.parse_master_seed(master.hex()) == master
    assert seeds.parse_master_seed(master.hex().upper()) == master
    with pytest.raises(ValueError, match="not hexadecimal"):
        seeds.parse_master_seed("zz" * 32)
    with pytest.raises(ValueError, match="has 31 bytes"):
        seeds.parse_master_seed("ab" * 31)
