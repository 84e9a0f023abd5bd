"""Online query workloads (seed 000): generate a workload file, then answer it with
:meth:`ocgraph.Graph.query`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Union

from . import _ocgraph
from ._args import U64_MAX, int_arg

if TYPE_CHECKING:
    from ._graph import Graph

PathLike = Union[str, "os.PathLike[str]"]


def workload(
    graph: Graph | PathLike,
    kind: str,
    out: PathLike,
    count: int,
    seed: int = 1,
    alpha: float = 0.1,
    queue: int = 1000,
) -> int:
    """Writes a seeded workload file for ``graph`` (an open graph, or a graph directory,
    opened read-only for the call) and returns its number of queries.

    ``kind``: ``"edge-queries"`` (alpha-recency: with probability ``alpha`` a uniform vertex,
    else a uniform pick from a FIFO of the ``queue`` most recently seen vertices; the queried
    vertex and its neighbours enter the FIFO), ``"fof"`` (uniform vertices) or
    ``"shortest-path"`` (uniform vertex pairs). Same graph, parameters and seed: same file.
    """
    if isinstance(graph, (str, os.PathLike)):
        from ._graph import open as open_graph

        with open_graph(graph) as g:
            return workload(g, kind, out, count, seed, alpha, queue)
    return _ocgraph._workload(
        graph,
        kind,
        os.fsdecode(out),
        int_arg("count", count, 0, U64_MAX),
        int_arg("seed", seed, 0, U64_MAX),
        alpha,
        int_arg("queue", queue),
    )
