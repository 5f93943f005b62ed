import itertools

import pytest

from engine import CardError, envido_points, flor_points, has_flor, parse_card, strength
from engine.cards import DECK, envido_proof

ORDER = [
    ["1E"],
    ["1B"],
    ["7E"],
    ["7O"],
    ["3E", "3B", "3O", "3C"],
    ["2E", "2B", "2O", "2C"],
    ["1O", "1C"],
    ["12E", "12B", "12O", "12C"],
    ["11E", "11B", "11O", "11C"],
    ["10E", "10B", "10O", "10C"],
    ["7B", "7C"],
    ["6E", "6B", "6O", "6C"],
    ["5E", "5B", "5O", "5C"],
    ["4E", "4B", "4O", "4C"],
]


def test_deck_has_forty_distinct_cards() -> None:
    assert len(DECK) == 40 == len(set(DECK))
    assert sum(len(group) for group in ORDER) == 40


def test_strength_order_follows_r1() -> None:
    for higher, lower in itertools.pairwise(ORDER):
        for a in higher:
            for b in lower:
                assert strength(a) > strength(b), (a, b)
    for group in ORDER:
        assert len({strength(c) for c in group}) == 1, group


@pytest.mark.parametrize("text", ["8E", "9O", "13C", "1X", "", "E1", "1", "0B", "1 E"])
def test_bad_notation_is_a_clear_error(text: str) -> None:
    with pytest.raises(CardError, match="bad card"):
        parse_card(text)


def test_parse_is_exact_and_rejects_non_strings() -> None:
    assert parse_card("12C") == "12C"
    with pytest.raises(CardError, match="write it exactly as '12C'"):
        parse_card("12c")
    with pytest.raises(CardError, match="write it exactly as '4E'"):
        parse_card(" 4E ")
    with pytest.raises(CardError, match="string"):
        parse_card(7)


@pytest.mark.parametrize(
    ("cards", "points"),
    [
        (("7C", "6C", "3E"), 33),
        (("2O", "1B", "4B"), 25),
        (("12E", "11E", "10B"), 20),  # figures are worth 0: two of a suit = 20
        (("12E", "11O", "10B"), 0),
        (("7E", "12O", "1B"), 7),
        (("5C", "6C", "7C"), 33),  # three of a suit with flor off: best two + 20
        (("4O", "12O", "1O"), 25),
    ],
)
def test_envido_points(cards: tuple[str, ...], points: int) -> None:
    assert envido_points(cards) == points


def test_flor_points_and_proof() -> None:
    assert has_flor(("5E", "6E", "7E")) and flor_points(("5E", "6E", "7E")) == 38
    assert not has_flor(("5E", "6E", "7B"))
    assert flor_points(("10O", "11O", "12O")) == 20
    assert set(envido_proof(("7C", "6C", "3E"))) == {"7C", "6C"}
    assert envido_proof(("7E", "12O", "1B")) == ("7E",)
