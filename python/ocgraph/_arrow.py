"""pandas, Arrow and Parquet in and out.

In: :func:`from_arrow` (a ``pyarrow.Table``, a record batch, a ``RecordBatchReader`` or any
iterable of record batches), :func:`from_pandas` (a ``DataFrame``) and :func:`from_parquet` (a
Parquet file). Each streams the edges batch by batch through the budgeted builder, so an input
larger than memory builds within ``memory`` (plus the id map when ids are relabelled).

Out: :meth:`Graph.iter_arrow_batches`, :meth:`Graph.to_arrow`, :meth:`Graph.to_pandas` (the
edge table, one slice of vertices at a time) and :meth:`Graph.to_series` (a per-vertex result
indexed by the original ids).

Needs pyarrow (and pandas for the pandas functions): ``pip install ocgraph[arrow]``.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from . import _ocgraph
from ._args import as_float32, flag_arg, int_arg, overlaps, relabel_arg, size_arg
from ._errors import InputError, InvalidArgumentError, io_error
from ._graph import Graph, PathLike, Size

__all__ = ["from_arrow", "from_pandas", "from_parquet"]

#: Rows per record batch when a table or a DataFrame is cut into batches.
BATCH_ROWS = 1 << 20
#: Largest vertex id the builder takes (``n`` must fit in 32 bits).
_MAX_ID = 2**32 - 2
#: Largest vertex count (``num_vertices``).
_MAX_VERTICES = 2**32 - 1


def _pa() -> Any:
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("ocgraph's Arrow and Parquet functions need pyarrow: pip install pyarrow") from e
    return pyarrow


class _Column:
    """Checks one id or weight column of a batch and converts it."""

    def __init__(self, name: str, role: str) -> None:
        self.name = name
        self.role = role
        self.kind: str | None = None  # "int" or "str", fixed by the first batch

    def array(self, batch: Any, offset: int) -> Any:
        pa = _pa()
        try:
            col = batch.column(self.name)
        except KeyError:
            raise InputError(
                f"no column '{self.name}' for the {self.role} (columns: {', '.join(batch.schema.names)})"
            ) from None
        if pa.types.is_dictionary(col.type):
            col = col.dictionary_decode()
        if col.null_count:
            import pyarrow.compute as pc

            row = offset + pc.index(pc.is_null(col), True).as_py()
            raise InputError(f"column '{self.name}' ({self.role}) is null at row {row}")
        return col

    def ids(self, batch: Any, offset: int) -> Any:
        pa = _pa()
        col = self.array(batch, offset)
        if pa.types.is_integer(col.type):
            kind = "int"
        elif pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            kind = "str"
        else:
            raise InputError(
                f"column '{self.name}' ({self.role}) must hold integers or strings, got {col.type}"
            )
        if self.kind is None:
            self.kind = kind
        elif kind != self.kind:
            raise InputError(f"column '{self.name}' changes from {self.kind} to {kind} ids at row {offset}")
        import pyarrow.compute as pc

        if kind == "str":
            # Text and CSV cannot carry an empty id (their importers refuse one), so neither
            # does a graph: it could not be exported and read back.
            i = pc.index(pc.equal(pc.utf8_length(col), 0), True).as_py()
            if i >= 0:
                raise InputError(f"column '{self.name}' ({self.role}) has an empty id at row {offset + i}")
        elif pa.types.is_signed_integer(col.type):
            # Before any cast to unsigned (a sorted relabel compares the columns as uint64).
            i = pc.index(pc.less(col, 0), True).as_py()
            if i >= 0:
                raise InputError(
                    f"column '{self.name}' has the negative id {col[i].as_py()} at row {offset + i}"
                )
        return col


def _check_range(a: np.ndarray, name: str, offset: int, top: int, limit: str = "beyond 2^32 - 2") -> None:
    """Raises InputError naming the first id of column ``name`` (a batch starting at row
    ``offset``) that is negative or above ``top`` (``limit`` says why it is too large)."""
    if a.size == 0:
        return
    if a.min() < 0:
        i = int(np.argmax(a < 0))
        raise InputError(f"column '{name}' has the negative id {a[i]} at row {offset + i}")
    if a.max() > top:
        i = int(np.argmax(a > top))
        raise InputError(f"column '{name}' has the id {a[i]} at row {offset + i}, {limit}")


class _Relabel:
    """Maps original ids (integers or strings) to dense vertex ids, in order of first
    appearance (edge by edge, source before target) or in sorted order (ids given upfront)."""

    def __init__(self, sorted_ids: Any = None) -> None:
        self.ids: dict[Any, int] = {}
        self.order: list[Any] = []
        self.sealed = sorted_ids is not None
        if sorted_ids is not None:
            self.order = sorted_ids.to_pylist()
            self.ids = {x: i for i, x in enumerate(self.order)}

    def map(self, s: Any, d: Any) -> tuple[np.ndarray, np.ndarray]:
        pa = _pa()
        import pyarrow.compute as pc

        k = len(s)
        if pa.types.is_integer(s.type) and s.type != d.type:
            # Columns of different integer widths: compare the ids as 64-bit integers.
            t = pa.uint64() if pa.uint64() in (s.type, d.type) else pa.int64()
            s, d = s.cast(t), d.cast(t)
        both = pa.concat_arrays([s, d.cast(s.type)])
        # Interleave source and target so that first appearance follows the edge order.
        perm = np.empty(2 * k, dtype=np.int64)
        perm[0::2] = np.arange(k)
        perm[1::2] = np.arange(k, 2 * k)
        both = pc.take(both, pa.array(perm))
        uniq = pc.unique(both)
        codes = pc.index_in(both, value_set=uniq).to_numpy()
        local = np.empty(len(uniq), dtype=np.uint32)
        for j, x in enumerate(uniq.to_pylist()):
            v = self.ids.get(x)
            if v is None:
                if self.sealed:
                    raise InputError(f"id {x!r} was not seen when the ids were sorted")
                v = len(self.order)
                if v > _MAX_ID:
                    raise InputError("more than 2^32 - 1 distinct vertex ids")
                self.ids[x] = v
                self.order.append(x)
            local[j] = v
        mapped = local[codes]
        return np.ascontiguousarray(mapped[0::2]), np.ascontiguousarray(mapped[1::2])

    def original_ids(self) -> Any:
        if self.order and isinstance(self.order[0], str):
            return self.order
        return np.asarray(self.order, dtype=np.uint64)


def _weights(col: _Column, batch: Any, offset: int) -> np.ndarray:
    """The weight column of ``batch`` (rows from ``offset``) as finite float32 numbers; raises
    InputError naming the column and the row of the first bad one."""
    pa = _pa()
    wa = col.array(batch, offset)
    if not (pa.types.is_integer(wa.type) or pa.types.is_floating(wa.type)):
        raise InputError(f"column '{col.name}' (weight) must hold numbers, got {wa.type}")
    raw = wa.to_numpy(zero_copy_only=False)
    w, bad = as_float32(raw)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(
            f"column '{col.name}' (weight) is {raw[i]} at row {offset + i}: not a finite float32 number "
            "(a NaN, an infinity, beyond its range, or nonzero and stored as 0: below about 7e-46)"
        )
    return w


def _sorted_ids(batches: Iterable[Any], source: str, target: str) -> Any:
    """The distinct ids of both columns over every batch, sorted (first pass of a sorted relabel)."""
    pa = _pa()
    import pyarrow.compute as pc

    cols = (_Column(source, "source"), _Column(target, "target"))
    parts = []
    offset = 0
    for b in batches:
        for c in cols:
            parts.append(pc.unique(c.ids(b, offset)))
        offset += b.num_rows
    if not parts:
        return pa.array([], pa.int64())
    t = parts[0].type
    if pa.types.is_integer(t):
        # Columns (and batches) may hold ids of different integer widths: compare them as 64-bit.
        t = pa.uint64() if any(p.type == pa.uint64() for p in parts) else pa.int64()
    all_ids = pc.unique(pa.concat_arrays([p.cast(t) for p in parts]))
    return pc.take(all_ids, pc.sort_indices(all_ids))


def _batches(data: Any) -> tuple[Any, bool]:
    """A function giving a fresh iterator of record batches over ``data``, and whether it can
    be called twice (tables and files can; readers and generators cannot)."""
    pa = _pa()
    if isinstance(data, (str, bytes, os.PathLike)):
        raise InvalidArgumentError(
            f"data is a path ({data!r}), not Arrow data: use ocgraph.from_parquet for a Parquet file "
            "or ocgraph.import_edges for an edge-list file"
        )
    pd = sys.modules.get("pandas")  # a DataFrame means pandas is imported already
    if pd is not None and isinstance(data, pd.DataFrame):
        raise InvalidArgumentError("data is a pandas DataFrame, not Arrow data: use ocgraph.from_pandas")
    if isinstance(data, pa.Table):
        return (lambda: iter(data.to_batches(max_chunksize=BATCH_ROWS))), True
    if isinstance(data, pa.RecordBatch):
        return (lambda: iter([data])), True
    if isinstance(data, (list, tuple)):
        return (lambda: _record_batches(data)), True
    if isinstance(data, Iterable):
        return (lambda: _record_batches(data)), False
    raise InvalidArgumentError(
        f"expected a pyarrow Table, RecordBatch, RecordBatchReader or an iterable of record batches, "
        f"got {type(data).__name__}"
    )


def _record_batches(items: Iterable) -> Iterator[Any]:
    """The record batches of ``items``: batches as given, tables by their batches; anything else
    is refused, naming its position."""
    pa = _pa()
    for i, item in enumerate(items):
        if isinstance(item, pa.RecordBatch):
            yield item
        elif isinstance(item, pa.Table):
            yield from item.to_batches(max_chunksize=BATCH_ROWS)
        else:
            raise InvalidArgumentError(
                f"item {i} of data is a {type(item).__name__}, not a pyarrow RecordBatch or Table"
            )


def _distinct_columns(source: str, target: str, weight: str | None = None) -> None:
    """Refuses one column named for two of source, target and weight: the graph would be
    built from the wrong data (self-loops, or ids read as weights)."""
    cols = [c for c in (source, target, weight) if c is not None]
    if len(set(cols)) < len(cols):
        given = ", ".join(f"{k}={c!r}" for k, c in zip(("source", "target", "weight"), cols))
        raise InvalidArgumentError(f"source, target and weight must be different columns, got {given}")


def _build(
    batches: Any,
    reusable: bool,
    path: PathLike,
    source: str,
    target: str,
    weight: str | None,
    directed: bool,
    dedup: bool,
    drop_self_loops: bool,
    relabel: str | None,
    memory: Size,
    overwrite: bool,
    origin: str,
    num_vertices: int | None = None,
    allow_sparse_ids: bool = False,
) -> Graph:
    _distinct_columns(source, target, weight)
    relabel = relabel_arg(relabel)
    if num_vertices is not None:
        if relabel is not None:
            raise InvalidArgumentError("num_vertices is for ids kept as they are, not with relabel")
        num_vertices = int_arg("num_vertices", num_vertices, 0, _MAX_VERTICES)
    mapper = None
    if relabel == "sorted":
        if not reusable:
            raise InvalidArgumentError(
                "relabel='sorted' reads the input twice: pass a Table, a DataFrame or a Parquet file, "
                "not a one-shot reader"
            )
        mapper = _Relabel(_sorted_ids(batches(), source, target))
    elif relabel == "first-seen":
        mapper = _Relabel()
    builder = _ocgraph.EdgeBuilder(
        os.fsdecode(path),
        flag_arg("directed", directed),
        weight is not None,
        flag_arg("dedup", dedup),
        flag_arg("drop_self_loops", drop_self_loops),
        size_arg("memory", memory),
        flag_arg("overwrite", overwrite),
        origin,
    )
    try:
        cols = (_Column(source, "source"), _Column(target, "target"))
        wcol = _Column(weight, "weight") if weight is not None else None
        if num_vertices is None:
            top_kept, limit = _MAX_ID, "beyond 2^32 - 2"
        else:
            top_kept, limit = num_vertices - 1, f"not below num_vertices {num_vertices}"
        offset = 0
        largest = -1  # the largest id kept (no relabel)
        for b in batches():
            s, d = (c.ids(b, offset) for c in cols)
            if cols[0].kind != cols[1].kind:
                kinds = f"{cols[0].kind}, {cols[1].kind}"
                raise InputError(f"columns '{source}' and '{target}' hold different id types ({kinds})")
            if mapper is None and cols[0].kind == "str":
                if num_vertices is not None:
                    raise InvalidArgumentError(
                        "num_vertices is for integer ids kept as they are: string ids are relabelled"
                    )
                mapper = _Relabel()  # string ids are always relabelled, as the file importer does
            if cols[0].kind == "int":
                sa = s.to_numpy(zero_copy_only=False)
                da = d.to_numpy(zero_copy_only=False)
                # Relabelled ids may be any value of their column's type (each column its own).
                top_s = top_kept if mapper is None else np.iinfo(sa.dtype).max
                top_d = top_kept if mapper is None else np.iinfo(da.dtype).max
                _check_range(sa, source, offset, top_s, limit)
                _check_range(da, target, offset, top_d, limit)
            if mapper is not None:
                su, du = mapper.map(s, d)
            else:
                su = np.ascontiguousarray(sa, dtype=np.uint32)
                du = np.ascontiguousarray(da, dtype=np.uint32)
                if len(su):
                    largest = max(largest, int(su.max()), int(du.max()))
            w = None
            if wcol is not None:
                w = _weights(wcol, b, offset)
            builder.push(su, du, w)
            offset += b.num_rows
        if mapper is not None:
            builder.reserve_vertices(len(mapper.order))
            builder.finish(mapper.original_ids())
        else:
            if num_vertices is not None:
                builder.reserve_vertices(num_vertices)
            elif not allow_sparse_ids:
                problem = _ocgraph._sparse_ids_problem(largest + 1, offset, flag_arg("directed", directed))
                if problem is not None:
                    raise InputError(problem)
            builder.finish(None)
    except BaseException:
        builder.abort()
        raise
    return Graph(os.fsdecode(path))


def from_arrow(
    data: Any,
    path: PathLike,
    source: str = "src",
    target: str = "dst",
    weight: str | None = None,
    directed: bool = True,
    dedup: bool = False,
    drop_self_loops: bool = False,
    relabel: str | None = None,
    memory: Size = "1GiB",
    overwrite: bool = False,
    num_vertices: int | None = None,
    allow_sparse_ids: bool = False,
) -> Graph:
    """Builds a graph at ``path`` from Arrow data, one record batch at a time, and opens it.

    Args:
        data: a ``pyarrow.Table``, a ``RecordBatch``, a ``RecordBatchReader`` or an iterable of
            record batches or tables (streamed: only one batch is held at a time).
        source, target: the names of the id columns; edge ``i`` goes ``source[i] -> target[i]``.
            Integer columns are vertex ids unless ``relabel`` is given; string columns are
            always relabelled (``"first-seen"`` unless ``"sorted"``).
        weight: the name of a numeric weight column (stored as float32), or None.
        directed: store a directed graph; otherwise every edge is stored in both directions.
        dedup: remove duplicate edges, keeping the smallest weight.
        drop_self_loops: remove edges ``u -> u``.
        relabel: None, ``"first-seen"`` (or ``True``; dense ids in order of first appearance, edge by edge)
            or ``"sorted"`` (dense ids in sorted order of the original ids; reads the input twice).
            Relabelled graphs keep the original ids (:meth:`Graph.original_ids`).
        memory: buffer budget of the builder; beyond it sorted runs are spilled to disk.
        overwrite: replace an existing graph at ``path``.
        num_vertices: the vertex count when integer ids are kept (no ``relabel``): ids must be
            below it; the others are isolated vertices. Default: the largest id + 1.
        allow_sparse_ids: keep the ids even when ``num_vertices`` is not given and the largest
            id makes the graph mostly empty vertices (offsets over 64 MiB and over 16 times the
            edges' 8 bytes each); otherwise that is an ``InputError``, as in
            :func:`ocgraph.from_edges`.

    Raises:
        InputError: a missing column, a null (naming the column and the row), ids that are not
            integers or strings, negative or too large integer ids, a weight that is not a
            finite float32 number, ids too sparse (see ``allow_sparse_ids``).
        InvalidArgumentError: ``data`` is not Arrow data (a path or a pandas DataFrame: use
            :func:`from_parquet` or :func:`from_pandas`), ``num_vertices`` with ``relabel`` or
            string ids, one column named for two of ``source``, ``target`` and ``weight``.
        OcgraphIOError: ``path`` exists (without ``overwrite``) or cannot be written.
    """
    batches, reusable = _batches(data)
    return _build(
        batches, reusable, path, source, target, weight, directed, dedup, drop_self_loops, relabel,
        memory, overwrite, "ocgraph.from_arrow (Arrow record batches)", num_vertices, allow_sparse_ids,
    )  # fmt: skip


def from_pandas(
    df: Any,
    path: PathLike,
    source: str = "src",
    target: str = "dst",
    weight: str | None = None,
    directed: bool = True,
    dedup: bool = False,
    drop_self_loops: bool = False,
    relabel: str | None = None,
    memory: Size = "1GiB",
    overwrite: bool = False,
    num_vertices: int | None = None,
    allow_sparse_ids: bool = False,
) -> Graph:
    """Builds a graph at ``path`` from a pandas ``DataFrame`` of edges and opens it.

    The frame is converted to Arrow ``BATCH_ROWS`` rows at a time; the arguments are those of
    :func:`from_arrow`. ``source``, ``target`` and ``weight`` are column labels (of any type:
    the integer labels of a frame read without a header are labels, not positions), three
    different ones. Row numbers in errors are positions (0-based), not index labels.
    """
    pa = _pa()
    if not hasattr(df, "columns") or not hasattr(df, "iloc"):
        raise InvalidArgumentError(f"from_pandas takes a pandas DataFrame, got {type(df).__name__}")
    cols = [c for c in (source, target, weight) if c is not None]
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(
            f"no column {missing[0]!r} in the DataFrame (columns: {', '.join(map(str, df.columns))})"
        )
    repeated = [c for c in cols if (df.columns == c).sum() > 1]
    if repeated:
        raise InputError(f"the DataFrame has more than one column named {repeated[0]!r}")
    # Arrow names columns by strings: each label's text is its name in the batches and errors
    # (two labels with one text, such as 1 and "1", are refused by _distinct_columns).
    names = [str(c) for c in cols]
    _distinct_columns(*names)
    import pandas as pd

    def native(col: Any) -> Any:
        # Arrow (and pandas' own column selection) reads native byte order only.
        t = col.dtype
        return col.astype(t.newbyteorder("=")) if isinstance(t, np.dtype) and not t.isnative else col

    sub = pd.DataFrame({n: native(df[c]).reset_index(drop=True) for c, n in zip(cols, names)})

    def batches() -> Iterator[Any]:
        for start in range(0, len(sub), BATCH_ROWS):
            rows = sub.iloc[start : start + BATCH_ROWS]
            try:
                # Through a table: a pyarrow-backed column (pd.ArrowDtype, as read_parquet's
                # dtype_backend="pyarrow" gives) may hold several chunks, which a record batch
                # cannot take.
                table = pa.Table.from_pandas(rows, preserve_index=False).combine_chunks()
            except (
                pa.ArrowInvalid,
                pa.ArrowTypeError,
                pa.ArrowNotImplementedError,
                OverflowError,
                UnicodeEncodeError,
                TypeError,
            ) as e:
                # An object column of mixed types, ints past 64 bits, complex numbers, strings
                # with lone surrogates, sparse columns.
                raise InputError(f"rows {start} to {start + len(rows) - 1}: {e}") from e
            yield from table.to_batches()

    source, target = names[0], names[1]
    weight = None if weight is None else names[2]
    return _build(
        batches, True, path, source, target, weight, directed, dedup, drop_self_loops, relabel, memory,
        overwrite, "ocgraph.from_pandas (DataFrame)", num_vertices, allow_sparse_ids,
    )  # fmt: skip


def from_parquet(
    file: PathLike,
    path: PathLike,
    source: str = "src",
    target: str = "dst",
    weight: str | None = None,
    directed: bool = True,
    dedup: bool = False,
    drop_self_loops: bool = False,
    relabel: str | None = None,
    memory: Size = "1GiB",
    overwrite: bool = False,
    num_vertices: int | None = None,
    allow_sparse_ids: bool = False,
) -> Graph:
    """Builds a graph at ``path`` from a Parquet file of edges, streaming its row groups, and
    opens it. The arguments are those of :func:`from_arrow`; only the named columns are read.
    A file that cannot be opened (missing, unreadable) raises :class:`OcgraphIOError`, one that
    is not Parquet (a directory, a damaged footer) :class:`InputError`."""
    pa = _pa()
    import pyarrow.parquet as pq

    if flag_arg("overwrite", overwrite) and os.path.isdir(path) and overlaps(path, file):
        raise InvalidArgumentError(
            f"input {os.fsdecode(file)}: lies inside the graph directory {os.fsdecode(path)} that this "
            "call replaces; move it out first"
        )
    _distinct_columns(source, target, weight)
    cols = [c for c in (source, target, weight) if c is not None]
    try:
        pf = pq.ParquetFile(os.fsdecode(file))
    except pa.ArrowInvalid as e:
        raise InputError(f"{os.fsdecode(file)}: not a Parquet file ({e})") from e
    except OSError as e:
        # pyarrow reports metadata it cannot decode (a damaged footer) as an OSError without an
        # errno: that is the file's content, not the system's.
        if e.errno is None:
            raise InputError(f"{os.fsdecode(file)}: not a Parquet file ({e})") from e
        raise io_error(f"{os.fsdecode(file)}: {e.strerror or e}", e.errno, os.fsdecode(file)) from e
    names = pf.schema_arrow.names
    for c in cols:
        if c not in names:
            raise InputError(f"{os.fsdecode(file)}: no column '{c}' (columns: {', '.join(names)})")
        if names.count(c) > 1:
            raise InputError(
                f"{os.fsdecode(file)}: {names.count(c)} columns are named '{c}': rename all but one"
            )
    ignored = [n for n in names if weight is None and n.lower() in ("weight", "w")]
    if ignored:
        warnings.warn(
            f"{os.fsdecode(file)}: column '{ignored[0]}' was ignored (an unweighted import; "
            f"weight='{ignored[0]}' reads it)",
            UserWarning,
            stacklevel=2,
        )

    if pf.metadata.num_rows == 0 and num_vertices is None:
        raise InputError(f"{os.fsdecode(file)}: no edges (num_vertices builds a graph of isolated vertices)")

    def batches() -> Iterator[Any]:
        rows = pf.iter_batches(batch_size=BATCH_ROWS, columns=cols)
        while True:
            try:
                batch = next(rows)
            except StopIteration:
                return
            except (pa.ArrowException, OSError) as e:
                # A damaged page (a bad checksum, compressed data or encoding) past the footer.
                if isinstance(e, OSError) and e.errno is not None:
                    raise io_error(
                        f"{os.fsdecode(file)}: {e.strerror or e}", e.errno, os.fsdecode(file)
                    ) from e
                raise InputError(f"{os.fsdecode(file)}: damaged Parquet data ({e})") from e
            yield batch

    try:
        return _build(
            batches, True, path, source, target, weight, directed, dedup, drop_self_loops, relabel, memory,
            overwrite, os.fsdecode(file), num_vertices, allow_sparse_ids,
        )  # fmt: skip
    except InputError as e:
        # A bad value in a column (a null, a negative id, a NaN weight), mixed id types, sparse
        # ids: name the file too.
        if not str(e).startswith(os.fsdecode(file)):
            raise InputError(f"{os.fsdecode(file)}: {e}") from None
        raise


# ----- out ------------------------------------------------------------------------------


def iter_arrow_batches(
    g: Graph,
    batch_rows: int = BATCH_ROWS,
    original_ids: bool = True,
    source: str = "src",
    target: str = "dst",
    weight: str = "weight",
) -> Iterator[Any]:
    """See :meth:`Graph.iter_arrow_batches` (which checks the arguments before the first batch)."""
    pa = _pa()
    g = g._pinned()  # every slice, the degrees and the ids from one snapshot
    n = g.num_vertices
    # A graph that keeps no input ids gives its vertex ids (uint32), whatever their values.
    ids = g.original_ids() if original_ids and g._keeps_ids() else None
    if isinstance(ids, list):
        ids = pa.array(ids, pa.string())
    # Slices of consecutive vertices holding about batch_rows arcs each (at least one vertex).
    ends = np.cumsum(g.out_degrees())
    start = 0
    while start < n:
        before = int(ends[start - 1]) if start else 0
        end = max(start + 1, int(np.searchsorted(ends, before + batch_rows, side="right")))
        end = min(end, n)
        indptr, indices, weights = g._csr_range(start, end)
        src = np.repeat(np.arange(start, end, dtype=np.uint32), np.diff(indptr))
        dst = indices
        keep = None
        if not g.directed:
            keep = src <= dst  # each undirected edge once
            src, dst = src[keep], dst[keep]
        arrays = [src, dst]
        names = [source, target]
        if weights is not None:
            arrays.append(weights if keep is None else weights[keep])
            names.append(weight)
        if ids is not None:
            if isinstance(ids, np.ndarray):
                arrays[0], arrays[1] = ids[arrays[0]], ids[arrays[1]]
            else:
                arrays[0], arrays[1] = ids.take(pa.array(arrays[0])), ids.take(pa.array(arrays[1]))
        start = end
        if len(arrays[0]) == 0:
            continue  # every arc of the slice was the second copy of an undirected edge
        yield pa.RecordBatch.from_arrays([pa.array(a) for a in arrays], names=names)


def to_series(g: Graph, values: Any, name: str | None = None, computed: bool = False) -> Any:
    """See :meth:`Graph.to_series`. ``computed``: ``values`` is a kernel's result, which may
    cover fewer vertices than the graph has now when another thread added vertices since (the
    first ones: their ids do not change)."""
    import pandas as pd

    values = np.asarray(values)
    ids = g.original_ids()
    fits = values.ndim == 1 and (len(values) <= len(ids) if computed else len(values) == len(ids))
    if not fits:
        raise InvalidArgumentError(f"expected one value per vertex ({len(ids)}), got shape {values.shape}")
    index = pd.Index(ids[: len(values)], name="id")
    return pd.Series(values, index=index, name=name)
