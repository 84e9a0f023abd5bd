"""The public :class:`Graph` class and :func:`open`."""

from __future__ import annotations

import os
import warnings
from typing import Any, Union

import numpy as np

from . import _mine, _ocgraph
from ._args import (
    MAX_THREADS,
    U32_MAX,
    finite_weights,
    flag_arg,
    float_arg,
    int_arg,
    int_ids,
    not_an_iterator,
    size_arg,
    threads_arg,
    unmasked,
    weight_arg,
)
from ._errors import InvalidArgumentError, OcgraphMemoryError, VertexError
from ._ocgraph import Graph as _NativeGraph
from ._vectors import by_vertex, personalization_vector

Size = Union[int, str]
PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["Graph", "open"]


def _io_since(before: dict, after: dict) -> dict:
    """The :meth:`Graph.io_stats` counters of what happened between two readings, with the
    ratios of those counts (the pool's occupancy as of the second reading)."""
    gauges = ("resident_bytes", "capacity_bytes")
    io = {k: v - before[k] if isinstance(v, int) and k not in gauges else v for k, v in after.items()}
    for ratio, part, whole in [
        ("hit_ratio", "hits", "page_requests"),
        ("sequential_ratio", "sequential_reads", "read_calls"),
        ("random_write_ratio", "random_writes", "write_calls"),
    ]:
        io[ratio] = io[part] / io[whole] if io[whole] else 0.0
    return io


class Graph(_NativeGraph):
    """An opened on-disk graph.

    Create one with :func:`ocgraph.open` (or ``Graph(path, ...)`` with the same arguments).
    Reads go through the chosen page backend; a ``pool`` graph never holds more than its
    ``memory`` budget of graph data in RAM.

    Attributes (read-only): ``num_vertices``, ``num_edges`` (an undirected edge counts once),
    ``num_arcs`` (stored neighbour entries: an undirected edge ``u != v`` counts twice),
    ``directed``, ``weighted``, ``packed``, ``path``, ``closed``, ``writable``.

    Vertex arguments outside ``0 .. num_vertices - 1`` raise :class:`ocgraph.VertexError`
    (an ``IndexError`` and an ``InvalidArgumentError``). Using a closed graph raises
    :class:`ocgraph.InvalidArgumentError`. The graph is a context manager: ``with`` closes it.
    """

    def __enter__(self) -> Graph:
        if self.closed:
            raise InvalidArgumentError("operation on a closed graph")
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
        give a symmetric matrix; duplicate arcs are summed (scipy's rule). Loads the whole graph
        into memory: for graphs that fit.
        Needs scipy.
        """
        import scipy.sparse as sp

        indptr, indices, weights = self._csr()
        n = len(indptr) - 1
        data = weights.astype(np.float64) if weights is not None else np.ones(len(indices))
        return sp.csr_matrix((data, indices.astype(np.int64), indptr), shape=(n, n))

    def to_networkx(self) -> Any:
        """The graph as a ``networkx.DiGraph`` (directed) or ``networkx.Graph`` (undirected).

        Every vertex ``0 .. n-1`` is a node (isolated ones too); weighted graphs put the weight
        in the ``'weight'`` edge attribute. networkx graphs are simple: duplicate arcs collapse
        into one edge with the smallest of their weights (as ``dedup`` and ``sssp`` read them).
        Loads the whole graph into memory.
        Needs networkx.
        """
        import networkx as nx

        indptr, indices, weights = self._csr()
        h = nx.DiGraph() if self.directed else nx.Graph()
        n = len(indptr) - 1
        h.add_nodes_from(range(n))
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr)).tolist()
        dst = indices.tolist()
        if weights is None:
            h.add_edges_from(zip(src, dst))
        else:
            # networkx keeps the last weight given for an edge: add the heaviest arcs first.
            order = np.argsort(-weights.astype(np.float64), kind="stable")
            src, dst = np.asarray(src)[order].tolist(), np.asarray(dst)[order].tolist()
            h.add_weighted_edges_from(zip(src, dst, weights.astype(np.float64)[order].tolist()))
        return h

    # ----- pandas / Arrow (needs pyarrow; see ocgraph._arrow) ------------------------------

    def iter_arrow_batches(
        self,
        batch_rows: int = 1 << 20,
        original_ids: bool = True,
        source: str = "src",
        target: str = "dst",
        weight: str = "weight",
    ) -> Any:
        """The edges as ``pyarrow.RecordBatch`` es of about ``batch_rows`` rows, read one slice
        of vertices at a time (for graphs larger than memory).

        Columns named by ``source``, ``target`` (default ``src``, ``dst``) and, on weighted
        graphs, ``weight`` (default ``weight``, float32). An undirected edge appears once, with
        its source's vertex id at most its target's. With
        ``original_ids`` the ids are the input's (uint64 or string) on relabelled or reordered
        graphs; on other graphs they are the vertex ids (uint32).
        """
        from ._arrow import iter_arrow_batches

        # Checked here, not at the first batch: the columns must read back by name.
        batch_rows = int_arg("batch_rows", batch_rows, 1, 2**62)
        original_ids = flag_arg("original_ids", original_ids)
        columns = [source, target] + ([weight] if self.weighted else [])
        if not all(isinstance(c, str) and c for c in columns) or len(set(columns)) < len(columns):
            raise InvalidArgumentError(f"column names must be distinct non-empty strings, got {columns}")
        return iter_arrow_batches(self, batch_rows, original_ids, source, target, weight)

    def to_arrow(self, original_ids: bool = True, **names: str) -> Any:
        """The edges as a ``pyarrow.Table`` (see :meth:`iter_arrow_batches` for the columns;
        ``source=``, ``target=``, ``weight=`` rename them). Holds the whole edge list in memory."""
        import pyarrow as pa

        batches = list(self.iter_arrow_batches(original_ids=original_ids, **names))
        if not batches:
            return pa.Table.from_batches([], schema=self._arrow_schema(original_ids, **names))
        return pa.Table.from_batches(batches)

    def _arrow_schema(self, original_ids: bool, **names: str) -> Any:
        import pyarrow as pa

        ids = self.original_ids() if original_ids and self._keeps_ids() else None
        t = pa.string() if isinstance(ids, list) else pa.uint32() if ids is None else pa.uint64()
        fields = [(names.get("source", "src"), t), (names.get("target", "dst"), t)]
        if self.weighted:
            fields.append((names.get("weight", "weight"), pa.float32()))
        return pa.schema(fields)

    def to_pandas(self, original_ids: bool = True, **names: str) -> Any:
        """The edges as a pandas ``DataFrame`` (the columns of :meth:`to_arrow`)."""
        return self.to_arrow(original_ids=original_ids, **names).to_pandas()

    def edges(self, format: str = "arrow", original_ids: bool = True, **names: str) -> Any:
        """The edges as a ``pyarrow.Table`` (``format="arrow"``, :meth:`to_arrow`), a pandas
        ``DataFrame`` (``"pandas"``, :meth:`to_pandas`) or an iterator of
        ``pyarrow.RecordBatch`` es read a slice at a time (``"batches"``,
        :meth:`iter_arrow_batches`, for graphs larger than memory). Columns ``src``, ``dst`` (and
        ``weight``), renamed by ``source=``, ``target=``, ``weight=``; vertices by original id
        unless ``original_ids=False``."""
        export = {"arrow": self.to_arrow, "pandas": self.to_pandas, "batches": self.iter_arrow_batches}
        if format not in export:
            raise InvalidArgumentError(f"format must be one of {', '.join(export)}, got {format!r}")
        return export[format](original_ids=original_ids, **names)

    def to_series(self, values: Any, name: str | None = None) -> Any:
        """A per-vertex result (one value per vertex, e.g. :meth:`pagerank`'s scores) as a
        pandas ``Series`` indexed by the original ids (the vertex ids on graphs that were not
        relabelled or reordered)."""
        from ._arrow import to_series

        return to_series(self, values, name)

    # ----- algorithms -------------------------------------------------------------------
    # Each runs in Rust with the GIL released. ``threads``: run on a pool of that many
    # threads, 1 to 1024 (default, or 0: all cores, shared pool).

    def bfs(
        self, source: int, parents: bool = False, threads: int | None = None, layout: str = "auto"
    ) -> Any:
        """Breadth-first search from ``source`` along out-edges.

        Returns the int64 array of hop depths (``-1`` for unreachable vertices), or with
        ``parents=True`` the tuple ``(depths, parents)`` where ``parents`` holds each vertex's
        BFS-tree parent (``-1`` unreachable; the source is its own parent).

        ``layout``: ``"auto"`` (the packed copies of the lists, see :func:`ocgraph.pack_lists`,
        when the graph has them and its buffer pool is smaller than the plain lists, else the
        plain lists; and the hub index, see :func:`ocgraph.index_hubs`, when the graph has one
        and no pending updates), ``"csr"``, ``"packed"`` or ``"hubs"`` (the hub index with the
        lists ``"auto"`` reads); the depths are the same (a parent may differ between equally
        deep candidates).
        """
        parents = flag_arg("parents", parents)
        depth, parent = _ocgraph._bfs(self, source, threads_arg(threads), layout)
        return (depth, parent) if parents else depth

    def sssp(self, source: int, threads: int | None = None, layout: str = "auto") -> np.ndarray:
        """Single-source shortest-path distances from ``source`` along out-edges (float64;
        ``inf`` for unreachable vertices). Uses the edge weights (which must be >= 0), or 1 per
        edge on unweighted graphs. Parallel delta-stepping. ``layout``: ``"auto"``, ``"csr"`` or
        ``"packed"``, as for :meth:`bfs` (the hub index serves BFS and WCC only)."""
        return _ocgraph._sssp(self, source, threads_arg(threads), layout)

    def wcc(self, threads: int | None = None, layout: str = "auto") -> np.ndarray:
        """Weakly connected components: a uint32 label per vertex, the smallest vertex id of its
        component (edge directions ignored).

        ``layout``: ``"auto"`` (the hub index as for :meth:`bfs` when the graph has one, else the
        grid when it has one, see :func:`ocgraph.build_grid`, else the adjacency lists as for
        :meth:`bfs`), ``"csr"``, ``"packed"``, ``"grid"`` or ``"hubs"``; the labels are the
        same."""
        return _ocgraph._wcc(self, threads_arg(threads), layout)

    def spmv(self, x: Any = None, threads: int | None = None, layout: str = "auto") -> np.ndarray:
        """Sparse matrix-vector product ``y = A^T x``: for each vertex the sum of ``x`` over its
        in-neighbours, times the edge weights on a weighted graph (float64). ``x``: one value
        per vertex (default all ones: ``y`` is then the weighted in-degree). ``layout``:
        ``"auto"``, ``"csr"``, ``"packed"`` or ``"grid"``, as for :meth:`pagerank`."""
        view = self._pinned()  # the vertex count and the product from one snapshot
        n = view.num_vertices
        if x is None:
            try:
                x = np.ones(n)
            except MemoryError:
                raise OcgraphMemoryError(f"spmv's x on {n} vertices ({8 * n} bytes)") from None
        else:
            given = unmasked("x", by_vertex(x, view.original_ids, "x"))
            if given.dtype.kind not in "biuf":
                raise InvalidArgumentError(f"x must hold real numbers, got dtype {given.dtype}")
            if given.shape != (n,):
                raise InvalidArgumentError(f"x must have one value per vertex ({n}), got shape {given.shape}")
            x = np.ascontiguousarray(given, dtype=np.float64)
        return _ocgraph._spmv(view, x, threads_arg(threads), layout)

    def _by_vertex(self, values: Any, what: str) -> Any:
        """``values`` in vertex order: a pandas ``Series`` (as :meth:`to_series` gives) is read
        by its index, the original ids (the vertex ids on graphs not relabelled), not by
        position; anything else is returned as given."""
        return by_vertex(values, self.original_ids, what)

    def pagerank(
        self,
        damping: float = 0.85,
        max_iter: int = 100,
        tol: float = 1e-6,
        personalization: Any = None,
        weight: bool = True,
        threads: int | None = None,
        method: str = "jacobi",
        as_series: bool = False,
        layout: str = "auto",
    ) -> Any:
        """PageRank scores (float64, summing to 1) with networkx's semantics
        (``networkx.pagerank(G, alpha=damping, max_iter=..., tol=..., personalization=...)``):
        dangling vertices redistribute by the personalization vector; iteration stops when the
        L1 change is below ``num_vertices * tol``. Every arc the handle reads counts: on a graph
        imported without ``dedup``, a read-only handle reads repeated edges as many times as they
        appear, and they weigh so (as in ``networkx.MultiDiGraph``; :meth:`to_networkx` merges
        them, so its scores differ there); a writable handle, or any handle once the graph has
        taken an update, reads each once (the guide, "Updates and durability").

        ``personalization``: ``None`` (uniform), a dict ``{vertex: weight}`` (missing vertices
        get 0), an array of ``num_vertices`` non-negative values, or a pandas ``Series``
        indexed by original ids (missing vertices get 0); normalised internally.
        ``weight``: use edge weights on weighted graphs (``True``; also networkx's ``"weight"``;
        ``False`` or ``None``: every arc weighs 1). Unlike networkx, reaching ``max_iter``
        without converging does not raise; the scores of the last iteration are returned
        (with ``max_iter=0``, the starting vector: uniform for ``"jacobi"``, as networkx starts,
        the personalization vector for ``"gauss-seidel"``).
        A ``RuntimeWarning`` says so when ``tol`` is above 0 and ``max_iter`` above 0.
        ``method``: ``"jacobi"`` (networkx's power iteration, the same iterates, and the same
        scores bit for bit on every run and thread count; from 65,536 vertices on, at
        tolerances of ``1e-6 / num_vertices`` and above and at ``tol=0`` (a fixed number of
        iterations), each contribution is rounded to float32, within a few 1e-8 of them in L1) or
        ``"gauss-seidel"`` (in-place sweeps as GAPBS: the same fixed point, in fewer sweeps on
        many large graphs but more on others: small graphs, damping near 1, reordered copies;
        the iterates depend on thread timing).
        ``as_series``: return a pandas ``Series`` indexed by the original ids
        (:meth:`to_series`) instead of an array indexed by vertex.
        ``layout``: ``"auto"`` (the grid when the graph has one, see :func:`ocgraph.build_grid`,
        else the adjacency lists as for :meth:`bfs`), ``"csr"``, ``"packed"`` or ``"grid"``; each
        gives the same scores.
        """
        # With a personalization vector, its length and the scores from one snapshot.
        g = self if personalization is None else self._pinned()
        p = (
            None
            if personalization is None
            else personalization_vector(
                by_vertex(personalization, g.original_ids, "personalization", missing=0.0), g.num_vertices
            )
        )
        max_iter, tol = int_arg("max_iter", max_iter), float_arg("tol", tol)
        scores, iterations, converged = _ocgraph._pagerank(
            g, float_arg("damping", damping), max_iter, tol, p, weight_arg(weight), method,
            threads_arg(threads), layout,
        )  # fmt: skip
        if not converged and tol > 0 and max_iter > 0:
            warnings.warn(
                f"pagerank did not converge to tol={tol} in {iterations} iterations (max_iter); "
                "the scores of the last iteration are returned",
                RuntimeWarning,
                stacklevel=2,
            )
        if flag_arg("as_series", as_series):
            from ._arrow import to_series

            return to_series(self, scores, "pagerank", computed=True)
        return scores

    def triangle_count(self, threads: int | None = None) -> int:
        """Exact number of triangles of the underlying undirected simple graph (directions,
        duplicate edges and self-loops ignored); equals ``sum(nx.triangles(G).values()) // 3``."""
        return _ocgraph._triangle_count(self, threads_arg(threads))

    def diameter_estimate(self, start: int | None = None, sweeps: int = 4, threads: int | None = None) -> int:
        """A lower bound on the diameter (longest shortest hop distance along out-edges) from
        ``sweeps`` BFS sweeps, starting at ``start``, each from the farthest vertex of the last.
        ``start`` defaults to a vertex of highest out-degree (likely in the largest component:
        a sweep sees only its start's component)."""
        if start is None:
            degrees = self.out_degrees()
            start = int(np.argmax(degrees)) if len(degrees) else 0
        bound, _u, _v = _ocgraph._diameter_estimate(
            self, start, int_arg("sweeps", sweeps, 1), threads_arg(threads)
        )
        return bound

    def k_hop(self, v: int, k: int, threads: int | None = None) -> np.ndarray:
        """Vertices within ``k`` hops of ``v`` along out-edges, excluding ``v`` (sorted uint32)."""
        return _ocgraph._k_hop(self, v, int_arg("k", k), threads_arg(threads))

    def friends_of_friends(self, v: int, threads: int | None = None) -> np.ndarray:
        """Vertices exactly two hops from ``v`` along out-edges: not ``v`` and not one of its
        out-neighbours (sorted uint32)."""
        return _ocgraph._friends_of_friends(self, v, threads_arg(threads))

    def shortest_path(self, source: int, target: int, threads: int | None = None) -> list | None:
        """A path with the fewest hops from ``source`` to ``target`` along out-edges, as a list
        of vertices ``[source, ..., target]``, or ``None`` when ``target`` is unreachable."""
        return _ocgraph._shortest_path(self, source, target, threads_arg(threads))

    def query(self, workload: PathLike, prefetch: str = "none", clients: int = 1, memory: Any = None) -> dict:
        """Answers the queries of a workload file (see :func:`ocgraph.workload`) with a
        prefetcher (``"none"``, ``"neighbourhood"``, ``"sequential"``, ``"omniscient"``) and
        ``clients`` concurrent query threads. ``memory`` (bytes or a string like ``"64MB"``):
        what the graph's pages get, so the neighbourhood prefetcher counts a prediction only
        while its pages still fit; default the pool's capacity (unbounded with mmap).

        Returns the report as a dict (``seconds``, ``queries_per_second``, ``latency`` in
        microseconds, ``progress``, ``advisor``, ``io``: the :meth:`io_stats` counters of this
        run) with ``"answers"``: per query, the sorted vertex list (edge queries: the
        neighbours, as :meth:`neighbors` gives them, so a repeated edge of a graph imported
        without ``dedup`` repeats its neighbour; fof: vertices at distance exactly 2, each
        once), or for shortest paths the path
        ``[source, ..., target]`` or ``None`` when unreachable."""
        import json

        before = self.io_stats()
        report, answers = _ocgraph._query(
            self,
            os.fsdecode(workload),
            prefetch,
            int_arg("clients", clients, 1, MAX_THREADS),
            None if memory is None else size_arg("memory", memory),
        )
        out = json.loads(report)
        out["io"] = _io_since(before, self.io_stats())
        out["answers"] = answers
        return out

    # ----- pattern mining (docs/mining.md) ------------------------------------------------
    # On the undirected simple view (directions, loops and duplicate edges ignored). A pattern
    # is a name ("triangle", "4-cycle", "5-clique", ...) or a list of (a, b) edges over pattern
    # vertices 0 .. k-1 (at most 8, connected). Matches are rows of data vertex ids.

    def count_cliques(self, k: int, threads: int | None = None) -> int:
        """Number of ``k``-cliques (2 <= k <= 16)."""
        return _ocgraph._count_cliques(self, _clique_size(k), threads_arg(threads))

    def list_cliques(self, k: int, threads: int | None = None) -> np.ndarray:
        """Every ``k``-clique, one row each (ascending ids): a ``(count, k)`` uint32 array."""
        return _ocgraph._list_cliques(self, _clique_size(k), threads_arg(threads))

    def motifs(self, size: int = 3, directed: bool = False, threads: int | None = None) -> np.ndarray:
        """Induced counts of every connected undirected pattern of ``size`` (3 or 4) vertices,
        or with ``directed=True`` (size 3) the 16-class triad census (as networkx's
        ``triadic_census``); a uint64 array ordered as ``ocgraph.MOTIF_NAMES[(size, directed)]``."""
        _names, counts = _ocgraph._motifs(
            self, int_arg("size", size), flag_arg("directed", directed), threads_arg(threads)
        )
        return counts

    def match(
        self,
        pattern: Any,
        induced: bool = False,
        labels: Any = None,
        pattern_labels: Any = None,
        threads: int | None = None,
    ) -> np.ndarray:
        """Every match of ``pattern``, each once: a ``(count, k)`` uint32 array, row ``i`` the
        data vertices of match ``i`` in pattern-vertex order. ``pattern``: a name
        (``"4-cycle"``), a list of ``(a, b)`` edges over pattern vertices ``0 .. k-1``, or an
        undirected networkx graph (its nodes, in ``nodes`` order, are the pattern vertices; a
        node attribute ``label`` gives ``pattern_labels`` when those are not passed, a node
        without one a wildcard; a directed graph is refused: patterns are undirected).
        ``pattern_labels`` is a list in pattern-vertex order or a mapping from pattern vertex
        (a graph's node) to label. ``induced``: vertex-induced (no
        edge among the matched vertices beyond the pattern's) instead of edge-induced.
        ``pattern_labels`` (one per pattern vertex) with ``labels`` (one per data vertex, a
        pandas ``Series`` read by its index of original ids; default: the labels stored with
        the graph, see :meth:`vertex_labels`): pattern vertices match only data vertices with
        their label."""
        return self._match(pattern, induced, labels, pattern_labels, True, threads)[1]

    def count_matches(
        self,
        pattern: Any,
        induced: bool = False,
        labels: Any = None,
        pattern_labels: Any = None,
        threads: int | None = None,
    ) -> int:
        """Number of matches of ``pattern`` (as :meth:`match`, without listing them)."""
        return self._match(pattern, induced, labels, pattern_labels, False, threads)[0]

    def _match(
        self, pattern: Any, induced: bool, labels: Any, pattern_labels: Any, listing: bool, threads: Any
    ) -> tuple[int, np.ndarray]:
        """``(count, rows)`` of the matches of ``pattern`` (``rows`` only when ``listing``)."""
        name, edges, plabels = _mine.pattern_args(pattern, pattern_labels)
        view = self._pinned()  # the labels and the matches from one snapshot
        data = _data_labels(view, plabels, labels)
        if data is None and plabels is not None and any(x is not None for x in plabels):
            raise InvalidArgumentError(
                f"the pattern is labelled and the graph {self.path} has no labels: set them with "
                "set_vertex_labels (or import them), or pass labels= (one per vertex)"
            )
        return _ocgraph._match(
            view, name, edges, plabels, flag_arg("induced", induced), data, listing, threads_arg(threads)
        )

    def watch(
        self, pattern: Any, induced: bool = False, labels: Any = None, pattern_labels: Any = None
    ) -> _mine.Watch:
        """Watches ``pattern`` (arguments as :meth:`match`): every later ``add_edges``,
        ``remove_edges``, ``remove_vertices`` and ``set_vertex_labels`` on this graph records
        the matches it made appear and disappear and, for a labelled pattern, those whose data
        vertices' labels it changed; ``w.changes()`` returns them (``added, removed =
        w.changes()``; ``.modified`` for the relabelled ones). The watch's data labels start as
        ``labels`` or the graph's (none: every vertex unlabelled) and follow
        ``set_vertex_labels``. Stop with :meth:`unwatch`."""
        if self.closed:
            raise InvalidArgumentError("operation on a closed graph")
        if not self.writable:
            # A watch sees the batches of this handle only: on a read-only one it never would.
            raise InvalidArgumentError(
                "the graph was opened read-only; use ocgraph.open(path, writable=True) to watch it"
            )
        name, edges, plabels = _mine.pattern_args(pattern, pattern_labels)
        with _mine.adding_watch(self):
            # No batch commits while the watch is added: its labels are those of the graph
            # its first batch finds.
            data = _data_labels(self, plabels, labels)
            if data is None and plabels is not None:
                data = np.full(self.num_vertices, _mine.NO_LABEL, dtype=np.uint32)
            w = _mine.Watch(name, edges, plabels, flag_arg("induced", induced), data)
            self.__dict__.setdefault("_watches", []).append(w)
        return w

    def vertex_labels(self) -> np.ndarray | None:
        """The labels stored with the graph (:func:`ocgraph.set_labels`, ``labels=`` of
        :func:`ocgraph.import_edges`, and on a graph with updates :meth:`set_vertex_labels`),
        one uint32 per vertex, ``ocgraph.NO_LABEL`` for a vertex without one (vertices added
        by updates have none until labelled); None when the graph has no labels."""
        return _ocgraph._vertex_labels(self)

    def set_vertex_labels(self, vertices: Any, labels: Any, durable: bool | None = None) -> int:
        """Sets the label of ``vertices[i]`` to ``labels[i]`` (in order: the last one per vertex
        wins) as one update batch; ``ocgraph.NO_LABEL`` removes a vertex's label. A graph
        without labels gets them (every other vertex unlabelled). Returns the batch's sequence
        number (see :meth:`add_edges` for ``durable``)."""
        v = _ids(vertices, "vertices")
        lab = _mine.data_labels(np.atleast_1d(labels))
        if lab is None or len(lab) != len(v):
            raise InvalidArgumentError(f"set_vertex_labels: {len(v)} vertices need as many labels")
        empty = np.empty(0, dtype=np.int64)
        with _mine.watched_update(self) as batch:
            batch.touched = lambda: (empty, empty, v, lab)
            return _ocgraph._set_vertex_labels(self, v, lab, _durable(durable))

    def unwatch(self, w: _mine.Watch) -> None:
        """Stops recording changes for ``w``.

        Raises:
            InvalidArgumentError: ``w`` is not watching this graph (unwatched already, or
                from another graph's :meth:`watch`).
        """
        with _mine.watch_lock(self):
            watches = self.__dict__.get("_watches", [])
            if not any(x is w for x in watches):
                raise InvalidArgumentError("unwatch: w is not watching this graph (unwatched already?)")
            watches.remove(w)

    # ----- updates (graphs opened with writable=True) ------------------------------------
    # Each call is one batch in the write-ahead log, on disk when the graph's durability mode
    # says (durable=None, the default: when the call returns in mode "batch"); durable=True
    # makes this call return once its batch is on disk whatever the mode. The return value is
    # the batch's sequence number.
    # Graph semantics: simple graph (adding an existing edge replaces its weight; removing a
    # missing edge does nothing; on a base imported with repeated edges, every copy is one
    # edge); undirected graphs update both directions.

    def add_edges(
        self, src: Any, dst: Any, weights: Any = None, durable: bool | None = None, ids: str = "internal"
    ) -> int:
        """Adds the edges ``src[i] -> dst[i]``, with ``weights`` (weighted graphs; 1.0 when
        omitted). An edge the graph has takes the new weight, and an edge given several times in
        one call the last weight given (unlike ``dedup`` at import, which keeps the smallest).
        ``ids="internal"``: vertex ids (array-likes of ints); ``ids="original"``: the
        ids of the input (ints or strs, as imported; see ``original_id``), where an id the graph
        does not have yet gets a new vertex."""
        if _by_original(ids):
            src, dst = _original_ids(src, "src"), _original_ids(dst, "dst")
            w = None if weights is None else _weights(weights, len(src))
            with _mine.watched_update(self) as batch:
                # New ids have vertices once the batch committed.
                batch.touched = lambda: self._known_pairs(src, dst)
                return _ocgraph._add_edges_by_id(self, src, dst, w, _durable(durable))
        s, d = _ids(src, "src"), _ids(dst, "dst")
        w = None if weights is None else _weights(weights, len(s))
        with _mine.watched_update(self) as batch:
            batch.touched = lambda: (s, d)
            return _ocgraph._add_edges(self, s, d, w, _durable(durable))

    def remove_edges(self, src: Any, dst: Any, durable: bool | None = None, ids: str = "internal") -> int:
        """Removes the edges ``src[i] -> dst[i]`` (missing edges are ignored); ``ids`` as in
        :meth:`add_edges`."""
        if _by_original(ids):
            src, dst = _original_ids(src, "src"), _original_ids(dst, "dst")
            with _mine.watched_update(self) as batch:
                if batch.before is not None:
                    pairs = self._known_pairs(src, dst)
                    batch.touched = lambda: pairs
                return _ocgraph._remove_edges_by_id(self, src, dst, _durable(durable))
        s, d = _ids(src, "src"), _ids(dst, "dst")
        with _mine.watched_update(self) as batch:
            batch.touched = lambda: (s, d)
            return _ocgraph._remove_edges(self, s, d, _durable(durable))

    def _known_pairs(self, src: list, dst: list) -> tuple[np.ndarray, np.ndarray]:
        """The vertex pairs of the original-id pairs ``src[i], dst[i]`` whose ids both exist."""
        vs = [(self._known(a), self._known(b)) for a, b in zip(src, dst)]
        known = [(a, b) for a, b in vs if a is not None and b is not None]
        return (
            np.array([a for a, _ in known], dtype=np.int64),
            np.array([b for _, b in known], dtype=np.int64),
        )

    def _known(self, original_id: Any) -> int | None:
        """The vertex of ``original_id``, or None: for the watches, before the batch's own check,
        which refuses an id of the wrong type with the documented error."""
        try:
            return self.vertex(original_id)
        except TypeError:
            return None

    def set_edge_weights(
        self, src: Any, dst: Any, weights: Any, durable: bool | None = None, ids: str = "internal"
    ) -> int:
        """Sets the weights of existing edges (weighted graphs; missing edges are ignored);
        ``ids`` as in :meth:`add_edges`."""
        # No pattern sees weights, but the batch is one the watches must be able to tell
        # from another thread's refused one (see `_mine.watched_update`).
        if _by_original(ids):
            src, dst = _original_ids(src, "src"), _original_ids(dst, "dst")
            w = _weights(weights, len(src))
            with _mine.watched_update(self) as batch:
                batch.touched = _no_pairs
                return _ocgraph._set_edge_weights_by_id(self, src, dst, w, _durable(durable))
        s, d = _ids(src, "src"), _ids(dst, "dst")
        w = _weights(weights, len(s))
        with _mine.watched_update(self) as batch:
            batch.touched = _no_pairs
            return _ocgraph._set_edge_weights(self, s, d, w, _durable(durable))

    def add_vertices(
        self, count: Any = None, durable: bool | None = None, ids: Any = None, n: Any = None
    ) -> np.ndarray:
        """Adds ``count`` isolated vertices and returns their vertex ids (int64 array); ``n`` is
        another name for ``count``. On a graph imported with ``relabel`` every vertex has an
        original id: pass ``ids=[...]`` instead (each id not in the graph yet gets a vertex;
        returns the vertex of every id)."""
        if n is not None:
            if count is not None:
                raise InvalidArgumentError("add_vertices: give count or n, not both")
            count = n
        if ids is not None:
            if count is not None:
                raise InvalidArgumentError("add_vertices: give count or ids, not both")
            ids = _original_ids(ids, "ids")
            with _mine.watched_update(self) as batch:
                batch.touched = _no_pairs
                added = _ocgraph._add_vertices_by_id(self, ids, _durable(durable))
            return np.asarray(added, dtype=np.int64)
        if count is None:
            raise InvalidArgumentError("add_vertices: give count or ids")
        # The array returned is allocated before the batch is committed: a count too large
        # for memory fails before it adds anything (the total count must fit 32 bits).
        count = int_arg("count", count, 0, U32_MAX - self.num_vertices)
        try:
            out = np.arange(count, dtype=np.int64)
        except MemoryError:
            raise OcgraphMemoryError(f"add_vertices' result of {count} ids ({8 * count} bytes)") from None
        with _mine.watched_update(self) as batch:
            batch.touched = _no_pairs
            first, _end = _ocgraph._add_vertices(self, len(out), _durable(durable))
        out += first
        return out

    def remove_vertices(
        self, vertices: Any = None, durable: bool | None = None, ids: Any = "internal"
    ) -> int:
        """Removes every edge of each vertex in ``vertices`` (vertex ids stay valid with
        degree 0); with ``ids="original"``, ``vertices`` holds original ids (an unknown one
        raises). ``remove_vertices(ids=[...])``, with a list rather than a mode name, names the
        vertices by original id, as ``add_vertices(ids=[...])`` does (on a graph imported
        without ``relabel`` these are the vertex ids)."""
        if vertices is None:
            if ids is None or isinstance(ids, str):
                raise InvalidArgumentError("remove_vertices: give the vertices to remove")
            vertices, ids = ids, "original"
        by_original = _by_original(ids)
        vertices = _original_ids(vertices, "vertices") if by_original else vertices
        internal = None if by_original else _ids(vertices, "vertices")
        with _mine.watched_update(self) as batch:
            if batch.before is not None:
                if by_original:
                    # Looked up under the watch lock: an id another batch adds meanwhile is seen.
                    found = [self._known(x) for x in vertices]
                    internal = _ids([v for v in found if v is not None], "vertices")
                pairs = _mine.incident_pairs(self, internal)
                batch.touched = lambda: pairs
            if by_original:
                return _ocgraph._remove_vertices_by_id(self, vertices, _durable(durable))
            return _ocgraph._remove_vertices(self, internal, _durable(durable))

    def freeze(self) -> None:
        """Writes the in-memory delta to a new immutable level on disk."""
        _ocgraph._freeze(self)

    def compact(self) -> None:
        """Merges the base and every level into a new base (atomic switch; readers of older
        snapshots are unaffected)."""
        _ocgraph._compact(self)

    def sync(self) -> None:
        """Makes every update so far durable."""
        _ocgraph._sync(self)

    def maintain(
        self,
        kind: str,
        source: int | None = None,
        damping: float | None = None,
        tol: float | None = None,
        background: bool = False,
    ) -> Any:
        """Keeps a result current as the graph changes (writable graphs).

        ``kind`` is ``"bfs"`` or ``"sssp"`` (with ``source``: hop counts, ``-1`` unreachable;
        distances, ``inf`` unreachable), ``"wcc"`` (component labels: the smallest vertex id of
        the component) or ``"pagerank"`` (``damping``, default 0.85, and networkx's ``tol``,
        default 1e-6; other kinds refuse them). Several may be kept at
        once. Every update call updates each of them before it returns. The returned object has
        ``result()`` (a numpy array for the current graph), ``changes()`` (``(vertices, old,
        new)`` arrays since the previous call), ``save()`` and ``stop()``. :meth:`close` saves
        them under ``<graph>/maintained/``; a later ``maintain`` reuses a saved result when the
        graph has not changed since, and recomputes it otherwise.

        With ``background=True`` the result is updated on a thread of its own: update calls
        return once their batch is queued (waiting only while a few batches are), and
        ``result()``, ``changes()`` and ``wait(seq)`` first wait for the batches committed
        before them (``wait(seq)``: for batch ``seq``, an update call's return value).
        """
        if kind in ("bfs", "sssp", "wcc"):
            for name, value in (("damping", damping), ("tol", tol)):
                if value is not None:
                    raise InvalidArgumentError(f'maintain("{kind}") takes no {name}')
        damping = 0.85 if damping is None else float_arg("damping", damping)
        tol = 1e-6 if tol is None else float_arg("tol", tol)
        m = _ocgraph._maintain(self, kind, source, damping, tol, flag_arg("background", background))
        self.__dict__.setdefault("_maintained", []).append(m)
        return m

    def close(self) -> None:
        """Saves the maintained results (see :meth:`maintain`), then closes the graph (a
        writable graph first makes every update durable). A result the graph no longer admits
        (an ``sssp`` after an update gave an arc a negative weight) is not saved, with a
        ``RuntimeWarning``: ``maintain`` raises its error when it is asked for again. Closing
        twice is allowed."""
        maintained = self.__dict__.pop("_maintained", [])
        try:
            if not self.closed:
                for m in maintained:
                    if m.stopped:
                        continue
                    try:
                        m.save()
                    except InvalidArgumentError as e:
                        warnings.warn(f"maintained {m.name} not saved: {e}", RuntimeWarning, stacklevel=2)
        finally:
            for m in maintained:
                m.stop()
            # A watched batch in another thread reads the graph after its commit: it ends first.
            with _mine.watch_lock(self):
                super().close()

    @property
    def num_levels(self) -> int:
        """Number of on-disk levels over the base (of a read-only handle: as of its snapshot;
        0 for a graph without updates)."""
        return _ocgraph._update_state(self)[0]


def _clique_size(k: Any) -> int:
    """A clique size ``k`` checked against the range the miner takes (so a negative ``k`` is
    told that range, not the one of an unsigned integer)."""
    return int_arg("k", k, 2, _ocgraph.MAX_CLIQUE)


def _no_pairs() -> tuple[np.ndarray, np.ndarray]:
    """The vertex pairs of a batch that adds or removes no edge (weights, new vertices)."""
    empty = np.empty(0, dtype=np.int64)
    return empty, empty


def _data_labels(g: Any, pattern_labels: Any, labels: Any) -> np.ndarray | None:
    """The data labels a match on ``g`` (a graph or a pinned view of one) uses: ``labels``
    when given (a Series read by original id), else for a labelled pattern the stored ones."""
    if labels is None and pattern_labels is not None:
        return _ocgraph._vertex_labels(g)
    data = _mine.data_labels(by_vertex(labels, g.original_ids, "labels"))
    if data is not None and len(data) != g.num_vertices:
        raise InvalidArgumentError(f"{len(data)} labels given for a graph of {g.num_vertices} vertices")
    return data


def _original_ids(ids: Any, what: str) -> list[Any]:
    """``ids`` (original ids: ints or strs) as a list; a lone id (a str or bytes, which ``list``
    would split into characters, or a scalar) is a list of one (an update of one edge or
    vertex)."""
    if np.ma.isMaskedArray(ids):
        ids = unmasked(what, ids)  # ``item()`` would give the value under a mask
    if isinstance(ids, (set, frozenset, dict)) or type(ids).__name__ == "DataFrame":
        # Unordered, or iterated by keys or column names: not a sequence of ids to pair up.
        kind = type(ids).__name__
        raise InvalidArgumentError(f"{what}: give the ids as a list, tuple or array, not a {kind}")
    if isinstance(ids, np.ndarray) and ids.ndim == 0:
        out = [ids.item()]
    elif isinstance(ids, (str, bytes, bytearray)) or not hasattr(ids, "__iter__"):
        out = [ids]
    elif hasattr(ids, "to_pylist"):  # an Arrow array: its scalars are not str or int
        out = ids.to_pylist()
    else:
        out = list(ids)
    for i, x in enumerate(out):
        # A bool is an int to Python, but no id; an int id is unsigned 64-bit, as imported.
        is_int = isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
        if not (isinstance(x, str) or (is_int and 0 <= int(x) < 2**64)):
            raise InvalidArgumentError(
                f"{what}[{i}]: an original id is an int from 0 to 2**64 - 1 or a str, got {x!r}"
            )
    return out


def _by_original(ids: str) -> bool:
    """Whether an update's ``ids`` argument asks for original ids."""
    if ids not in ("internal", "original"):
        raise InvalidArgumentError(f'ids must be "internal" or "original", got {ids!r}')
    return ids == "original"


def _ids(a: Any, name: str) -> np.ndarray:
    """The vertex ids of argument ``name`` as a contiguous int64 array (integers only: see
    :func:`int_ids`; a lone id is an array of one, so that ``add_edges(5, 6)`` adds one edge);
    an unsigned id beyond int64 raises :class:`VertexError` naming it (instead of wrapping to
    a negative), as does a Python int beyond 64 bits."""
    not_an_iterator(name, a)
    # A lone Python int is read as a list of one, so that one past 64 bits is out of range as
    # in a list (numpy would make it an array of objects).
    ids = a if isinstance(a, (list, tuple)) else [a] if type(a) is int else np.atleast_1d(a)
    arr = int_ids(name, ids, InvalidArgumentError, VertexError)
    big = arr > np.iinfo(np.int64).max if arr.dtype == np.uint64 else None
    if big is not None and big.any():
        i = int(np.argmax(big))
        raise VertexError(f"{name}[{i}] = {arr[i]} is out of range")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _durable(durable: Any) -> bool:
    """An update's ``durable``: ``True``, or ``None``/``False`` (as the graph's durability says)."""
    return durable is not None and flag_arg("durable", durable)


def _weights(w: Any, n: int) -> np.ndarray:
    """An update's weights: ``n`` finite float32 numbers (see :func:`finite_weights`); a lone
    number is a list of one."""
    return finite_weights("weights", np.atleast_1d(w), n, InvalidArgumentError)


def open(
    path: PathLike,
    backend: str = "mmap",
    memory: Size = "256MiB",
    policy: str = "clock",
    page_size: Size = "4KiB",
    advice: str = "normal",
    writable: bool = False,
    durability: str = "batch",
    freeze_threshold: Size = "64MiB",
    auto_compact_levels: int | None = 8,
) -> Graph:
    """Opens the graph directory ``path``.

    A graph that has updates (levels or a write-ahead log) opens with every batch logged so
    far, also read-only (while a writer runs, that may include a batch whose call has not
    returned yet). With ``writable=True`` the graph takes updates (:meth:`Graph.add_edges`
    and friends); every read sees the updates made before it.

    Args:
        path: a graph directory written by ocgraph.
        backend: ``"mmap"`` (memory-mapped files; the OS page cache does the I/O) or
            ``"pool"`` (a user-space buffer pool with a hard memory budget).
        memory: pool capacity: bytes as an int, or a string like ``"256MB"`` or ``"1GiB"``.
        policy: pool replacement policy: ``"clock"``, ``"lru"``, ``"fifo"``, ``"lifo"``,
            ``"random"``, ``"s3fifo"``, ``"arc"``, ``"gac"``, or GAC with parameters such as
            ``"gac:decay=0.99:guided=0"``.
        page_size: pool frame size, a power of two from 4 KiB to 64 KiB.
        advice: mmap access hint for the edge files: ``"normal"``, ``"random"``,
            ``"sequential"`` or ``"willneed"``.
        writable: open for updates (a write-ahead log, an in-memory delta frozen into
            levels, compaction).
        durability: (writable) when an update is on disk: ``"batch"`` (fsync per call, shared
            by concurrent calls), ``"interval"`` (fsync every 100 ms) or ``"none"``. A call
            with ``durable=True`` is always on disk when it returns.
        freeze_threshold: (writable) freeze the in-memory delta into a level past this size.
        auto_compact_levels: (writable) compact in the background past this many levels
            (``None``: only :meth:`Graph.compact`).

    Raises:
        OcgraphIOError: the directory or a file cannot be read (a path that does not exist,
            or a directory without a ``manifest``, raises its ``FileNotFoundError`` subclass).
        FormatError: the directory is not a valid ocgraph graph.
        InvalidArgumentError: a bad option value.
    """
    if auto_compact_levels is not None:
        auto_compact_levels = int_arg("auto_compact_levels", auto_compact_levels)
    return Graph(
        os.fsdecode(path),
        backend=backend,
        memory=size_arg("memory", memory),
        policy=policy,
        page_size=size_arg("page_size", page_size),
        advice=advice,
        writable=flag_arg("writable", writable),
        durability=durability,
        freeze_threshold=size_arg("freeze_threshold", freeze_threshold),
        auto_compact_levels=auto_compact_levels,
    )
