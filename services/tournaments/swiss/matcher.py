"""The one call into rustworkx: a maximum-cardinality, maximum-weight matching.

Nodes ``0..size-1`` are players; node ``size`` (when an edge names it) is the bye.
"""

from __future__ import annotations

from collections.abc import Sequence

import rustworkx as rx


def matching(
    size: int, weighted: Sequence[tuple[int, int, int]]
) -> tuple[dict[int, int], int | None, int]:
    """(partner of every paired player, the player given the bye, the total weight)."""
    graph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(size + size % 2))
    graph.add_edges_from(weighted)
    found = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=_identity)
    weights = {(i, j): w for i, j, w in weighted}
    partner: dict[int, int] = {}
    bye: int | None = None
    total = 0
    for u, v in found:
        i, j = min(u, v), max(u, v)
        total += weights[(i, j)]
        if j == size:
            bye = i
        else:
            partner[i], partner[j] = j, i
    return partner, bye, total


def _identity(weight: int) -> int:
    return weight
