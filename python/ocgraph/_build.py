"""Building graphs: :func:`from_edges` (numpy arrays), :func:`import_edges` (edge-list files)
and :func:`generate` (synthetic graphs). Each writes a graph directory atomically and returns
the opened :class:`Graph`."""

from __future__ import annotations

import operator
import os
import warnings
from typing import Any

import numpy as np

from . import _ocgraph
from ._args import (
    U32_MAX,
    U64_MAX,
    finite_weights,
    flag_arg,
    float_arg,
    int_arg,
    int_ids,
    relabel_arg,
    size_arg,
)
from ._arrow import from_parquet
from ._errors import InputError, InvalidArgumentError
from ._graph import Graph, PathLike, Size
from ._graph import open as open_graph
from ._mine import data_labels

__all__ = ["from_edges", "generate", "import_edges"]

_MAX_VERTICES = 2**32 - 1
#: Most cells per side of a grid (``MAX_CELLS_PER_SIDE`` of the format).
_MAX_CELLS_PER_SIDE = 1024


def _ids(name: str, a: Any) -> np.ndarray:
    arr = int_ids(name, a)
    if arr.size and arr.min() < 0:
        i = int(np.argmax(arr < 0))
        raise InputError(f"{name}[{i}] = {arr[i]} is negative")
    return arr


def from_edges(
    src: Any,
    dst: Any,
    path: PathLike,
    num_vertices: int | None = None,
    weights: Any = None,
    directed: bool = True,
    dedup: bool = False,
    drop_self_loops: bool = False,
    memory: Size = "1GiB",
    overwrite: bool = False,
    allow_sparse_ids: bool = False,
) -> Graph:
    """Builds a graph at ``path`` from edge arrays and opens it.

    Args:
        src, dst: integer arrays of equal length; edge ``i`` goes ``src[i] -> dst[i]``.
        path: the graph directory to create.
        num_vertices: number of vertices (ids ``0 .. num_vertices - 1``); default
            ``max(src, dst) + 1``. Larger values add isolated vertices. A graph without
            edges needs it (``InvalidArgumentError`` otherwise: nothing to build).
        weights: optional float array of the same length (stored as float32).
        directed: store a directed graph; otherwise every edge is stored in both directions.
        dedup: remove duplicate edges (undirected: in either direction), keeping the smallest
            weight.
        drop_self_loops: remove edges ``u -> u``.
        memory: buffer budget of the builder (beyond it, sorted runs are spilled to disk).
        overwrite: replace an existing graph at ``path``.
        allow_sparse_ids: build even when ``num_vertices`` is not given and the largest id
            makes the graph mostly empty vertices (offsets over 64 MiB and over 16 times the
            edges' 8 bytes each); otherwise that is an ``InputError``.

    Raises:
        InputError: arrays of different lengths, not 1-D, not integers, negative ids, ids
            ``>= num_vertices``, ids too sparse (see ``allow_sparse_ids``).
        InvalidArgumentError: no edges and no ``num_vertices``.
        OcgraphIOError: ``path`` exists (without ``overwrite``) or cannot be written.
    """
    s = _ids("src", src)
    d = _ids("dst", dst)
    if len(s) != len(d):
        raise InputError(f"src and dst have different lengths ({len(s)} and {len(d)})")
    w = None if weights is None else finite_weights("weights", weights, len(s))
    top = int(max(s.max(), d.max())) if len(s) else -1
    if top >= _MAX_VERTICES:
        arr, name = (s, "src") if s.max() == top else (d, "dst")
        i = int(np.argmax(arr == top))
        raise InputError(f"{name}[{i}] = {top} does not fit a 32-bit vertex id (at most {_MAX_VERTICES - 1})")
    if num_vertices is None:
        num_vertices = top + 1
        if not allow_sparse_ids and num_vertices <= _MAX_VERTICES:
            problem = _ocgraph._sparse_ids_problem(num_vertices, len(s), flag_arg("directed", directed))
            if problem is not None:
                raise InputError(problem)
    else:
        try:
            if isinstance(num_vertices, (bool, np.bool_)):
                raise TypeError
            num_vertices = operator.index(num_vertices)
        except TypeError:
            raise TypeError(f"num_vertices must be an integer, got {num_vertices!r}") from None
        if num_vertices < 0:
            raise InvalidArgumentError(f"num_vertices must be non-negative, got {num_vertices}")
    if num_vertices > _MAX_VERTICES:
        raise InvalidArgumentError(f"{num_vertices} vertices do not fit 32-bit vertex ids")
    if top >= num_vertices:
        arr, name = (s, "src") if len(s) and s.max() == top else (d, "dst")
        i = int(np.argmax(arr == top))
        raise InputError(f"{name}[{i}] = {top} is out of range for {num_vertices} vertices")
    _ocgraph._from_edges(
        os.fsdecode(path),
        np.ascontiguousarray(s, dtype=np.uint32),
        np.ascontiguousarray(d, dtype=np.uint32),
        w,
        int(num_vertices),
        flag_arg("directed", directed),
        flag_arg("dedup", dedup),
        flag_arg("drop_self_loops", drop_self_loops),
        size_arg("memory", memory),
        flag_arg("overwrite", overwrite),
    )
    return Graph(os.fsdecode(path))


def import_edges(
    input: PathLike,
    out: PathLike,
    undirected: bool = False,
    weighted: bool = False,
    dedup: bool = False,
    drop_self_loops: bool = False,
    relabel: str | None = None,
    format: str = "auto",
    memory: Size = "1GiB",
    overwrite: bool = False,
    num_vertices: int | None = None,
    allow_sparse_ids: bool = False,
    labels: PathLike | None = None,
    source_col: str | None = None,
    target_col: str | None = None,
    weight_col: str | None = None,
) -> Graph:
    """Imports an edge-list file into a graph directory ``out`` and opens it.

    Formats (``format="auto"`` picks by extension and content; ``.gz`` is decompressed):
    ``"text"`` (SNAP: whitespace-separated pairs, ``#``/``%`` comments), ``"csv"``
    (comma-separated, optional header), ``"mtx"`` (MatrixMarket coordinate, 1-based),
    ``"bin32"`` / ``"bin64"`` (little-endian pairs of u32 / u64), ``"bin32w"`` / ``"bin64w"``
    (the same followed by an f32 weight per record), ``"parquet"`` (the columns ``src`` and
    ``dst``, and ``weight`` when ``weighted``, read by :func:`from_parquet`; ``"auto"`` picks it
    for ``.parquet`` and ``.pq`` files). What the import took as what, where the
    input left room for doubt (a CSV header line, a ``.mtx`` file without its banner, ignored
    columns), is reported as a ``UserWarning``.

    Args:
        undirected: store each edge in both directions.
        weighted: read a third column as a float weight (Parquet: the column ``weight``).
        dedup: remove duplicate edges, keeping the smallest weight.
        drop_self_loops: remove edges ``u -> u``.
        relabel: ``None`` (ids are vertex ids), ``"first-seen"`` (dense ids in order of first
            appearance; ``True`` too) or ``"sorted"`` (dense ids in sorted order of the original
            ids); relabelled graphs keep the original ids (see :meth:`Graph.original_id`).
        memory: buffer budget; larger inputs are sorted in runs on disk.
        overwrite: replace an existing graph at ``out``.
        num_vertices: the vertex count when the ids are kept (``relabel=None``): ids must be
            below it; the others are isolated vertices.
        allow_sparse_ids: keep the ids even when the largest makes the graph mostly empty
            vertices (offsets over 64 MiB and over 16 times the edges' 8 bytes each).
        labels: a label file to store with the graph (see :func:`set_labels`; not with
            Parquet input: call :func:`set_labels` after the import).
        source_col, target_col, weight_col: CSV (with a header) or Parquet: the columns of
            source ids, target ids and weights, by name (Parquet defaults: ``src``, ``dst``,
            and ``weight`` when ``weighted``); naming ``weight_col`` makes the graph
            weighted. Other formats refuse them, as ``ocgraph import`` does.

    Raises:
        InputError: a malformed line (the message names the file and line), or ids so sparse
            that the graph would be mostly empty vertices (relabel them, or see
            ``allow_sparse_ids``).
        InvalidArgumentError: a bad option (``labels`` with Parquet input, a negative
            ``num_vertices``, columns named for a format without them).
        OcgraphIOError: the input cannot be read, or ``out`` exists without ``overwrite``.
    """
    n = _opt_int("num_vertices", num_vertices, _MAX_VERTICES)
    relabel = relabel_arg(relabel)
    if str(format).lower() == "parquet" or (str(format).lower() == "auto" and _is_parquet(input)):
        if labels is not None:
            raise InvalidArgumentError(
                "import_edges: labels are not read with Parquet input; "
                "store them after the import with ocgraph.set_labels(out, labels)"
            )
        return from_parquet(
            input,
            out,
            source="src" if source_col is None else source_col,
            target="dst" if target_col is None else target_col,
            weight=weight_col
            if weight_col is not None
            else "weight"
            if flag_arg("weighted", weighted)
            else None,
            directed=not flag_arg("undirected", undirected),
            dedup=dedup,
            drop_self_loops=drop_self_loops,
            relabel=relabel,
            memory=memory,
            overwrite=overwrite,
            num_vertices=n,
            allow_sparse_ids=allow_sparse_ids,
        )
    report = _ocgraph._import_edges(
        os.fsdecode(input),
        os.fsdecode(out),
        format,
        relabel,
        not flag_arg("undirected", undirected),
        flag_arg("weighted", weighted),
        flag_arg("dedup", dedup),
        flag_arg("drop_self_loops", drop_self_loops),
        size_arg("memory", memory),
        flag_arg("overwrite", overwrite),
        n,
        flag_arg("allow_sparse_ids", allow_sparse_ids),
        None if labels is None else os.fsdecode(labels),
        _column("source_col", source_col),
        _column("target_col", target_col),
        _column("weight_col", weight_col),
    )
    for notice in report["notices"]:
        warnings.warn(notice, UserWarning, stacklevel=2)
    return Graph(os.fsdecode(out))


def _column(name: str, value: Any) -> str | None:
    """A column name argument: None or a string (a number would name no header)."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a column name (str), got {type(value).__name__}")
    return value


def _is_parquet(path: PathLike) -> bool:
    """Whether ``path`` is a Parquet file, by its extension or its first bytes (as ``ocgraph
    import`` decides: Spark's part files have no extension)."""
    if os.path.splitext(os.fsdecode(path))[1].lower() in (".parquet", ".pq"):
        return True
    if not os.path.isfile(path):
        return False  # opening a named pipe would wait for a writer; the import refuses it
    try:
        with open(path, "rb") as f:
            head = f.read(4)
            f.seek(-4, os.SEEK_END)
            return head == f.read(4) == b"PAR1"
    except OSError:
        return False  # the import reports why it cannot read the file


def set_labels(graph: PathLike, labels: Any) -> int:
    """Stores vertex labels with the graph at ``graph`` (which must have no uncompacted
    updates), replacing any it had; returns the number of labelled vertices. Labelled patterns
    (:meth:`Graph.match` with ``pattern_labels``) match against them.

    ``labels`` is either one non-negative integer per vertex (below ``ocgraph.NO_LABEL``, which
    marks a vertex without a label; a pandas ``Series`` is read by its index of original ids),
    or the path of a label file: ``vertex label`` lines
    (white space or a comma between), ``vertex`` an original id as in the imported edge list,
    ``#``/``%`` comment lines; vertices it does not name get no label.

    Raises:
        InputError: a malformed line, an unknown vertex or a vertex labelled twice (the
            message names the file and line).
        InvalidArgumentError: not one label per vertex, labels that are not integers (floats,
            booleans, strings) or not in ``0 .. 2**32 - 1``, the graph has updates, or the
            graph was replaced by another numbering of its ids (``import_edges`` with
            ``overwrite``, a reorder) while a ``Series`` was read by them (nothing is stored).
    """
    if isinstance(labels, (str, os.PathLike)):
        return _ocgraph._set_labels(os.fsdecode(graph), None, os.fsdecode(labels))
    if type(labels).__name__ == "Series":
        # The Series is put in vertex order through this handle's ids; the native call checks
        # under the writer lock that the graph still numbers them so (not replaced meanwhile).
        g = open_graph(graph)
        try:
            by_vertex = data_labels(g._by_vertex(labels, "labels"))
            return _ocgraph._set_labels(os.fsdecode(graph), by_vertex, None, g)
        finally:
            g.close()
    return _ocgraph._set_labels(os.fsdecode(graph), data_labels(labels), None)


def remove_labels(graph: PathLike) -> bool:
    """Removes the labels of the graph at ``graph``; returns whether it had any."""
    return _ocgraph._remove_labels(os.fsdecode(graph))


def pack(graph: PathLike, out: PathLike, overwrite: bool = False) -> Graph:
    """Writes ``out``, a copy of the graph ``graph`` with packed neighbour lists, and opens it.

    Packed lists are bit-packed gaps (about half the bytes of plain lists on Kronecker
    graphs), so a graph larger than memory is read faster; every algorithm and query runs on
    either form with the same results. Packed graphs cannot be opened for updates.

    Raises:
        InvalidArgumentError: ``graph`` is packed already, or has updates not yet compacted.
        OcgraphIOError: ``out`` exists without ``overwrite``.
    """
    _ocgraph._pack(os.fsdecode(graph), os.fsdecode(out), flag_arg("overwrite", overwrite))
    return Graph(os.fsdecode(out))


def build_grid(
    graph: PathLike,
    cells_per_side: int | None = None,
    memory: Size = "256MiB",
    compress: str = "none",
) -> dict:
    """Builds the grid layout of ``graph`` in place, beside its adjacency lists (replacing any
    grid it had), as ``ocgraph layout grid`` does.

    The grid cuts the arcs into ``P x P`` cells by source and destination block (blocks of at
    most 65,536 vertices); PageRank, WCC and SpMV then read it (``layout="auto"`` or
    ``"grid"``) and keep the vertex state they touch in cache. Open the graph again to use a
    grid built after it was opened. ``cells_per_side``: ``P``, at most 1,024 (default: the
    fewest blocks of at most 65,536 vertices), rounded so that the blocks are powers of two
    (1,024 for 5,000 vertices gives 625 blocks of 8; the returned ``cells_per_side`` is the
    value used). ``compress``: ``"none"``, ``"lz4"`` (each cell
    compressed) or ``"runs"`` (each cell's sources as runs: fewer bytes to read than
    ``"none"``, more work to decode; see docs/layouts.md for when each is faster). Returns
    the grid's shape and sizes (``arcs``: the grid's, one per directed edge, two per
    undirected one).

    Raises:
        InvalidArgumentError: the graph has updates not yet compacted, or a bad option.
        TypeError: ``compress`` is not a string.
    """
    if not isinstance(compress, str):
        kind = type(compress).__name__
        raise TypeError(f"compress must be 'none', 'lz4' or 'runs', got {kind} {compress!r}")
    p, block, arcs, stored, raw = _ocgraph._build_grid(
        os.fsdecode(graph),
        None if cells_per_side is None else int_arg("cells_per_side", cells_per_side, 1, _MAX_CELLS_PER_SIDE),
        size_arg("memory", memory),
        compress,
    )
    return {
        "cells_per_side": p,
        "block_vertices": block,
        "arcs": arcs,
        "stored_bytes": stored,
        "raw_bytes": raw,
    }


def compress(graph: PathLike, block_size: Size = "16KiB") -> dict:
    """Writes block-compressed copies of the adjacency files of ``graph`` (neighbours and
    weights, each cut into blocks of ``block_size`` bytes compressed with LZ4) beside the plain
    files, replacing copies it had, as ``ocgraph layout compress`` does.

    A graph opened with the buffer pool (``backend="pool"``) then reads the copies and decodes
    them into its frames: fewer bytes read, the same results; ``backend="mmap"`` keeps reading
    the plain files. Open the graph again to use copies written after it was opened. Returns
    the block size and the plain and stored bytes.

    Raises:
        InvalidArgumentError: the graph has updates not yet compacted, is packed, or a bad
            block size (a multiple of 4 KiB up to 1 MiB).
    """
    block, plain, stored = _ocgraph._compress(os.fsdecode(graph), size_arg("block_size", block_size))
    return {"block_size": block, "plain_bytes": plain, "stored_bytes": stored}


def remove_grid(graph: PathLike) -> bool:
    """Removes the grid written by :func:`build_grid`, as ``ocgraph layout remove-grid`` does;
    returns whether there was one."""
    return bool(_ocgraph._remove_grid(os.fsdecode(graph)))


def remove_compressed(graph: PathLike) -> bool:
    """Removes the compressed copies written by :func:`compress`; returns whether there were any."""
    return bool(_ocgraph._remove_compressed(os.fsdecode(graph)))


def pack_lists(graph: PathLike) -> dict:
    """Writes packed copies of the neighbour lists of ``graph`` (bit-packed gaps, as
    :func:`pack`) beside its plain lists, replacing copies it had, as ``ocgraph layout pack``
    does. The graph keeps taking updates (``compact`` packs the new base again).

    Kernels with a ``layout`` argument then read them with ``layout="packed"``, and with
    ``layout="auto"`` when the graph is opened with a buffer pool smaller than its plain lists
    (about half the bytes to read; in memory the plain lists are faster). Open the graph again
    to use copies written after it was opened. Returns the arcs packed (those of every stored
    direction: a directed graph's out- and in-lists both), the bytes of the plain lists with
    their offsets and of the packed lists with their index.

    Raises:
        InvalidArgumentError: the graph has updates not yet compacted, or is packed already.
    """
    arcs, plain, packed = _ocgraph._pack_lists(os.fsdecode(graph))
    return {"arcs": arcs, "plain_bytes": plain, "packed_bytes": packed}


def remove_packed_lists(graph: PathLike) -> bool:
    """Removes the packed copies written by :func:`pack_lists`; returns whether there were any."""
    return bool(_ocgraph._remove_packed_lists(os.fsdecode(graph)))


def check(graph: PathLike) -> dict:
    """Verifies the graph directory ``graph`` as ``ocgraph check`` does: every file against
    its checksum (one sequential read), the invariants of the lists (offsets rising, neighbour
    ids in range and sorted), each copy of the lists (packed, grid, hub index) against the
    lists, and the updates (every level, the log replayed). Temporary directories that killed
    writers left beside it are removed first.

    Returns ``files`` and ``bytes`` verified; ``levels`` and ``seq`` (the last batch the log
    replays up to, or the last batch a compaction folded into the base when none followed;
    both ``None`` for a graph that never took updates); ``torn_tail``: where the log ends
    in a batch that is not replayed, or ``None`` (a writer stopped mid-append leaves one, which
    its next open for updates drops); ``removed``: the temporary directories removed (paths).

    Raises:
        FormatError: a file is damaged (the error names it, and the offset when known).
    """
    files, size, updates, tail, removed = _ocgraph._check(os.fsdecode(graph))
    levels, seq = updates if updates is not None else (None, None)
    return {
        "files": files,
        "bytes": size,
        "levels": levels,
        "seq": seq,
        "torn_tail": tail,
        "removed": removed,
    }


def index_hubs(graph: PathLike) -> dict:
    """Writes the hub index of ``graph`` (each vertex's three in-neighbours of highest
    out-degree, 12 bytes per vertex) into its directory, replacing the one it had, as ``ocgraph
    layout hubs`` does. The graph keeps taking updates (``compact`` indexes the new base
    again; until then kernels do not read the index).

    :meth:`Graph.bfs` and :meth:`Graph.wcc` then look among a vertex's hubs before reading its
    list (with ``layout="auto"`` or ``"hubs"``): on power-law graphs most lists are never read,
    which matters when the buffer pool is smaller than the graph. Open the graph again to use
    an index written after it was opened. Returns the index's bytes and the vertices with more
    in-neighbours than hubs (those whose lists a kernel may still read).

    Raises:
        InvalidArgumentError: the graph has updates not yet compacted.
    """
    size, more = _ocgraph._index_hubs(os.fsdecode(graph))
    return {"bytes": size, "more": more}


def remove_hubs(graph: PathLike) -> bool:
    """Removes the hub index written by :func:`index_hubs`; returns whether there was one."""
    return bool(_ocgraph._remove_hubs(os.fsdecode(graph)))


def reorder(graph: PathLike, out: PathLike, memory: Size = "1GiB", overwrite: bool = False) -> Graph:
    """Writes ``out``, a copy of ``graph`` with its vertices renumbered by degree, and opens it.

    New vertex 0 is the vertex of highest degree (out + in when directed; ties keep the old
    order). On skewed graphs kernels run faster on the copy (PageRank-20 1.8x on kron22 in
    memory): the hubs' per-vertex values share cache lines. Road networks and crawl-ordered
    web graphs get slower (their order already keeps neighbours close). The copy keeps the
    original ids (:meth:`Graph.original_id`, :meth:`Graph.original_ids`, :meth:`Graph.vertex`),
    has plain lists (:func:`pack` packs it) and takes updates like any graph (by vertex id, or
    by original id with ``ids="original"``). The source is read once in file
    order; ``memory`` is the sort budget (beyond it, sorted runs go to disk, as in
    :func:`import_edges`).

    Raises:
        InvalidArgumentError: ``graph`` has updates not yet compacted.
        OcgraphIOError: ``out`` exists without ``overwrite``.
    """
    _ocgraph._reorder(
        os.fsdecode(graph), os.fsdecode(out), size_arg("memory", memory), flag_arg("overwrite", overwrite)
    )
    return Graph(os.fsdecode(out))


def generate(
    kind: str,
    path: PathLike,
    scale: int | None = None,
    edge_factor: int | None = None,
    n: int | None = None,
    m: int | None = None,
    p: float | None = None,
    rows: int | None = None,
    cols: int | None = None,
    seed: int = 1,
    directed: bool = False,
    weighted: bool = False,
    dedup: bool = False,
    memory: Size = "1GiB",
    overwrite: bool = False,
    vertices: int | None = None,
    edges: int | None = None,
    probability: float | None = None,
) -> Graph:
    """Generates a synthetic graph at ``path`` (deterministic for a given seed) and opens it.

    Kinds:
        ``"kronecker"`` (also ``"rmat"``): Graph500 R-MAT with ``2**scale`` vertices and
        ``edge_factor * 2**scale`` edges (needs ``scale``; ``edge_factor`` defaults to 16).
        ``"erdos-renyi"`` (also ``"erdos_renyi"``, ``"er"``, ``"gnm"``, ``"gnp"``): ``n``
        vertices and ``m`` random edges (``G(n, m)``) or each pair with probability ``p``
        (``G(n, p)``).
        ``"road"`` (also ``"road-grid"``, ``"road_grid"``, ``"grid"``): a ``rows x cols`` grid
        with some edges removed and integer weights, like a road network (always undirected
        and weighted: ``directed=True`` is refused).

    ``directed`` stores a directed graph (kronecker, erdos-renyi); ``weighted`` adds random
    weights; ``dedup`` removes duplicate edges and self-loops, as ``ocgraph generate`` always
    does (with it, the same parameters and seed give the CLI's graph; without it, a G(n, m)
    graph is a multigraph). ``vertices``, ``edges`` and ``probability`` are the CLI's names of
    ``n``, ``m`` and ``p``.
    """
    n, m, p = (
        _either(short, a, long, b)
        for short, a, long, b in (
            ("n", n, "vertices", vertices),
            ("m", m, "edges", edges),
            ("p", p, "probability", probability),
        )
    )
    given = {"scale": scale, "edge_factor": edge_factor, "n": n, "m": m, "p": p, "rows": rows, "cols": cols}
    aliases = {
        ("scale", "edge_factor"): ("kronecker", "rmat"),
        ("n", "m", "p"): ("erdos-renyi", "erdos_renyi", "er", "gnm", "gnp"),
        ("rows", "cols"): ("road", "road-grid", "road_grid", "grid"),
    }
    applies = next((names for names, kinds in aliases.items() if str(kind).lower() in kinds), tuple(given))
    extra = [k for k, v in given.items() if v is not None and k not in applies]
    if extra:
        raise InvalidArgumentError(f"generate {kind!r} takes no {', '.join(extra)}")
    _ocgraph._generate(
        kind,
        os.fsdecode(path),
        _opt_int("scale", scale),
        int_arg("edge_factor", 16 if edge_factor is None else edge_factor),
        _opt_int("n", n, U64_MAX),
        _opt_int("m", m, U64_MAX),
        None if p is None else float_arg("p", p),
        _opt_int("rows", rows),
        _opt_int("cols", cols),
        int_arg("seed", seed, 0, U64_MAX),
        flag_arg("directed", directed),
        flag_arg("weighted", weighted),
        flag_arg("dedup", dedup),
        size_arg("memory", memory),
        flag_arg("overwrite", overwrite),
    )
    return Graph(os.fsdecode(path))


def _either(name: str, value: Any, alias: str, alias_value: Any) -> Any:
    """The argument given as ``name`` or as ``alias`` (refused when both are)."""
    if value is not None and alias_value is not None:
        raise InvalidArgumentError(f"give {name} or {alias}, not both")
    return alias_value if value is None else value


def _opt_int(name: str, value: Any, high: int = U32_MAX) -> int | None:
    """An optional non-negative integer argument (see :func:`int_arg`)."""
    return None if value is None else int_arg(name, value, 0, high)
