"""Reading a graph directory's files directly, for the benchmark scripts (the layouts are in
docs/design.md)."""

from __future__ import annotations

import array
import os


def max_degree_vertex(graph: str, n: int) -> int:
    """The vertex of largest out-degree (the first of them), from the `n + 1` offsets of
    `graph`'s `out.offsets`."""
    offsets = array.array("Q")
    with open(os.path.join(graph, "out.offsets"), "rb") as f:
        offsets.fromfile(f, n + 1)
    best, best_deg = 0, -1
    for v in range(n):
        d = offsets[v + 1] - offsets[v]
        if d > best_deg:
            best, best_deg = v, d
    return best
