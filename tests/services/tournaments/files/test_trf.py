"""TRF-16 export: the fixed column layout of the 001 player lines."""

from __future__ import annotations

from services.tournaments.files.trf import export_trf
from tests.services.tournaments.builders import draw, players, round_of, win


def cols(line: str, first: int, last: int) -> str:
    """1-based inclusive columns, as the TRF specification numbers them."""
    return line[first - 1 : last]


def test_player_lines_follow_the_trf16_columns() -> None:
    rounds = [round_of(win(1, 2, mano=2), bye=3), round_of(draw(3, 1, mano=3), bye=2)]
    text = export_trf(players(3), rounds, total_rounds=3, name="Copa")
    lines = text.splitlines()
    assert lines[0] == "012 Copa"
    assert "062 3" in lines and "XXR 3" in lines  # the planned total, not the 2 played
    assert "XXC white1" in lines  # the initial colour: the top seed is mano in round one
    first = next(line for line in lines if line.startswith("001") and cols(line, 5, 8) == "   1")
    assert cols(first, 15, 47).rstrip() == "1"
    assert cols(first, 49, 52) == "1990"
    assert cols(first, 81, 84) == " 1.5"
    # 3 also has 1.5 and a better Buchholz (its bye counts a virtual opponent with 0.5 and
    # its opponent 1 scored 1.5: 2.0, against 1's 0.5 + 1.0 = 1.5), so 1 is placed second
    assert cols(first, 86, 89) == "   2"
    # round 1: v start rank 2, black (2 was mano), won; round 2: v 3, black, draw
    assert (
        cols(first, 92, 95) == "   2" and cols(first, 97, 97) == "b" and cols(first, 99, 99) == "1"
    )
    assert (
        cols(first, 102, 105) == "   3"
        and cols(first, 107, 107) == "b"
        and cols(first, 109, 109) == "="
    )
    second = next(line for line in lines if line.startswith("001") and cols(line, 5, 8) == "   2")
    assert cols(second, 92, 99) == "   1 w 0"
    assert cols(second, 102, 109) == "0000 - U"
    assert text.endswith("\n")


def test_names_places_and_blank_ratings_as_a_platform_passes_them() -> None:
    rounds = [round_of(win(1, 2, mano=2), bye=3)]
    names = {1: "Ana\nbot", 2: "b" * 40, 3: "tres"}
    text = export_trf(
        players(3), rounds, total_rounds=2, names=names, places={1: 3, 2: 1, 3: 2}, ratings=False
    )
    lines = [line for line in text.splitlines() if line.startswith("001")]
    assert len(text.splitlines()) == 5 + 3  # the newline in a name did not start a record
    by_name = {cols(line, 15, 47).rstrip(): line for line in lines}
    assert set(by_name) == {"Ana bot", "b" * 33, "tres"}
    assert [cols(by_name[n], 86, 89) for n in ("Ana bot", "b" * 33, "tres")] == [
        "   3", "   1", "   2",
    ]  # fmt: skip
    assert all(cols(line, 49, 52) == "    " for line in lines)
