"""The public :class:`Graph` class and :func:`open`."""

from __future__ import annotations

import os
from typing import Any, Union

import numpy as np

from ._ocgraph import Graph as _NativeGraph

Size = Union[int, str]
PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["Graph", "open"]


class Graph(_NativeGraph):
    """An opened on-disk graph.

    Create one with :func:`ocgraph.open` (or ``Graph(path, ...)`` with the same arguments).
    Reads go through the chosen page backend; a ``pool`` graph never holds more than its
    ``memory`` budget of graph data in RAM.

    Attributes (read-only): ``num_vertices``, ``num_edges`` (an undirected edge counts once),
    ``num_arcs`` (stored neighbour entries: an undirected edge ``u != v`` counts twice),
    ``directed``, ``weighted``, ``path``, ``closed``.

    Vertex arguments outside ``0 .. num_vertices - 1`` raise :class:`ocgraph.VertexError`
    (an ``IndexError`` and an ``InvalidArgumentError``). Using a closed graph raises
    :class:`ocgraph.InvalidArgumentError`. The graph is a context manager: ``with`` closes it.
    """

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<ocgraph.Graph (closed)>"
        kind = "directed" if self.directed else "undirected"
        weighted = ", weighted" if self.weighted else ""
        return (
            f"<ocgraph.Graph {self.path!r}: {self.num_vertices} vertices, "
            f"{self.num_edges} edges, {kind}{weighted}>"
        )

    def __len__(self) -> int:
        """Number of vertices."""
        return self.num_vertices

    def to_scipy(self) -> Any:
        """The out-adjacency as a ``scipy.sparse.csr_matrix`` of shape ``(n, n)``.

        Entry ``[u, v]`` is the weight of arc ``u -> v`` (1.0 when unweighted); undirected graphs
        give a symmetric matrix. Loads the whole graph into memory: for graphs that fit.
        Needs scipy.
        """
        import scipy.sparse as sp

        indptr, indices, weights = self._csr()
        n = self.num_vertices
        data = weights.astype(np.float64) if weights is not None else np.ones(len(indices))
        return sp.csr_matrix((data, indices.astype(np.int64), indptr), shape=(n, n))

    def to_networkx(self) -> Any:
        """The graph as a ``networkx.DiGraph`` (directed) or ``networkx.Graph`` (undirected).

        Every vertex ``0 .. n-1`` is a node (isolated ones too); weighted graphs put the weight
        in the ``'weight'`` edge attribute. Loads the whole graph into memory. Needs networkx.
        """
        import networkx as nx

        indptr, indices, weights = self._csr()
        h = nx.DiGraph() if self.directed else nx.Graph()
        n = self.num_vertices
        h.add_nodes_from(range(n))
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr)).tolist()
        dst = indices.tolist()
        if weights is None:
            h.add_edges_from(zip(src, dst))
        else:
            h.add_weighted_edges_from(zip(src, dst, weights.astype(np.float64).tolist()))
        return h


def open(
    path: PathLike,
    backend: str = "mmap",
    memory: Size = "256MiB",
    policy: str = "clock",
    page_size: Size = "4KiB",
    advice: str = "normal",
) -> Graph:
    """Opens the graph directory ``path``.

    Args:
        path: a graph directory written by ocgraph.
        backend: ``"mmap"`` (memory-mapped files; the OS page cache does the I/O) or
            ``"pool"`` (a user-space buffer pool with a hard memory budget).
        memory: pool capacity: bytes as an int, or a string like ``"256MB"`` or ``"1GiB"``.
        policy: pool replacement policy: ``"clock"``, ``"lru"``, ``"fifo"``, ``"lifo"`` or
            ``"random"``.
        page_size: pool frame size, a power of two from 4 KiB to 64 KiB.
        advice: mmap access hint for the edge files: ``"normal"``, ``"random"``,
            ``"sequential"`` or ``"willneed"``.

    Raises:
        OcgraphIOError: the directory or a file cannot be read.
        FormatError: the directory is not a valid ocgraph graph.
        InvalidArgumentError: a bad option value.
    """
    return Graph(
        os.fspath(path),
        backend=backend,
        memory=memory,
        policy=policy,
        page_size=page_size,
        advice=advice,
    )
