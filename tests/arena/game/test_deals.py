"""How a match's games are dealt (arena.game.deals): independent streams by default, mirrored pairs
only on request; replays check that every game's seed is the one its match seed gives."""

from __future__ import annotations

import itertools
from pathlib import Path

import msgspec
import pytest

from arena.client.connection import InProcessBot, random_decider
from arena.game.deals import game_seed, seating
from arena.match.replay import EntrantRecord, Replay, VerifyError, load_replay
from arena.match.runner import MatchSettings, run_match
from arena.match.verify import verify_replay
from engine.cards import Card
from engine.deal import deal_for
from engine.events import HandStarted

pytestmark = pytest.mark.anyio

MATCH_SEEDS = (0, 1, 7, 11, 2**62 + 5)
GAMES = 8
HANDS = 40  # more hands than a game to 30 deals in practice

Deal = tuple[tuple[Card, ...], ...]


def bot(name: str, seed: int) -> tuple[EntrantRecord, InProcessBot]:
    return EntrantRecord(name, "builtin:random"), InProcessBot(name, random_decider(seed))


def shape(deal: Deal) -> tuple[frozenset[Card], ...]:
    """A deal up to a permutation of the seats (and of the cards within a hand)."""
    return tuple(sorted((frozenset(hand) for hand in deal), key=sorted))


def game_deals(match_seed: int, game: int, players: int, deals: str) -> list[Deal]:
    seed = game_seed(match_seed, game, deals)  # type: ignore[arg-type]
    return [deal_for(seed, hand, players) for hand in range(HANDS)]


def test_independent_is_the_default() -> None:
    assert MatchSettings().deals == "independent"
    # a match message queued by a version that still had ``duplicate`` is refused, not misread
    with pytest.raises(msgspec.ValidationError, match="duplicate"):
        msgspec.convert({"duplicate": True}, MatchSettings)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("match_seed", MATCH_SEEDS)
def test_no_default_game_deal_is_a_permutation_of_another_games(
    match_seed: int, players: int
) -> None:
    default = MatchSettings().deals
    deals = [game_deals(match_seed, g, players, default) for g in range(GAMES)]
    seeds = {game_seed(match_seed, g, default) for g in range(GAMES)}
    assert len(seeds) == GAMES
    for a, b in itertools.combinations(range(GAMES), 2):
        shapes_a = {shape(d) for d in deals[a]}
        # no hand of game b is any hand of game a with the seats permuted
        assert not shapes_a & {shape(d) for d in deals[b]}, (match_seed, a, b)
        # and not even the same set of cards dealt to the table
        dealt_a = {frozenset().union(*d) for d in deals[a]}
        assert not dealt_a & {frozenset().union(*d) for d in deals[b]}, (match_seed, a, b)


@pytest.mark.parametrize("players", [2, 4])
def test_mirrored_pairs_deal_the_same_cards_with_the_seats_swapped(players: int) -> None:
    """The control: with mirrored deals every second game is the first one, seats swapped, so
    each seat holds in game 2 what the seat opposite held in game 1."""
    for match_seed in MATCH_SEEDS:
        first, second, third = (game_deals(match_seed, g, players, "mirrored") for g in range(3))
        assert first == second != third
        assert seating(0) == (0, 1) and seating(1) == (1, 0)


async def test_a_default_match_plays_every_game_from_its_own_seed_and_verifies() -> None:
    replay = await run_match("d1", 11, MatchSettings(games_per_match=4), [bot("a", 1), bot("b", 2)])
    assert replay.deals == "independent"
    assert len({g.seed for g in replay.games}) == 4
    assert [g.teams for g in replay.games] == [(0, 1), (1, 0), (0, 1), (1, 0)]  # mano alternates
    played = [{shape(e.deal) for e in g.events if isinstance(e, HandStarted)} for g in replay.games]
    for a, b in itertools.combinations(played, 2):
        assert not a & b
    verify_replay(load_replay(msgspec.json.encode(replay)))


async def test_a_mirrored_match_replays_its_pairs() -> None:
    settings = MatchSettings(games_per_match=4, deals="mirrored")
    replay = await run_match("d2", 11, settings, [bot("a", 1), bot("b", 2)])
    first, second, third = replay.games[0], replay.games[1], replay.games[2]
    assert replay.deals == "mirrored"
    assert first.seed == second.seed != third.seed
    deals_1 = [e.deal for e in first.events if isinstance(e, HandStarted)]
    deals_2 = [e.deal for e in second.events if isinstance(e, HandStarted)]
    shared = min(len(deals_1), len(deals_2))
    assert shared >= 1 and deals_1[:shared] == deals_2[:shared]
    verify_replay(load_replay(msgspec.json.encode(replay)))


async def test_a_replay_whose_seeds_do_not_follow_its_deals_fails_verification() -> None:
    replay = await run_match("d3", 5, MatchSettings(games_per_match=2), [bot("a", 1), bot("b", 2)])
    data = msgspec.to_builtins(replay)
    data["deals"] = "mirrored"  # claims mirrored pairs, but game 2 was dealt on its own
    with pytest.raises(VerifyError, match="seed"):
        verify_replay(msgspec.convert(data, Replay))
    data = msgspec.to_builtins(replay)
    data["games"][1]["seed"] = data["games"][0]["seed"]  # a game dealt from a chosen seed
    with pytest.raises(VerifyError, match="game 2: seed"):
        verify_replay(msgspec.convert(data, Replay))
    data = msgspec.to_builtins(replay)
    data["games"][1]["teams"] = [0, 1]  # the seats must alternate
    with pytest.raises(VerifyError, match="seating"):
        verify_replay(msgspec.convert(data, Replay))


async def test_a_version_1_replay_still_loads_and_verifies() -> None:
    for duplicate, deals in ((True, "mirrored"), (False, "independent")):
        replay = await run_match(
            "d4", 3, MatchSettings(games_per_match=2, deals=deals), [bot("a", 1), bot("b", 2)]
        )
        data = msgspec.to_builtins(replay)
        data["format"] = "truco-arena-replay/1"
        del data["deals"]
        data["duplicate"] = duplicate
        old = load_replay(msgspec.json.encode(data))
        assert old.deals == deals and old.format == "truco-arena-replay/1"
        verify_replay(old)
    with pytest.raises(VerifyError, match="not a valid replay"):
        load_replay(b'{"format": "truco-arena-replay/1", "duplicate": "yes"}')


def test_truco_play_deals_independently_unless_mirrored_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from truco_cli.main import main

    base = ["play", "builtin:random", "builtin:first", "--games", "2", "--points", "15"]
    for flags, deals in (
        ([], "independent"),
        (["--no-duplicate"], "independent"),
        (["--mirrored"], "mirrored"),
    ):
        out = tmp_path / f"{deals}{len(flags)}.json"
        assert main([*base, *flags, "--quiet", "--out", str(out)]) == 0
        replay = load_replay(out.read_bytes())
        verify_replay(replay)
        assert replay.deals == deals
        assert (replay.games[0].seed == replay.games[1].seed) == (deals == "mirrored")
        assert f"{deals} deals" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        main([*base, "--mirrored", "--no-duplicate"])
    assert refused.value.code == 2


def test_truco_play_defaults_to_the_measured_match_length() -> None:
    import argparse

    from truco_cli import play

    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    for players, games in (("2", 6), ("4", 12)):
        args = parser.parse_args(["builtin:random", "builtin:first", "--players", players])
        assert play._settings(args).games_per_match == games
    args = parser.parse_args(["builtin:random", "builtin:first", "--games", "3"])
    assert play._settings(args).games_per_match == 3
    with pytest.raises(ValueError, match="games"):  # 0 is refused, not read as the default
        play._settings(parser.parse_args(["builtin:random", "builtin:first", "--games", "0"]))
