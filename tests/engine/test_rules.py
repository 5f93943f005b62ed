import pytest

from engine import Rules, RulesError, new_game


def test_defaults_match_rules_md() -> None:
    rules = Rules()
    assert rules.to_dict() == {
        "players": 2,
        "points_to_win": 30,
        "flor": True,
        "falta_envido": "to_target",
        "mazo_first_round_costs_two": True,
        "sena_seen_by_opponents": 0.25,
    }


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"playres": 2}, "playres"),
        ({"players": 3}, "players"),
        ({"points_to_win": 20}, "points_to_win"),
        ({"points_to_win": "30"}, "points_to_win"),
        ({"flor": "yes"}, "flor"),
        ({"falta_envido": "always"}, "falta_envido"),
        ({"mazo_first_round_costs_two": 1}, "mazo_first_round_costs_two"),
        ({"sena_seen_by_opponents": 1.5}, "sena_seen_by_opponents"),
    ],
)
def test_bad_options_are_errors_naming_the_key(data: dict[str, object], named: str) -> None:
    with pytest.raises(RulesError, match=named) as raised:
        Rules.from_dict(data)
    assert raised.value.key == named


def test_the_first_bad_key_is_named_when_several_are_bad() -> None:
    with pytest.raises(RulesError) as raised:
        Rules.from_dict({"flor": True, "points_to_win": 20, "colour": "red"})
    assert raised.value.key == "points_to_win"


def test_rules_must_be_an_object() -> None:
    with pytest.raises(RulesError, match="object") as raised:
        Rules.from_dict([1, 2])
    assert raised.value.key is None


def test_new_game_validates_its_arguments() -> None:
    with pytest.raises(RulesError, match="mano") as raised:
        new_game(Rules(), 1, mano=2)
    assert raised.value.key == "mano"
    with pytest.raises(RulesError, match="score"):
        new_game(Rules(), 1, score=(31, 0))
    with pytest.raises(RulesError, match="seed"):
        new_game(Rules(), "x")  # type: ignore[arg-type]
