"""The same analytics on Apache Spark, for graphs that outgrow one machine (or users that
already run a Spark cluster).

A graph goes to Spark as a partitioned Parquet dataset (:func:`export_parquet`; back with
:func:`import_parquet`). :class:`SparkGraph` runs BFS, SSSP, WCC, PageRank and triangle
counting on it with the signatures and results of :class:`ocgraph.Graph`'s methods, in one of
two designs:

``design="partitions"`` (default)
    every Spark partition owns a source range of the graph and processes it with numpy and
    ocgraph's Rust kernels inside ``mapInArrow``; Spark shuffles only the messages between
    partitions (:mod:`ocgraph.spark._partitions`).
``design="dataframe"``
    supersteps of DataFrame joins, as GraphFrames does (:mod:`ocgraph.spark._frames`).

Example (needs pyspark, pyarrow and Java 17)::

    from ocgraph import spark as osp
    osp.export_parquet("graphs/kron18", "kron18.parquet", partitions=16)
    s = osp.session("local[2]")
    try:
        g = osp.SparkGraph(s, "kron18.parquet", partitions=4)
        ranks = g.pagerank()            # numpy float64, like Graph.pagerank
        labels = g.wcc(collect=False)   # a Spark DataFrame (id, original_id, label)
    finally:
        osp.stop(s)
"""

from __future__ import annotations

import math
import operator
import os
import re
from typing import Any

import numpy as np

from .._args import U32_MAX, flag_arg, float_arg, int_arg, threads_arg, weight_arg
from .._errors import FormatError, InvalidArgumentError, VertexError
from .._vectors import by_vertex, personalization_vector
from . import _frames, _partitions
from ._dataset import (
    check_edge_parts,
    export_parquet,
    import_parquet,
    is_dataset,
    negative_arc,
    read_meta,
    stored_original_ids,
)
from ._session import missing_requirement, session, stop

__all__ = [
    "DESIGNS",
    "SparkGraph",
    "export_parquet",
    "import_parquet",
    "missing_requirement",
    "read_meta",
    "session",
    "stop",
]

DESIGNS = ("partitions", "dataframe")


def _rust_float(x: float, f32: bool = False) -> str:
    """``x`` as Rust's ``Display`` writes it (shortest round-trip digits, no exponent), so that
    the messages below read as the native module's."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return np.format_float_positional(np.float32(x) if f32 else np.float64(x), unique=True, trim="-")


def _native_invalid(message: str) -> InvalidArgumentError:
    """The :class:`InvalidArgumentError` the native module raises for ``message``."""
    return InvalidArgumentError(f"invalid argument: {message}")


_KEYS: dict[tuple[str, int], list[int]] = {}


def _pagerank_options(damping: Any, max_iter: Any, tol: Any) -> tuple[float, int, float]:
    """PageRank's ``damping``, ``max_iter`` and ``tol`` checked as :meth:`ocgraph.Graph.pagerank`
    checks them (the same messages)."""
    damping = float_arg("damping", damping)
    max_iter = int_arg("max_iter", max_iter)
    tol = float_arg("tol", tol)
    if not 0.0 <= damping <= 1.0:
        raise _native_invalid(f"damping must be in [0, 1], got {_rust_float(damping)}")
    if not (tol >= 0 and math.isfinite(tol)):
        raise _native_invalid(f"tol must be non-negative and finite, got {_rust_float(tol)}")
    return damping, max_iter, tol


def _routing_keys(spark: Any, n: int) -> list[int]:
    """For each partition ``p < n``, a key that Spark's hash partitioning into ``n`` sends to
    ``p`` (found once per application with one small Spark job)."""
    from pyspark.sql import functions as F

    cache = (spark.sparkContext.applicationId, n)
    if cache not in _KEYS:
        rows = spark.range(64 * n).select("id", F.expr(f"pmod(hash(id), {n})").alias("p")).collect()
        keys: dict[int, int] = {}
        for r in rows:
            keys.setdefault(int(r.p), int(r.id))
        if len(keys) < n:
            raise RuntimeError(f"no routing key found for {n - len(keys)} of {n} partitions")
        _KEYS[cache] = [keys[p] for p in range(n)]
    return _KEYS[cache]


_LAYOUTS = ("auto", "csr", "packed", "grid", "hubs")


def _literal_path(path: str) -> str:
    """``path`` with Hadoop's glob characters escaped: Spark's readers expand a path as a
    pattern, so ``run[1].parquet`` would read a sibling ``run1.parquet`` instead."""
    return re.sub(r"([\\\[\]{}*?])", r"\\\1", path)


def _local_options(threads: Any, layout: Any, kernel: str) -> None:
    """Checks the one-machine options a call of ``kernel`` may carry as :class:`ocgraph.Graph`
    does, where the check does not depend on the layouts a graph stores: a layout name, and
    ``hubs`` only for the kernels that read the hub index."""
    threads_arg(threads)
    if not isinstance(layout, str) or layout not in _LAYOUTS:
        shown_layout = f'"{layout}"' if isinstance(layout, str) else repr(layout)
        raise _native_invalid(f"unknown layout {shown_layout} ({', '.join(_LAYOUTS)})")
    if layout == "hubs" and kernel not in ("bfs", "wcc"):
        raise _native_invalid("layout hubs: only bfs and wcc read the hub index")


class SparkGraph:
    """A graph's Parquet dataset (see :func:`export_parquet`) opened on a Spark session.

    Args:
        spark: a ``SparkSession`` (see :func:`session`).
        path: the dataset directory or URI, readable by the driver and every executor.
        partitions: Spark partitions per superstep (default: the session's default
            parallelism). The ``partitions`` design groups the dataset's parts into this many
            contiguous ranges, at most one per part: export with at least as many parts.
        design: ``"partitions"`` or ``"dataframe"`` (see the module documentation).

    Every kernel takes ``collect``: ``True`` returns what :class:`ocgraph.Graph` returns (numpy
    arrays), ``False`` a Spark DataFrame ``(id, original_id, <value>)`` left on the cluster,
    for results too large for the driver. The kernels also take the arguments of
    :class:`ocgraph.Graph`'s methods that choose how one machine runs them (``threads``,
    ``layout``), so that the same call runs on either; on Spark the executors set the
    parallelism and the dataset is the layout, so they are checked and otherwise ignored.
    :attr:`supersteps` lists the Spark job groups of the last kernel, one per superstep.

    Raises:
        FormatError: ``path`` is not an ocgraph Parquet dataset.
        InvalidArgumentError: an unknown design or ``partitions < 1``.
        TypeError: ``partitions`` is neither ``None`` nor an integer.
    """

    def __init__(self, spark: Any, path: str, partitions: int | None = None, design: str = "partitions"):
        if design not in DESIGNS:
            raise InvalidArgumentError(f"unknown design {design!r} (expected one of {', '.join(DESIGNS)})")
        if partitions is not None:
            partitions = int_arg("partitions", partitions, 1, U32_MAX)
        self.spark = spark
        # A local path is made absolute: the Python workers of the `partitions` design read it
        # from the working directory the session started in, and Hadoop reads a relative
        # `g-10:30.pq` as a URI of scheme `g-10`.
        self.path = str(path) if "://" in str(path) else os.path.abspath(path)
        if not is_dataset(self.path) and os.path.isfile(os.path.join(self.path, "manifest")):
            raise FormatError(
                f"{self.path} is an ocgraph graph, not a Parquet dataset: export it first with "
                "ocgraph.spark.export_parquet(graph, dataset_path)"
            )
        self.meta = read_meta(self.path)
        check_edge_parts(self.path, self.meta)
        self.partitions = partitions or int(spark.sparkContext.defaultParallelism)
        self.design = design
        self.supersteps: list[str] = []
        self._edges = None
        self._layout = None

    def __repr__(self) -> str:
        return (
            f"<ocgraph.spark.SparkGraph {self.path!r}: {self.num_vertices} vertices, "
            f"{self.meta['num_edges']} edges, design={self.design}, partitions={self.partitions}>"
        )

    @property
    def num_vertices(self) -> int:
        """Number of vertices."""
        return int(self.meta["num_vertices"])

    @property
    def directed(self) -> bool:
        """Whether the graph is directed."""
        return bool(self.meta["directed"])

    @property
    def weighted(self) -> bool:
        """Whether the arcs carry weights."""
        return bool(self.meta["weighted"])

    @property
    def edges(self) -> Any:
        """The arcs as a DataFrame ``(src, dst[, weight])``, hash-partitioned by ``src`` into
        :attr:`partitions` and materialized once."""
        if self._edges is None:
            cols = ["src", "dst"] + (["weight"] if self.weighted else [])
            df = self.spark.read.parquet(_literal_path(f"{self.path}/edges")).select(*cols)
            self._edges = df.repartition(self.partitions, "src").localCheckpoint(eager=True)
        return self._edges

    @property
    def vertices(self) -> Any:
        """The vertex table as a DataFrame ``(id, original_id, out_degree)``."""
        return self.spark.read.parquet(_literal_path(f"{self.path}/vertices"))

    # ----- kernels --------------------------------------------------------------------------

    def bfs(
        self,
        source: int,
        parents: bool = False,
        threads: int | None = None,
        layout: str = "auto",
        collect: bool = True,
    ) -> Any:
        """Hop depths from ``source`` along out-edges (int64, ``-1`` unreachable), or with
        ``parents=True`` ``(depths, parents)`` (a BFS-tree parent per vertex, ``-1``
        unreachable, the source its own parent). As :meth:`ocgraph.Graph.bfs`; the tree may
        differ where several parents are on the previous level. ``collect=False``: a DataFrame
        ``(id, original_id, depth, parent)`` of the reached vertices.

        Raises:
            TypeError: ``source`` is not an integer.
            VertexError: ``source`` is out of range."""
        source = self._vertex(source)
        parents = flag_arg("parents", parents)
        collect = flag_arg("collect", collect)
        _local_options(threads, layout, "bfs")
        self._begin("bfs")
        if self.design == "dataframe":
            df = _frames.bfs(self, source)
        else:
            d = _partitions.bfs_sssp(self, self._get_layout(), source, unit=True)
            df = self._state_frame(d, _partitions.path_columns("depth"))
        if not collect:
            return self._with_original_ids(df)
        depth, parent = self._to_numpy(df, [("depth", np.int64, -1), ("parent", np.int64, -1)])
        return (depth, parent) if parents else depth

    def sssp(
        self, source: int, threads: int | None = None, layout: str = "auto", collect: bool = True
    ) -> Any:
        """Shortest-path distances from ``source`` along out-edges (float64, ``inf``
        unreachable), with the edge weights (1 per edge when unweighted), as
        :meth:`ocgraph.Graph.sssp`. ``collect=False``: a DataFrame ``(id, original_id, dist)``
        of the reached vertices.

        Raises:
            TypeError: ``source`` is not an integer.
            VertexError: ``source`` is out of range.
            InvalidArgumentError: an arc has a negative weight (anywhere in the graph)."""
        source = self._vertex(source)
        collect = flag_arg("collect", collect)
        _local_options(threads, layout, "sssp")
        bad = negative_arc(self.path, self.meta)
        if bad is not None:
            raise self._weight_error(bad, "shortest paths need non-negative weights")
        self._begin("sssp")
        if self.design == "dataframe":
            df = _frames.sssp(self, source)
        else:
            d = _partitions.bfs_sssp(self, self._get_layout(), source, unit=False)
            df = self._state_frame(d, _partitions.path_columns("dist"))
        if not collect:
            return self._with_original_ids(df.select("id", "dist"))
        return self._to_numpy(df, [("dist", np.float64, np.inf)])[0]

    def wcc(self, threads: int | None = None, layout: str = "auto", collect: bool = True) -> Any:
        """Weakly connected components: a uint32 label per vertex, the smallest vertex id of its
        component, as :meth:`ocgraph.Graph.wcc`. ``collect=False``: a DataFrame
        ``(id, original_id, label)``."""
        collect = flag_arg("collect", collect)
        _local_options(threads, layout, "wcc")
        self._begin("wcc")
        if self.design == "dataframe":
            df = _frames.wcc(self)
        else:
            df = self._state_frame(_partitions.wcc(self, self._get_layout()), _partitions.wcc_columns())
        if not collect:
            return self._with_original_ids(df)
        return self._to_numpy(df, [("label", np.int64, -1)])[0].astype(np.uint32)

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
        collect: bool = True,
    ) -> Any:
        """PageRank with networkx's semantics and the iterates of
        :meth:`ocgraph.Graph.pagerank` (``method="jacobi"``): float64 scores summing to 1.
        ``personalization``: ``None``, a dict ``{vertex: weight}``, an array of
        ``num_vertices`` values or a Series indexed by original ids (missing vertices get 0
        in a dict or a Series). Stops when the L1 change is below ``num_vertices * tol`` or
        after ``max_iter`` iterations. ``as_series=True``: a pandas Series indexed by the
        original ids. ``collect=False``: a DataFrame ``(id, original_id, rank)``.

        Raises (with the messages of :meth:`ocgraph.Graph.pagerank`):
            TypeError: ``damping`` or ``tol`` is not a real number, ``max_iter`` not an integer.
            InvalidArgumentError: ``damping`` outside ``[0, 1]``, ``tol`` negative or NaN,
                ``max_iter`` negative, a bad personalization, or with ``weight`` a negative
                arc weight; a ``method`` other than ``"jacobi"`` (the iteration Spark runs)."""
        _local_options(threads, layout, "pagerank")
        as_series = flag_arg("as_series", as_series)
        collect = flag_arg("collect", collect)
        if method != "jacobi":
            raise InvalidArgumentError(
                f"method must be 'jacobi' on Spark (supersteps are Jacobi steps), got {method!r}"
            )
        p = (
            None
            if personalization is None
            else personalization_vector(
                by_vertex(personalization, self.original_ids, "personalization", missing=0.0),
                self.num_vertices,
            )
        )
        damping, max_iter, tol = _pagerank_options(damping, max_iter, tol)
        p = self._teleport(p)
        weight = weight_arg(weight)
        bad = negative_arc(self.path, self.meta) if weight else None
        if bad is not None:
            raise self._weight_error(bad, "PageRank needs finite weights >= 0")
        self._begin("pagerank")
        if self.design == "dataframe":
            df = _frames.pagerank(self, damping, max_iter, tol, p, weight)
            df = df.withColumnRenamed("x", "rank")
        else:
            d = _partitions.pagerank(self, self._get_layout(), damping, max_iter, tol, p, weight)
            df = self._state_frame(d, _partitions.rank_columns())
        if not collect:
            return self._with_original_ids(df)
        ranks = self._to_numpy(df, [("rank", np.float64, 0.0)])[0]
        return self.to_series(ranks, "pagerank") if as_series else ranks

    def triangle_count(self, threads: int | None = None) -> int:
        """Triangles of the underlying undirected simple graph, as
        :meth:`ocgraph.Graph.triangle_count`."""
        _local_options(threads, "auto", "triangles")
        self._begin("triangles")
        if self.design == "dataframe":
            return _frames.triangle_count(self)
        return _partitions.triangle_count(self, self._get_layout())

    def to_series(self, values: Any, name: str | None = None) -> Any:
        """A per-vertex result as a pandas ``Series`` indexed by the original ids (from the
        vertex table), as :meth:`ocgraph.Graph.to_series`."""
        import pandas as pd

        values = np.asarray(values)
        if values.shape != (self.num_vertices,):
            raise InvalidArgumentError(
                f"expected one value per vertex ({self.num_vertices}), got shape {values.shape}"
            )
        return pd.Series(values, index=pd.Index(self.original_ids(), name="id"), name=name)

    def original_ids(self) -> Any:
        """The original id of every vertex, by vertex, from the vertex table (a uint64 array or
        strings), as :meth:`ocgraph.Graph.original_ids`."""
        ids = stored_original_ids(self.path, self.meta)
        return np.arange(self.num_vertices, dtype=np.uint64) if ids is None else ids

    # ----- helpers --------------------------------------------------------------------------

    def _begin(self, kernel: str) -> None:
        self._kernel = kernel
        self.supersteps = []

    def _superstep(self) -> None:
        """Tags the Spark jobs that follow with the next superstep's job group."""
        group = f"ocgraph-{self._kernel}-{id(self)}-{len(self.supersteps)}"
        self.supersteps.append(group)
        self.spark.sparkContext.setJobGroup(group, f"ocgraph {self._kernel} superstep {len(self.supersteps)}")

    def _vertex(self, v: Any, name: str = "source") -> int:
        """``v`` as a vertex id, checked as :class:`ocgraph.Graph` checks it."""
        if isinstance(v, (bool, np.bool_)):
            raise TypeError(f"argument {name!r}: a vertex must be an integer, got bool {v!r}")
        try:
            v = operator.index(v)
        except TypeError as e:
            raise TypeError(f"argument {name!r}: {e}") from None
        if not 0 <= v < self.num_vertices:
            raise VertexError(f"vertex {v} out of range (the graph has {self.num_vertices} vertices)")
        return v

    def _teleport(self, p: np.ndarray | None) -> np.ndarray | None:
        """The personalization vector normalised to sum 1 (``None``: uniform), refused as
        :meth:`ocgraph.Graph.pagerank` refuses it."""
        if p is None:
            return None
        bad = np.flatnonzero(~(np.isfinite(p) & (p >= 0)))
        if len(bad):
            i = int(bad[0])
            raise _native_invalid(
                f"personalization[{i}] = {_rust_float(p[i])}; values must be finite and >= 0"
            )
        total = p.sum()
        if total <= 0:
            raise _native_invalid("personalization values sum to 0")
        return p / total

    @staticmethod
    def _weight_error(arc: list, need: str) -> InvalidArgumentError:
        u, v, w = arc
        return _native_invalid(f"arc {u} -> {v} has weight {_rust_float(w, f32=True)}; {need}")

    def _get_layout(self) -> _partitions.Layout:
        """The partitions design's layout (computed once: one small Spark job finds the keys)."""
        if self._layout is None:
            n = min(self.partitions, len(self.meta["bounds"]) - 1)
            self._layout = _partitions.Layout(self.path, self.meta, n, _routing_keys(self.spark, n))
        return self._layout

    def _state_frame(self, driver: Any, columns: tuple[str, Any]) -> Any:
        """The partitions' states as a DataFrame of vertex rows."""
        from pyspark.sql import functions as F

        schema, explode = columns
        states = driver.df.where(F.col("kind") == _partitions.STATE)
        return states.mapInArrow(_partitions.Explode(driver.layout, explode), schema)

    def _with_original_ids(self, df: Any) -> Any:
        cols = [c for c in df.columns if c != "id"]
        return df.join(self.vertices.select("id", "original_id"), "id").select("id", "original_id", *cols)

    def _to_numpy(self, df: Any, columns: list[tuple[str, Any, Any]]) -> list[np.ndarray]:
        """Per column ``(name, dtype, fill)``: an array by vertex id (``fill`` where absent)."""
        names = ["id"] + [c for c, _, _ in columns]
        t = df.select(*names).toArrow() if hasattr(df, "toArrow") else None
        if t is not None:
            got = {c: t.column(c).to_numpy() for c in names}
        else:
            pdf = df.select(*names).toPandas()
            got = {c: pdf[c].to_numpy() for c in names}
        out = []
        for c, dtype, fill in columns:
            a = np.full(self.num_vertices, fill, dtype=dtype)
            a[got["id"].astype(np.int64)] = got[c]
            out.append(a)
        return out
