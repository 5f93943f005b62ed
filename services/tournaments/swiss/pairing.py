"""Swiss pairing by maximum-weight matching (rustworkx), deterministic and rematch-free.

``pair_round(players, rounds)`` returns the next round. The criteria and their priority are
the tiers of :mod:`services.tournaments.swiss.weights`; the candidate graph and its widening are
in :mod:`services.tournaments.swiss.graph` and :mod:`services.tournaments.swiss.certificate`;
fields that fall apart into independent parts are paired part by part
(:mod:`services.tournaments.swiss.split`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.tournaments.model import Pair, Player, Round, RoundPairing
from services.tournaments.swiss.certificate import (
    c3_forces_floats,
    forced_clash,
    has_clash,
    uncertified_groups,
)
from services.tournaments.swiss.field import Field, make_field
from services.tournaments.swiss.graph import (
    DEFAULT_WINDOW,
    complete_edges,
    is_complete,
    sparse_edges,
)
from services.tournaments.swiss.mano import allocate_mano
from services.tournaments.swiss.matcher import matching
from services.tournaments.swiss.pruned import ExactGraph, exact_edges
from services.tournaments.swiss.split import independent_parts, solve_parts
from services.tournaments.swiss.state import build_states
from services.tournaments.swiss.weights import WeightLayout, bye_weight, make_layout, pair_weights

WIDEN_FACTOR = 4
CLASH_WIDEN_FACTOR = 2
EXACT_MAX_PLAYERS = 2_000
"""Up to this many players the exact graph (:mod:`swiss.pruned`, built by visiting every pair)
is tried before the complete graph."""
EXACT_MAX_EDGES = 150_000
"""Where C.3 forces floats the exact graph is tried first if it has at most this many edges
(the C.3 shape at 1,000 players: about 64,000); a bigger one goes to the sparse graph first."""


class NoValidPairing(Exception):
    """No pairing of the next round avoids every rematch (or no player can take the bye)."""


@dataclass(frozen=True, slots=True)
class Matching:
    """A solved matching over field indices, with the graph size it took (for tests/bench)."""

    partner: dict[int, int]
    bye: int | None
    edges: int
    complete: bool
    weight: int


def solve(
    field: Field,
    layout: WeightLayout,
    edges: Sequence[tuple[int, int]],
    byes: Iterable[int] | None = None,
) -> Matching:
    """Maximum-cardinality, maximum-weight matching over ``edges`` (plus bye edges if odd: to
    ``byes``, by default every eligible player)."""
    n = field.size
    weighted = pair_weights(field, layout, edges)
    if n % 2:
        eligible = sorted(field.bye_value) if byes is None else byes
        weighted.extend((i, n, bye_weight(field, layout, i)) for i in eligible)
    partner, bye, total = matching(n, weighted)
    return Matching(partner, bye, len(weighted), False, total)


def match_field(
    field: Field, *, window: int = DEFAULT_WINDOW, sparse: bool = True, split: bool = True
) -> Matching:
    """Solve on the sparse graph, widening uncertified groups, or on the complete graph. With
    ``split``, first try the sparse graph part by part (:mod:`swiss_split`): the same pairing,
    when the certificate accepts it, for a fraction of the time. Where C.3 forces floats, or
    the sparse graph could not be certified, the exact graph (:mod:`swiss.pruned`) is tried
    before the complete graph: its certified optimum is the complete graph's."""
    layout = make_layout(field)
    groups = field.group_count
    windows = [window] * groups
    reaches = [1] * groups
    if sparse and forced_clash(field):
        sparse = False  # every pairing breaks C.3: no sparse result could be certified
    exact_tried = False
    if sparse and field.size <= EXACT_MAX_PLAYERS and c3_forces_floats(field):
        graph = exact_edges(field)
        if len(graph.edges) <= EXACT_MAX_EDGES:
            exact_tried = True
            found = _solve_exact(field, layout, graph)
            if found is not None:
                return found
            sparse = False  # no pairing reaches the bounds: only the complete graph decides
    parts = independent_parts(field) if sparse and split else []
    if len(parts) > 1:
        by_parts = solve_parts(field, layout, parts, sparse_edges(field, windows, reaches))
        if by_parts is not None:
            partner, bye, weight, used = by_parts
            return Matching(partner, bye, used, False, weight)
    while True:
        complete = not sparse or is_complete(field, windows, reaches)
        if complete and sparse and not exact_tried and field.size <= EXACT_MAX_PLAYERS:
            exact_tried = True
            found = _solve_exact(field, layout, exact_edges(field))
            if found is not None:
                return found
        edges = complete_edges(field) if complete else sparse_edges(field, windows, reaches)
        result = solve(field, layout, edges)
        problems = uncertified_groups(field, result.partner, result.bye)
        if complete or not problems:
            return Matching(result.partner, result.bye, result.edges, complete, result.weight)
        before = (list(windows), list(reaches))
        if has_clash(field, result.partner, result.bye):
            # C.3 left some player without a legal partner in the window: the repair is an
            # alternating path that may run through any group, so every group gets more
            for g in range(groups):
                windows[g] = min(windows[g] * CLASH_WIDEN_FACTOR, max(field.group_size(g), 1))
        else:
            widened = {h for g in problems for h in (g - 1, g, g + 1) if 0 <= h < groups}
            for g in widened:
                windows[g] = min(windows[g] * WIDEN_FACTOR, max(field.group_size(g), 1))
                reaches[g] = min(reaches[g] + 1, groups - 1 - g)
        if (windows, reaches) == before:
            sparse = False


def _solve_exact(field: Field, layout: WeightLayout, graph: ExactGraph) -> Matching | None:
    """The matching of the exact graph if it is certified (then it is the complete graph's),
    else None. None also proves that no pairing reaches the certificate's bounds (every one
    that does lies in this graph, and would make its optimum reach them too), so no sparse
    graph's matching can be certified either."""
    result = solve(field, layout, graph.edges, graph.byes)
    if uncertified_groups(field, result.partner, result.bye):
        return None
    return result


def assign_mano(field: Field, i: int, j: int) -> int:
    """Who of the pair ``i`` < ``j`` (pairing order) is mano: FIDE's colour allocation."""
    upper = field.players[i]
    return i if allocate_mano(upper.mano, field.players[j].mano, upper.rank) else j


def pairing_from(field: Field, matching: Matching) -> RoundPairing:
    unpaired = [
        field.players[i].id
        for i in range(field.size)
        if i not in matching.partner and i != matching.bye
    ]
    if unpaired:
        raise NoValidPairing(
            f"no pairing of the next round avoids rematches: {len(unpaired)} of "
            f"{field.size} players cannot be paired (e.g. {unpaired[:5]!r}); end the event"
        )
    pairs = []
    for i in sorted(i for i, j in matching.partner.items() if i < j):
        j = matching.partner[i]
        mano = assign_mano(field, i, j)
        pairs.append(
            Pair(a=field.players[i].id, b=field.players[j].id, mano=field.players[mano].id)
        )
    bye = None if matching.bye is None else field.players[matching.bye].id
    return RoundPairing(pairs=tuple(pairs), bye=bye)


def final_after(played: int, total_rounds: int | None) -> int | None:
    """The rounds played when the next round is the event's last (topscorers count), else
    None: the ``final_after`` of :func:`~services.tournaments.swiss.field.make_field`."""
    return played if total_rounds is not None and played + 1 >= total_rounds else None


def pair_round(
    players: Sequence[Player],
    rounds: Sequence[Round],
    *,
    total_rounds: int | None = None,
    window: int = DEFAULT_WINDOW,
    sparse: bool = True,
) -> RoundPairing:
    """Pair the next round of an event of ``total_rounds`` (None: unknown, never the last, so
    nobody is a topscorer exempt from C.3). Raises :class:`NoValidPairing` when no
    rematch-free pairing exists, and :class:`~services.tournaments.model.TournamentDataError`
    on inconsistent input."""
    if len(players) < 2:
        raise NoValidPairing("a Swiss round needs at least two players")
    field = make_field(
        build_states(players, rounds), final_after=final_after(len(rounds), total_rounds)
    )
    if field.size % 2 and not field.bye_value:
        raise NoValidPairing("the player count is odd and every player has already had the bye")
    return pairing_from(field, match_field(field, window=window, sparse=sparse))
