"""The Parquet form of a graph that the Spark kernels read.

Layout of a dataset directory::

    _ocgraph.json                 counts, directedness, the source range of every part, the
                                  first negative-weight arc, a random token of this export
    edges/part=00000/*.parquet    arcs (src, dst[, weight]) with src in part 0's range, sorted
    edges/part=00001/...
    in_edges/part=.../            directed graphs: the same arcs by destination range
    vertices/*.parquet            id, original_id, out_degree

Vertex ids are ocgraph's dense ids ``0 .. n-1``; ``original_id`` holds the ids of the input
(integers or strings). An undirected graph stores every edge in both directions, as ocgraph does.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
from typing import Any

import numpy as np

from .._args import U32_MAX, flag_arg, int_arg, overlaps, size_arg
from .._errors import FormatError, OcgraphIOError, io_error

__all__ = ["export_parquet", "import_parquet", "is_dataset", "negative_arc", "read_meta"]

META = "_ocgraph.json"
FORMAT_VERSION = 1


def _fs(path: str) -> tuple[Any, str]:
    """The pyarrow filesystem of ``path`` (local, or any URI pyarrow knows: s3://, hdfs://)."""
    import pyarrow.fs as pafs

    if "://" in path:
        return pafs.FileSystem.from_uri(path)
    return pafs.LocalFileSystem(), os.path.abspath(path)


def part_dir(kind: str, part: int) -> str:
    """The directory of one part of ``edges`` or ``in_edges``."""
    return f"{kind}/part={part:05d}"


def read_meta(path: str) -> dict:
    """The metadata of the dataset at ``path``.

    Raises:
        FormatError: ``path`` is not an ocgraph Parquet dataset.
    """
    fs, root = _fs(str(path))
    try:
        with fs.open_input_stream(f"{root}/{META}") as f:
            raw = f.read()
    except (FileNotFoundError, OSError) as e:
        raise FormatError(f"{path} is not an ocgraph Parquet dataset (no {META}): {e}") from e
    try:
        meta = json.loads(raw.decode())
    except ValueError as e:  # not UTF-8, or not JSON
        raise FormatError(f"{path}/{META}: not the metadata of an ocgraph dataset: {e}") from e
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION:
        got = meta.get("format") if isinstance(meta, dict) else meta
        raise FormatError(f"{path}: unknown dataset format {got!r}")
    problem = _meta_problem(meta)
    if problem:
        raise FormatError(f"{path}/{META}: {problem}")
    return meta


def _meta_problem(meta: dict) -> str | None:
    """What makes ``meta`` unusable (a missing or mistyped key, part bounds that do not cover
    the vertices), or None."""
    for key, kind in (("num_vertices", int), ("num_edges", int), ("directed", bool), ("weighted", bool)):
        if not isinstance(meta.get(key), kind) or (kind is int and isinstance(meta[key], bool)):
            return f"{key} is missing or not a {kind.__name__}"
    bounds, n = meta.get("bounds"), meta["num_vertices"]
    if not isinstance(bounds, list) or len(bounds) < 2 or not all(type(b) is int for b in bounds):
        return "bounds is missing or not a list of part bounds"
    if bounds[0] != 0 or bounds[-1] != n or any(a > b for a, b in zip(bounds, bounds[1:])):
        return f"bounds do not rise from 0 to the vertex count {n}"
    return None


def read_table(path: str, sub: str, columns: list[str]) -> Any:
    """The ``columns`` of the Parquet files under ``sub`` of the dataset at ``path``; a file that
    is not Parquet, or lacks a column, is a ``FormatError`` naming the dataset's ``sub``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    fs, root = _fs(str(path))
    try:
        return pq.read_table(f"{root}/{sub}", columns=columns, filesystem=fs)
    except FileNotFoundError as e:
        raise FormatError(f"{path}/{sub}: missing (the dataset lacks it)") from e
    except (pa.ArrowException, OSError, ValueError) as e:
        raise FormatError(f"{path}/{sub}: {e}") from e


def check_edge_parts(path: str, meta: dict) -> None:
    """Raises ``FormatError`` naming the first part of ``edges`` (and of ``in_edges`` for a
    directed graph) that is missing (every part of ``bounds`` is written, arcs or not), or the
    first edge file that is not Parquet, lacks one of the columns the kernels read (``src``,
    ``dst`` as integers, and ``weight`` as numbers when weighted), or holds a null id or an id
    outside ``0 .. num_vertices - 1`` (whose arcs the kernels would drop or misroute): on the
    driver, from the listing and the files' footers (their statistics; a file written without
    them has its ids read), before Spark reads them on the executors."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    need = {"src": pa.types.is_integer, "dst": pa.types.is_integer}
    if meta["weighted"]:
        need["weight"] = lambda t: pa.types.is_integer(t) or pa.types.is_floating(t)
    fs, root = _fs(str(path))
    parts = len(meta["bounds"]) - 1
    for kind in ["edges", "in_edges"] if meta["directed"] else ["edges"]:
        dirs = [f"{root}/{part_dir(kind, p)}" for p in range(parts)]
        absent = [d for d, i in zip(dirs, fs.get_file_info(dirs)) if i.type != pa.fs.FileType.Directory]
        if absent:
            raise FormatError(f"{absent[0]}: a part of the dataset is missing ({META} lists {parts})")
        try:
            files = ds.dataset(f"{root}/{kind}", filesystem=fs, format="parquet")
            fragments = [(f.path, f.physical_schema, f.metadata) for f in files.get_fragments()]
        except (pa.ArrowException, OSError, ValueError) as e:
            raise FormatError(f"{path}/{kind}: {e}") from e
        for file, schema, footer in fragments:
            for column, fits in need.items():
                if column not in schema.names:
                    raise FormatError(f"{file}: an edge file without the column {column!r}")
                if not fits(schema.field(column).type):
                    raise FormatError(
                        f"{file}: column {column!r} holds {schema.field(column).type}, not numbers"
                    )
            for column in ("src", "dst"):
                _check_id_range(fs, file, footer, column, meta["num_vertices"])


def _check_id_range(fs: Any, file: str, footer: Any, column: str, n: int) -> None:
    """Raises ``FormatError`` naming ``file`` if its ``column`` holds a null or an id outside
    ``0 .. n - 1``: by the row groups' statistics, or by reading the column where a row group
    has none."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    index = footer.schema.names.index(column)
    low, high, nulls = None, None, 0
    for g in range(footer.num_row_groups):
        chunk = footer.row_group(g).column(index)
        stats = chunk.statistics
        if chunk.num_values == 0:
            continue
        if stats is None or not stats.has_min_max or not stats.has_null_count:
            ids = pq.read_table(file, columns=[column], filesystem=fs).column(column)
            bounds = pc.min_max(ids).as_py()
            low, high, nulls = bounds["min"], bounds["max"], ids.null_count
            break
        low = stats.min if low is None else min(low, stats.min)
        high = stats.max if high is None else max(high, stats.max)
        nulls += stats.null_count
    if nulls:
        raise FormatError(f"{file}: column {column!r} holds {nulls} null ids")
    if low is not None and (low < 0 or high >= n):
        bad = low if low < 0 else high
        raise FormatError(f"{file}: column {column!r} holds the id {bad}, outside the vertices 0..{n - 1}")


def _balanced_bounds(indptr: np.ndarray, parts: int) -> np.ndarray:
    """Vertex bounds of ``parts`` contiguous source ranges with about equal numbers of arcs and
    at least one vertex each while there are vertices to give (with fewer vertices than parts,
    the first ``num_vertices`` parts get one vertex each and the others none)."""
    n = len(indptr) - 1
    i = np.arange(parts + 1, dtype=np.int64)
    if n < parts:
        return np.minimum(i, n)
    targets = np.linspace(0, indptr[-1], parts + 1)[1:-1]
    inner = np.searchsorted(indptr, targets, side="left")
    bounds = np.concatenate([[0], inner, [n]]).astype(np.int64)
    # Strictly increasing bounds b are those where b - i never decreases: lift each bound to
    # the running maximum of b - i, kept within [0, n - parts] so that the last is n.
    return np.clip(np.maximum.accumulate(bounds - i), 0, n - parts) + i


def _first_negative_arc(indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None):
    """``[u, v, w]`` of the first arc in CSR order whose weight is below 0, or ``None``."""
    if weights is None:
        return None
    neg = np.flatnonzero(weights < 0)
    if len(neg) == 0:
        return None
    k = int(neg[0])
    u = int(np.searchsorted(indptr, k, side="right")) - 1
    return [u, int(indices[k]), float(weights[k])]


def check_target(out: str, graph: str, what: str) -> None:
    """Refuses an export target ``out`` (named ``what`` in the error) that is the graph
    directory ``graph``, lies inside it or holds it, or an existing path that is neither an
    ocgraph dataset nor an empty directory: replacing it would delete what is there."""
    import pyarrow.fs as pafs

    from .._errors import InvalidArgumentError

    if "://" not in out and overlaps(out, graph):
        raise InvalidArgumentError(f"{what} {out} is the graph directory {graph}, inside it or contains it")
    fs, root = _fs(out)
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.NotFound or is_dataset(out):
        return
    if info.type == pafs.FileType.Directory and not fs.get_file_info(pafs.FileSelector(root)):
        return
    raise InvalidArgumentError(
        f"{what} {out} exists and is not an ocgraph Parquet dataset (nor an empty directory): "
        "not replacing it"
    )


def export_parquet(graph: Any, out: str, partitions: int = 16, overwrite: bool = False) -> dict:
    """Writes ``graph`` (a :class:`ocgraph.Graph` or a graph directory) as a Parquet dataset
    at ``out`` with ``partitions`` source-range parts of about equal arc counts; returns its
    metadata. ``out`` may be a local path or a URI pyarrow can write (``s3://...``,
    ``hdfs://...``). Reads the whole CSR into memory.

    The metadata holds a random ``token`` new with every export (the Spark workers key what
    they cache by it, so a dataset written again at the same path is read again) and
    ``negative_arc``: ``[u, v, w]`` of the first arc in CSR order with a weight below 0 (which
    SSSP and weighted PageRank refuse), or ``None``.

    Raises:
        InvalidArgumentError: ``partitions < 1``.
        TypeError: ``partitions`` is not an integer.
        OcgraphIOError: ``out`` exists and ``overwrite`` is false.
        InvalidArgumentError: ``out`` overlaps the graph directory, or exists and is neither a
            dataset nor an empty directory (see :func:`check_target`).
    """

    from .._graph import Graph
    from .._graph import open as open_graph

    partitions = int_arg("partitions", partitions, 1, U32_MAX)
    overwrite = flag_arg("overwrite", overwrite)
    opened = None if isinstance(graph, Graph) else open_graph(graph)
    try:
        # Every array from one snapshot, whatever another thread updates meanwhile.
        g = (graph if opened is None else opened)._pinned()
        return _export(g, out, partitions, overwrite)
    finally:
        if opened is not None:
            opened.close()


def _delete(fs: Any, path: str) -> None:
    """Removes the file or directory at ``path`` on ``fs``, if any."""
    import pyarrow.fs as pafs

    kind = fs.get_file_info(path).type
    if kind == pafs.FileType.Directory:
        fs.delete_dir(path)
    elif kind != pafs.FileType.NotFound:
        fs.delete_file(path)


def _export(g: Any, out: str, partitions: int, overwrite: bool) -> dict:
    """:func:`export_parquet` of the pinned graph ``g``. On a local file system the dataset is
    written beside ``out`` and renamed over it at the end, so that a failure leaves the
    previous dataset; elsewhere (object stores cannot rename a directory) the previous one is
    removed first. A failure removes what it wrote."""
    import pyarrow as pa

    fs, root = _fs(str(out))
    info = fs.get_file_info(root)
    check_target(str(out), g.path, "out")
    if info.type != pa.fs.FileType.NotFound and not overwrite:
        raise io_error(f"{out} exists (pass overwrite=True to replace it)", errno.EEXIST, str(out))
    token = secrets.token_hex(16)
    local = isinstance(fs, pa.fs.LocalFileSystem)
    if local:
        final, root = root, f"{root}.tmp-{token}"
    else:
        _delete(fs, root)
    try:
        meta = _write_dataset(g, fs, root, partitions, token)
    except BaseException as e:
        _delete(fs, root)
        if isinstance(e, OSError) and not isinstance(e, OcgraphIOError):
            # pyarrow's write errors (a full disk) name no file: name the dataset.
            raise io_error(f"{out}: write failed: {e}", e.errno, str(out)) from e
        raise
    if local:
        _delete(fs, final)
        fs.move(root, final)
    return meta


def _write_dataset(g: Any, fs: Any, root: str, partitions: int, token: str) -> dict:
    """Writes the parts, the vertex table and the metadata of ``g`` under ``root``; returns
    the metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    indptr, indices, weights = g._csr()
    n = g.num_vertices
    bounds = _balanced_bounds(indptr, partitions)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    dst = indices.astype(np.int64)

    def write_parts(kind: str, key: np.ndarray, other: np.ndarray, w: np.ndarray | None, names):
        cuts = np.searchsorted(key, bounds)
        for p in range(partitions):
            a, b = cuts[p], cuts[p + 1]
            cols = {names[0]: key[a:b], names[1]: other[a:b]}
            if w is not None:
                cols["weight"] = w[a:b]
            fs.create_dir(f"{root}/{part_dir(kind, p)}")
            pq.write_table(pa.table(cols), f"{root}/{part_dir(kind, p)}/data.parquet", filesystem=fs)

    write_parts("edges", src, dst, weights, ("src", "dst"))
    if g.directed:
        order = np.lexsort((src, dst))
        write_parts(
            "in_edges", dst[order], src[order], None if weights is None else weights[order], ("dst", "src")
        )
    ids = g.original_ids()
    original = _original_id_column(ids)
    fs.create_dir(f"{root}/vertices")
    pq.write_table(
        pa.table(
            {"id": np.arange(n, dtype=np.int64), "original_id": original, "out_degree": np.diff(indptr)}
        ),
        f"{root}/vertices/data.parquet",
        filesystem=fs,
    )
    meta = {
        "format": FORMAT_VERSION,
        "num_vertices": int(n),
        "num_edges": int(g.num_edges),
        "num_arcs": int(g.num_arcs),
        "directed": bool(g.directed),
        "weighted": bool(g.weighted),
        "original_ids": "string" if isinstance(ids, list) else "integer",
        "ids_kept": bool(g._keeps_ids()),
        "bounds": bounds.tolist(),
        "negative_arc": _first_negative_arc(indptr, indices, weights),
        "token": token,
    }
    with fs.open_output_stream(f"{root}/{META}") as f:
        f.write(json.dumps(meta, indent=1).encode())
    return meta


def is_dataset(path: str) -> bool:
    """Whether ``path`` holds an ocgraph Parquet dataset (has ``_ocgraph.json``)."""
    import pyarrow.fs as pafs

    fs, root = _fs(str(path))
    return fs.get_file_info(f"{root}/{META}").type == pafs.FileType.File


def negative_arc(path: str, meta: dict) -> list | None:
    """``[u, v, w]`` of the dataset's first arc in CSR order with a weight below 0, or ``None``
    (also for unweighted datasets): from the metadata, or for datasets whose metadata does not
    record it, by reading the weights part by part on the driver."""
    if not meta["weighted"]:
        return None
    if "negative_arc" in meta:
        return meta["negative_arc"]
    for part in range(len(meta["bounds"]) - 1):
        a = read_part(path, "edges", part, ["src", "dst", "weight"])
        neg = np.flatnonzero(a["weight"] < 0)
        if len(neg):
            k = int(neg[0])
            return [int(a["src"][k]), int(a["dst"][k]), float(a["weight"][k])]
    return None


def read_part(path: str, kind: str, part: int, columns: list[str]) -> dict[str, np.ndarray]:
    """The columns of one part as numpy arrays (in the stored order)."""
    t = read_table(path, part_dir(kind, part), columns)
    return {c: t.column(c).to_numpy() for c in columns}


def read_out_degrees(path: str) -> np.ndarray:
    """The stored out-degree of every vertex (int64, by dense id)."""
    t = read_table(path, "vertices", ["id", "out_degree"])
    deg = np.zeros(len(t), dtype=np.int64)
    deg[t.column("id").to_numpy()] = t.column("out_degree").to_numpy()
    return deg


def import_parquet(path: str, out: str, memory: Any = "1GiB", overwrite: bool = False) -> Any:
    """Builds the ocgraph graph ``out`` from the Parquet dataset at ``path`` (as written by
    :func:`export_parquet`, possibly processed since) and opens it: the same dense vertex ids
    (isolated vertices kept) and the original ids of the vertex table, so that the graph reads
    back as the one exported (``to_pandas``, ``vertex``, ``as_series`` by original id).

    Raises:
        FormatError: ``path`` is not an ocgraph Parquet dataset, its vertex table does not
            match its metadata, or an arc names a vertex outside it (the number of arcs is not
            checked: a dataset processed since may hold more or fewer).
        OcgraphIOError: ``out`` exists and ``overwrite`` is false.
        InvalidArgumentError: ``out`` is the dataset, lies inside it or holds it.
    """
    from .. import _ocgraph
    from .._build import from_edges
    from .._errors import InvalidArgumentError
    from .._graph import Graph

    overwrite = flag_arg("overwrite", overwrite)
    if "://" not in os.fspath(path) and overlaps(out, path):
        raise InvalidArgumentError(
            f"{out} is the dataset {path}, inside it or contains it: write the graph elsewhere"
        )
    meta = read_meta(path)
    check_edge_parts(path, meta)
    n, directed, weighted = int(meta["num_vertices"]), bool(meta["directed"]), bool(meta["weighted"])
    cols = ["src", "dst"] + (["weight"] if weighted else [])
    t = read_table(path, "edges", cols)
    src, dst = t.column("src").to_numpy(), t.column("dst").to_numpy()
    w = t.column("weight").to_numpy() if weighted else None
    if not directed:
        # Every undirected edge is stored in both directions (a self-loop once): keep one.
        keep = src <= dst
        src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
    outside = np.flatnonzero((src < 0) | (src >= n) | (dst < 0) | (dst >= n))
    if len(outside):
        k = int(outside[0])
        raise FormatError(f"{path}: arc {src[k]} -> {dst[k]} names a vertex outside 0..{n - 1}")
    ids = stored_original_ids(path, meta)
    if ids is None:
        if meta.get("ids_kept") is False:
            # The ids are the dense ids: the vertex table, which `stored_original_ids` did not
            # read, is not needed but must be whole.
            check_vertex_ids(path, read_table(path, "vertices", ["id"]).sort_by("id"), n)
        return from_edges(
            src, dst, out, num_vertices=n, weights=w, directed=directed, memory=memory, overwrite=overwrite
        )
    builder = _ocgraph.EdgeBuilder(
        os.fspath(out),
        directed,
        weighted,
        False,
        False,
        size_arg("memory", memory),
        overwrite,
        f"Parquet dataset {path}",
    )
    try:
        w32 = None if w is None else np.ascontiguousarray(w, dtype=np.float32)
        builder.push(np.ascontiguousarray(src, np.uint32), np.ascontiguousarray(dst, np.uint32), w32)
        builder.reserve_vertices(n)
        builder.finish(ids)
    except BaseException:
        builder.abort()
        raise
    return Graph(os.fspath(out))


def _original_id_column(ids: Any) -> Any:
    """The vertex table's ``original_id`` column: strings, or integers as int64 (Spark's
    ``long``) while they fit, else as uint64 (which Spark reads as ``decimal(20,0)``), so that
    an id of 2^63 or more is never written as a negative ``long``."""
    import pyarrow as pa

    if isinstance(ids, list):
        return pa.array(ids, type=pa.string())
    ids = np.asarray(ids, np.uint64)
    fits = not ids.size or int(ids.max()) <= np.iinfo(np.int64).max
    return pa.array(ids.astype(np.int64)) if fits else pa.array(ids)


def check_vertex_ids(path: str, table: Any, n: int) -> None:
    """Raises ``FormatError`` unless the vertex ``table`` (sorted by ``id``) lists the ids
    ``0 .. n - 1`` once each."""
    if len(table) != n or not np.array_equal(table.column("id").to_numpy(), np.arange(n)):
        raise FormatError(f"{path}: the vertex table does not list the ids 0..{n - 1} once each")


def stored_original_ids(path: str, meta: dict) -> np.ndarray | list[str] | None:
    """The original id of every vertex from the dataset's vertex table (uint64 array or list of
    strings, by dense id), or ``None`` when the ids are the dense ids themselves (a graph that
    kept no id map; datasets exported before ``ids_kept`` was recorded: integer ids equal to the
    dense ids)."""
    if meta.get("ids_kept") is False:
        return None
    t = read_table(path, "vertices", ["id", "original_id"]).sort_by("id")
    n = int(meta["num_vertices"])
    check_vertex_ids(path, t, n)
    col = t.column("original_id")
    if meta.get("original_ids") == "string":
        return col.to_pylist()
    # int64, or uint64 when an id is past 2^63 - 1 (datasets written before wrapped those).
    ids = col.to_numpy().astype(np.uint64)
    if "ids_kept" not in meta and np.array_equal(ids, np.arange(n, dtype=np.uint64)):
        return None
    return ids
