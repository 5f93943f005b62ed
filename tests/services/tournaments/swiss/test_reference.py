"""The Swiss pairing against the FIDE Dutch reference, bbpPairings v6.0.0 (issue 24, item 9).

``data/*.json`` are ``truco pair`` states from simulated events where an earlier version
paired differently; ``data/*.trf`` is the same state as the reference reads it, and
``data/*.bbp`` is the reference's answer (``bbpPairings.exe --dutch FILE.trf -p OUT``: the pair
count, then one ``white black`` line per pair, ``X 0`` for the bye; white is mano).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from services.tournaments.files.tournament_file import TournamentFile, parse_tournament
from services.tournaments.files.trf import export_trf
from services.tournaments.model import Pair, RoundPairing
from services.tournaments.swiss.certificate import (
    crossings,
    needed_crossings,
    uncertified_groups,
)
from services.tournaments.swiss.field import Field, make_field
from services.tournaments.swiss.graph import complete_edges
from services.tournaments.swiss.mano import ABSOLUTE, same_absolute_preference
from services.tournaments.swiss.pairing import Matching, final_after, match_field, pair_round, solve
from services.tournaments.swiss.state import build_states
from services.tournaments.swiss.weights import TIER_NAMES, make_layout
from tests.services.tournaments.builders import players, round_of, win

DATA = Path(__file__).parent / "data"


def reference(name: str) -> tuple[set[tuple[int, int]], int | None]:
    """The reference's pairs as ``(mano, other)`` and its bye, from a ``.bbp`` file."""
    lines = (DATA / name).read_text().split("\n")[1:]
    pairs = {(int(w), int(b)) for w, b in (line.split() for line in lines if line)}
    byes = {w for w, b in pairs if b == 0}
    return {p for p in pairs if p[1] != 0}, (byes.pop() if byes else None)


def ours(pairing: RoundPairing) -> tuple[set[tuple[int, int]], int | None]:
    pairs = {(int(p.mano), int(p.b if p.mano == p.a else p.a)) for p in pairing.pairs}
    return pairs, None if pairing.bye is None else int(pairing.bye)


def test_trf_of_a_brand_new_event_names_the_initial_colour() -> None:
    """Without ``XXC`` the reference refuses a first round ("Please configure the initial piece
    colors."); with ``XXC white1`` it pairs round one exactly as the platform does."""
    text = export_trf(players(17), [], total_rounds=6, ratings=False)
    lines = text.splitlines()
    assert lines[4] == "XXC white1"
    assert text == (DATA / "n17_t0_r01_platform_export_withXXC.trf").read_text()
    without = (DATA / "n17_t0_r01_platform_export_noXXC.trf").read_text().splitlines()
    assert [line for line in lines if not line.startswith("XXC")] == without
    assert ours(pair_round(players(17), [])) == reference("n17_t0_r01_platform_export_withXXC.bbp")


def load(name: str) -> tuple[TournamentFile, Field]:
    event = parse_tournament((DATA / f"{name}.json").read_bytes())
    played = len(event.rounds)
    field = make_field(
        build_states(event.players, event.rounds),
        final_after=final_after(played, event.total_rounds),
    )
    return event, field


def float_pairs(event: TournamentFile, pairs: set[tuple[int, int]]) -> int:
    """Pairs of players on different scores before the round."""
    states = {s.id: s.points2 for s in build_states(event.players, event.rounds)}
    return sum(1 for a, b in pairs if states[a] != states[b])


def clashes(field: Field, pairs: set[tuple[int, int]]) -> list[tuple[int, int]]:
    index = {p.id: i for i, p in enumerate(field.players)}
    return [(a, b) for a, b in pairs if field.clash(index[a], index[b])]


def test_two_players_who_need_the_same_side_do_not_meet_outside_the_topscorers() -> None:
    """The 0-point group is 9, 10, 12 and 14; 10, 12 and 14 were mano in both games (each
    must not be mano now: absolute), 9 non-mano then mano. FIDE's C.3 forbids pairing two of them, and it comes
    before the floats: the reference floats 13 to 10 and 16 to 12, and so do we."""
    event, field = load("n16_t30_projrun_r03")
    assert len(event.rounds) == 2 and event.total_rounds == 5 and not field.topscorers
    index = {p.id: i for i, p in enumerate(field.players)}
    preference = {pid: field.players[index[pid]].mano for pid in (9, 10, 12, 14)}
    assert all(p.side < 0 for p in preference.values())  # all four would rather not be mano
    must_not = [pid for pid, p in preference.items() if p.strength == ABSOLUTE]
    assert must_not == [10, 12, 14]  # 9 only mildly (non-mano, then mano)
    pairs, bye = ours(pair_round(event.players, event.rounds, total_rounds=event.total_rounds))
    assert clashes(field, pairs) == []
    assert not any({a, b} <= {10, 12, 14} for a, b in pairs)
    assert float_pairs(event, pairs) == 2  # the group is even: only C.3 makes these floats
    assert (pairs, bye) == reference("n16_t30_projrun_r03.bbp")


def test_floats_that_c3_forces_are_certified_on_the_sparse_graph() -> None:
    """Below the 1-point group, three of the four 0-point players need the same side: two
    crossings are needed (the surplus), not the parity's 0, so the certificate accepts the
    sparse graph's pairing instead of widening it to the complete graph."""
    _, field = load("n16_t30_projrun_r03")
    assert [field.group_size(g) for g in range(field.group_count)] == [4, 8, 4]
    assert needed_crossings(field, None) == [0, 2]
    found = match_field(field)
    assert crossings(field, found.partner) == [0, 2]
    assert uncertified_groups(field, found.partner, found.bye) == set()
    assert not found.complete


def test_topscorers_in_the_final_round_may_meet_with_the_same_absolute_preference() -> None:
    """A.7: when the final round is paired, a player with more than half the points possible
    is a topscorer, and C.3 does not keep a topscorer from meeting anyone."""
    field = players(8)
    history = [
        round_of(win(1, 5, mano=1), win(2, 6, mano=2), win(3, 7, mano=3), win(4, 8, mano=4)),
        round_of(win(1, 3, mano=1), win(2, 4, mano=2), win(5, 7, mano=5), win(6, 8, mano=8)),
    ]
    # 1 and 2 won both games as mano: both must not be mano now, and they lead alone
    last = pair_round(field, history, total_rounds=3)
    assert Pair(a=1, b=2, mano=2) in last.pairs  # the higher placed, 1, gets its side
    earlier = pair_round(field, history, total_rounds=4)
    assert not any({p.a, p.b} == {1, 2} for p in earlier.pairs)
    states = {s.id: s.mano for s in build_states(field, history)}
    assert not any(same_absolute_preference(states[p.a], states[p.b]) for p in earlier.pairs)
    assert {p.mano for p in earlier.pairs} & {1, 2} == set()  # and both get their side


def forced_bye(field: Field, player: int) -> Matching:
    """The best matching with the bye forced on ``player`` (an index): the old rule."""
    only = dataclasses.replace(field, bye_value={player: field.bye_value[player]})
    return solve(only, make_layout(field), complete_edges(field))


def test_the_bye_goes_where_the_rest_pairs_best_not_to_the_lowest_placed() -> None:
    """The lowest group holds 55 (non-mano, mano, non-mano, non-mano), 57 (the same) and 62;
    55 and 57 must both be mano now. The bye to 62, the lowest placed, left 55 against 57;
    FIDE's bye is part of the optimisation: the reference gives it to 57 and pairs 55-62."""
    for name in ("n65_t2_bbprun_r05", "n65_t4_projrun_r05"):
        event, field = load(name)
        layout = make_layout(field)
        pairing = pair_round(event.players, event.rounds, total_rounds=event.total_rounds)
        pairs, bye = ours(pairing)
        assert bye == reference(f"{name}.bbp")[1]
        assert clashes(field, pairs) == []
        lowest = max(field.bye_value)  # the lowest-placed eligible player
        assert bye != field.players[lowest].id
        old = layout.unpack(forced_bye(field, lowest).weight)
        new = layout.unpack(match_field(field).weight)
        # better before the rank tier, where the old rule's preference for the lowest lives
        rank = TIER_NAMES.index("rank")
        assert new[:rank] > old[:rank]
    event, field = load("n65_t2_bbprun_r05")
    pairs, bye = ours(pair_round(event.players, event.rounds, total_rounds=event.total_rounds))
    assert bye == 57 and ({(55, 62), (62, 55)} & pairs)


def test_the_bye_that_saves_floats_wins_in_the_lowest_group() -> None:
    """Last round: the bye to 11, the lowest placed of the 2-point group, costs three floater
    pairs; the reference gives it to 9 (the same 2 points) and needs one. So do we."""
    event, field = load("n17_t3_projrun_r06")
    pairing = pair_round(event.players, event.rounds, total_rounds=event.total_rounds)
    pairs, bye = ours(pairing)
    assert bye == 9 and float_pairs(event, pairs) == 1
    index = {p.id: i for i, p in enumerate(field.players)}
    old = forced_bye(field, index[11])
    old_pairs = {
        (field.players[i].id, field.players[j].id) for i, j in old.partner.items() if i < j
    }
    assert float_pairs(event, old_pairs) == 3
    assert (pairs, bye) == reference("n17_t3_projrun_r06.bbp")
