"""Error classes for bad input, bad arguments and broken graph directories."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import ocgraph
from conftest import restamp

OCGRAPH_BIN = Path(
    os.environ.get("OCGRAPH_BIN", Path(__file__).resolve().parents[2] / "target" / "release" / "ocgraph")
)


def test_hierarchy():
    assert issubclass(ocgraph.OcgraphIOError, OSError)
    assert issubclass(ocgraph.InvalidArgumentError, ValueError)
    assert issubclass(ocgraph.VertexError, IndexError)
    for cls in (ocgraph.FormatError, ocgraph.InputError, ocgraph.OcgraphIOError, ocgraph.VertexError):
        assert issubclass(cls, ocgraph.Error)


def test_open_missing_directory(tmp_path):
    with pytest.raises(ocgraph.OcgraphIOError) as e:
        ocgraph.open(tmp_path / "nope")
    assert "nope" in str(e.value)
    assert e.value.filename.endswith("nope")
    # Also Python's own subclass for the errno, as the built-in open raises.
    assert isinstance(e.value, FileNotFoundError) and e.value.errno == errno.ENOENT
    # A directory holding no graph: its manifest is the missing file, as the docstring says.
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError) as e:
        ocgraph.open(tmp_path / "empty")
    assert e.value.filename.endswith("manifest")
    with pytest.raises(FileNotFoundError):
        ocgraph.import_edges(tmp_path / "missing.txt", tmp_path / "g")
    with pytest.raises(FileNotFoundError):
        ocgraph.from_parquet(tmp_path / "missing.parquet", tmp_path / "g")


def test_writing_over_a_graph_is_a_file_exists_error(tmp_path):
    ocgraph.from_edges([0], [1], tmp_path / "g")
    with pytest.raises(FileExistsError) as e:
        ocgraph.from_edges([0], [2], tmp_path / "g")
    assert isinstance(e.value, ocgraph.OcgraphIOError) and e.value.errno == errno.EEXIST
    assert e.value.filename.endswith("g")
    # Other I/O errors keep the base class alone.
    (tmp_path / "file").write_text("x")
    with pytest.raises(ocgraph.OcgraphIOError) as e:
        ocgraph.open(tmp_path / "file" / "g")
    assert not isinstance(e.value, (FileNotFoundError, FileExistsError, PermissionError))
    assert e.value.errno == errno.ENOTDIR


def test_open_corrupt_graph(tmp_path):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g")
    manifest = tmp_path / "g" / "manifest"
    data = bytearray(manifest.read_bytes())
    data[-2] ^= 0xFF  # flip a byte of the JSON body: checksum mismatch
    manifest.write_bytes(bytes(data))
    with pytest.raises(ocgraph.FormatError):
        ocgraph.open(tmp_path / "g")
    manifest.write_bytes(b"not a graph")
    with pytest.raises(ocgraph.FormatError):
        ocgraph.open(tmp_path / "g")


def test_truncated_data_file(tmp_path):
    ocgraph.from_edges(np.arange(2000), np.arange(1, 2001), tmp_path / "g")
    victim = next(p for p in (tmp_path / "g").iterdir() if p.name != "manifest")
    victim.write_bytes(victim.read_bytes()[:100])
    with pytest.raises(ocgraph.FormatError):
        ocgraph.open(tmp_path / "g")


def test_bad_options(tmp_path):
    ocgraph.from_edges([0], [1], tmp_path / "g")
    with pytest.raises(ocgraph.InvalidArgumentError):
        ocgraph.open(tmp_path / "g", backend="tape")
    with pytest.raises(ValueError):
        ocgraph.open(tmp_path / "g", backend="pool", memory="12 parsecs")
    with pytest.raises(ocgraph.InvalidArgumentError):
        ocgraph.open(tmp_path / "g", advice="sometimes")
    for policy in ("clocky", "gac:decay=2", "gac:what=1"):
        with pytest.raises(ocgraph.InvalidArgumentError):
            ocgraph.open(tmp_path / "g", backend="pool", memory="64KiB", policy=policy)
    with pytest.raises(ocgraph.InvalidArgumentError):
        ocgraph.import_edges(tmp_path / "x", tmp_path / "y", format="xml")
    with pytest.raises(ocgraph.InvalidArgumentError):
        ocgraph.import_edges(tmp_path / "x", tmp_path / "y", relabel="random")
    with pytest.raises(ocgraph.InvalidArgumentError):
        ocgraph.generate("kronecker", tmp_path / "k")  # no scale
    with pytest.raises(ocgraph.InvalidArgumentError):
        ocgraph.generate("smallworld", tmp_path / "k", scale=3)


def test_from_edges_validation(tmp_path):
    with pytest.raises(ocgraph.InputError, match="different lengths"):
        ocgraph.from_edges([0, 1], [1], tmp_path / "a")
    with pytest.raises(ocgraph.InputError, match="negative"):
        ocgraph.from_edges([0, -1], [1, 2], tmp_path / "b")
    with pytest.raises(ocgraph.InputError, match="out of range"):
        ocgraph.from_edges([0, 1], [1, 5], tmp_path / "c", num_vertices=5)
    with pytest.raises(ocgraph.InputError, match="integers"):
        ocgraph.from_edges([0.5], [1.0], tmp_path / "d")
    with pytest.raises(ocgraph.InputError, match="weights"):
        ocgraph.from_edges([0, 1], [1, 2], tmp_path / "e", weights=[1.0])
    with pytest.raises(ocgraph.InvalidArgumentError):
        ocgraph.from_edges([0], [1], tmp_path / "f", num_vertices=2**33)
    assert not any(tmp_path.iterdir())  # nothing half-written


def test_malformed_edge_list_names_the_line(tmp_path):
    (tmp_path / "bad.txt").write_text("0 1\n1 2\n2 x3\n")
    with pytest.raises(ocgraph.InputError, match=r"bad\.txt:3"):
        ocgraph.import_edges(tmp_path / "bad.txt", tmp_path / "g", format="text")
    with pytest.raises(ocgraph.OcgraphIOError):
        ocgraph.import_edges(tmp_path / "missing.txt", tmp_path / "g")
    assert not (tmp_path / "g").exists()


def test_non_utf8_string_ids_are_refused_with_the_line(tmp_path):
    path = tmp_path / "s.txt"
    path.write_bytes(b"alice bob\ncarol \xff\xfeve\n")
    with pytest.raises(ocgraph.InputError, match=r"s\.txt:2:.*not valid UTF-8"):
        ocgraph.import_edges(path, tmp_path / "g")
    assert not (tmp_path / "g").exists()


def test_vertex_out_of_range_and_closed_graph(tmp_path):
    g = ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g")
    for call in (lambda: g.neighbors(3), lambda: g.in_neighbors(-1), lambda: g.out_degree(99)):
        with pytest.raises(IndexError):
            call()
    with pytest.raises(ocgraph.InvalidArgumentError):
        g.edge_weights(3)
    # Ints past 64 bits are out of range too, not a conversion's OverflowError.
    for call in (
        lambda: g.bfs(2**63),
        lambda: g.neighbors(2**64),
        lambda: g.bfs(np.uint64(2**64 - 1)),
        lambda: g.shortest_path(0, 2**64),
        lambda: g.out_degree(-(2**70)),
    ):
        with pytest.raises(ocgraph.VertexError, match="out of range"):
            call()
    # Of a path's two ends, the error says which is out of range.
    with pytest.raises(ocgraph.VertexError, match=r"^target vertex 3 out of range"):
        g.shortest_path(0, 3)
    with pytest.raises(ocgraph.VertexError, match=r"^source vertex 7 out of range"):
        g.shortest_path(7, 0)
    assert "3 vertices" in repr(g)
    with g:
        assert g.num_vertices == 3
    assert g.closed and "closed" in repr(g)
    with pytest.raises(ocgraph.InvalidArgumentError, match="closed"):
        g.neighbors(0)
    for call in (lambda: g.watch("triangle"), g.__enter__):
        with pytest.raises(ocgraph.InvalidArgumentError, match="closed"):
            call()
    g.close()  # closing twice is fine


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda g: g.bfs(0, threads=-1), "threads"),
        (lambda g: g.wcc(threads=10**9), "threads"),
        (lambda g: g.pagerank(max_iter=-1), "max_iter"),
        (lambda g: g.k_hop(0, -2), "k"),
        (lambda g: g.count_cliques(-3), "k"),
        (lambda g: g.list_cliques(2**40), "k"),
        (lambda g: g.motifs(-3), "size"),
        (lambda g: g.diameter_estimate(sweeps=-1), "sweeps"),
        (lambda g: g.count_matches("triangle", threads=-1), "threads"),
        (lambda g: g.add_vertices(-2), "count"),
        (lambda g: g.add_vertices(2**70), "count"),
    ],
)
def test_negative_or_huge_integer_arguments_name_the_argument(tmp_path, call, name):
    ocgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "g", directed=False).close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        with pytest.raises(ocgraph.InvalidArgumentError, match=f"^{name} must be an integer"):
            call(g)
        assert g.num_vertices == 3  # nothing was applied
        # A float where an integer goes is Python's TypeError (see the package docstring).
        for call in (lambda: g.bfs(0, threads=1.5), lambda: g.bfs(1.5)):
            with pytest.raises(TypeError):
                call()


def test_update_ids_must_be_integers_and_weights_finite(tmp_path):
    ocgraph.from_edges([0, 1, 2], [1, 2, 3], tmp_path / "g", num_vertices=5, weights=[1.0, 2.0, 3.0]).close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        for call in (
            lambda: g.add_edges([0.9], [2.5]),
            lambda: g.remove_vertices([1.7]),
            lambda: g.add_edges(["1"], ["4"]),
            lambda: g.remove_edges([True], [1]),
            lambda: g.set_edge_weights([0.0], [1], [2.0]),
        ):
            with pytest.raises(ocgraph.InvalidArgumentError, match="must hold integers"):
                call()
        for w in (np.inf, np.nan, -np.inf, 1e300, 1e-50):
            with pytest.raises(ocgraph.InvalidArgumentError, match="not a finite"):
                g.add_edges([0], [4], weights=[w])
            with pytest.raises(ocgraph.InvalidArgumentError, match="not a finite"):
                g.set_edge_weights([0], [1], [w])
        assert g.neighbors(0).tolist() == [1] and g.neighbors(1).tolist() == [2]
        assert g.edge_weights(0).tolist() == [1.0]
        g.add_edges(np.array([0], dtype=np.uint8), np.array([4], dtype=np.int16), weights=[0.5])
        assert g.neighbors(0).tolist() == [1, 4]
    for w in (np.inf, np.nan, 3.5e38, -1e-50):
        with pytest.raises(ocgraph.InputError, match="not a finite"):
            ocgraph.from_edges([0, 1], [1, 2], tmp_path / "h", weights=[1.0, w], overwrite=True)
    with pytest.raises(ocgraph.InputError, match="must hold integers"):
        ocgraph.from_edges([0.5], [1], tmp_path / "i")


def test_a_kernel_on_corrupted_lists_reports_the_corrupted_file(tmp_path):
    # A small graph's files are checked whole on open. Of a larger one, open checks sizes and
    # bounds, not every byte: a neighbour id flipped out of range is found when a kernel trips
    # on it, and the error then names the file that fails verification.
    ocgraph.from_edges([0, 1, 2, 3, 0], [1, 2, 0, 4, 0], tmp_path / "g", weights=[1.5, 2, 3, 1, 1]).close()
    f = tmp_path / "g" / "out.neighbors"
    b = bytearray(f.read_bytes())
    b[8] ^= 0x5A
    f.write_bytes(bytes(b))
    with pytest.raises(ocgraph.FormatError, match=r"out\.neighbors: .*checksum mismatch"):
        ocgraph.open(tmp_path / "g")
    restamp(tmp_path / "g", "out.neighbors")
    with ocgraph.open(tmp_path / "g") as g:
        for kernel in (g.wcc, lambda: g.sssp(0), g.triangle_count):
            with pytest.raises(ocgraph.FormatError, match=r"out\.neighbors"):
                kernel()
        # The exports and the neighbour lists check the ids they hand out (an export would
        # otherwise invent the vertex, or fail inside pandas or scipy).
        reads = [g.to_pandas, g.to_arrow, g.to_scipy, g.to_networkx, lambda: g.neighbors(1)]
        reads.append(lambda: list(g.iter_arrow_batches(batch_rows=1)))
        for read in reads:
            with pytest.raises(ocgraph.FormatError, match=r"out\.neighbors"):
                read()


def test_a_writable_open_of_damaged_offsets_names_the_file(tmp_path):
    # The writer's open read a list past its end (a panic) and raised the base ocgraph.Error
    # naming no file; it now verifies the files first, as reads do.
    grid = nx.grid_2d_graph(60, 60)
    index = {v: i for i, v in enumerate(grid)}
    src, dst = zip(*((index[u], index[v]) for u, v in grid.edges()))
    ocgraph.from_edges(src, dst, tmp_path / "g", directed=False).close()
    f = tmp_path / "g" / "out.offsets"
    b = bytearray(f.read_bytes())
    b[230] ^= 4
    f.write_bytes(bytes(b))
    with pytest.raises(ocgraph.FormatError, match=r"out\.offsets"):
        ocgraph.open(tmp_path / "g", writable=True)


def test_damaged_offsets_are_refused_by_kernels_on_packed_copies(tmp_path):
    """Offsets out of range (their checksum matching, as on a graph too large to be checked
    whole on open): kernels reading the packed copies of the lists took their degrees from the
    offsets silently (PageRank returned other scores), and `out_degrees` named the graph's
    directory. Both now raise the FormatError naming the offsets file."""
    path = tmp_path / "g"
    ocgraph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], path, directed=False).close()
    ocgraph.pack_lists(path)
    offsets = np.fromfile(path / "out.offsets", dtype=np.uint64)
    offsets[1] = 2**40
    offsets.tofile(path / "out.offsets")
    restamp(path, "out.offsets")
    with ocgraph.open(path, backend="pool", memory="64KiB") as g:
        for kernel in (g.pagerank, g.spmv):  # they weigh by degrees, read from the offsets
            with pytest.raises(ocgraph.FormatError, match=r"out\.offsets"):
                kernel(layout="packed")
        for read in (g.out_degrees, g.in_degrees, g.to_pandas):
            with pytest.raises(
                ocgraph.FormatError, match=r"out\.offsets at byte 8: .*offsets of vertex 0 run from 0"
            ):
                read()


@pytest.mark.parametrize("backend", ["mmap", "pool"])
def test_reads_past_the_arcs_and_ids_past_the_graph_are_refused(tmp_path, backend):
    """Damage whose checksum matches (as on a graph too large to be checked whole on open): an
    offset a little past the arcs read the lists file's padding as neighbours, a 1-hop query
    handed out a neighbour id past the graph, and PageRank blamed the caller for a negative
    weight in a graph that records its weights' range. Each is now the FormatError naming the
    file."""
    from conftest import open_with

    src, dst = [0, 0, 1, 2, 3, 3], [1, 2, 2, 3, 0, 1]
    ocgraph.from_edges(src, dst, tmp_path / "a", weights=[1.0, 2, 3, 4, 5, 6]).close()
    offsets = np.fromfile(tmp_path / "a" / "out.offsets", dtype=np.uint64)
    offsets[3] = offsets[4] + 2  # vertex 2's list ends two arcs past the last one
    offsets.tofile(tmp_path / "a" / "out.offsets")
    restamp(tmp_path / "a", "out.offsets")
    with open_with(tmp_path / "a", backend) as g:
        for read in (lambda: g.neighbors(2), lambda: g.k_hop(2, 1), lambda: g.edge_weights(2)):
            with pytest.raises(ocgraph.FormatError, match=r"out\.offsets"):
                read()
        assert g.neighbors(0).tolist() == [1, 2]

    ocgraph.from_edges(src, dst, tmp_path / "b").close()
    lists = np.fromfile(tmp_path / "b" / "out.neighbors", dtype=np.uint32)
    lists[0] = 2**32 - 1  # vertex 0's first neighbour
    lists.tofile(tmp_path / "b" / "out.neighbors")
    restamp(tmp_path / "b", "out.neighbors")
    with open_with(tmp_path / "b", backend) as g:
        for query in (lambda: g.k_hop(0, 1), lambda: g.k_hop(0, 2), lambda: g.friends_of_friends(0)):
            with pytest.raises(ocgraph.FormatError, match=r"out\.neighbors"):
                query()

    ocgraph.from_edges(src, dst, tmp_path / "c", weights=[1.0, 2, 3, 4, 5, 6]).close()
    weights = np.fromfile(tmp_path / "c" / "out.weights", dtype=np.float32)
    weights[2] = -5.0
    weights.tofile(tmp_path / "c" / "out.weights")
    restamp(tmp_path / "c", "out.weights")
    with open_with(tmp_path / "c", backend) as g:
        with pytest.raises(ocgraph.FormatError, match=r"out\.weights"):
            g.pagerank()
    # A graph given a negative weight on purpose records no range: the caller's error.
    ocgraph.from_edges(src, dst, tmp_path / "d", weights=[1.0, 2, -5, 4, 5, 6]).close()
    with open_with(tmp_path / "d", backend) as g:
        with pytest.raises(ocgraph.InvalidArgumentError, match=r"arc 1 -> 2 has weight -5"):
            g.pagerank()


@pytest.mark.parametrize("backend", ["mmap", "pool"])
def test_engine_panic_becomes_ocgraph_error(tmp_path, backend, capfd):
    """A corrupted offsets file (its checksum matching, as damage on a graph too large to be
    checked whole on open goes unseen there) makes the engine fail mid-read: the failure must
    surface as ocgraph.Error, not kill the interpreter, and print no raw Rust panic message
    besides."""
    from conftest import open_with

    ocgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "g")
    offsets = np.fromfile(tmp_path / "g" / "out.offsets", dtype=np.uint64)
    offsets[1] = 2**40
    offsets.tofile(tmp_path / "g" / "out.offsets")
    restamp(tmp_path / "g", "out.offsets")
    g = open_with(tmp_path / "g", backend)
    # The error names the file that fails verification.
    for read in (lambda: g.neighbors(0), lambda: g.out_degree(1), lambda: g.edge_weights(0)):
        with pytest.raises(ocgraph.FormatError, match=r"out\.offsets"):
            read()
    with pytest.raises(
        ocgraph.FormatError, match=r"out\.offsets at byte 8: .*offsets of vertex 0 run from 0 to"
    ):
        g.out_degrees()
    assert g.neighbors(2).tolist() == [0]  # the graph object is still usable
    assert "panicked" not in capfd.readouterr().err


def test_pack_refusals_and_corruption(tmp_path):
    """Packing a packed graph or one with updates is refused (and leaves nothing behind); packed
    graphs are read-only; a truncated packed index is refused on open, naming the file."""
    src, dst = tmp_path / "g", tmp_path / "p"
    ocgraph.from_edges(np.arange(2000), np.arange(1, 2001), src).close()
    p = ocgraph.pack(src, dst)
    assert p.packed and p.neighbors(5).tolist() == [6]
    with ocgraph.open(src) as g:
        assert not g.packed
    p.close()
    with pytest.raises(ocgraph.InvalidArgumentError, match="packed already"):
        ocgraph.pack(dst, tmp_path / "q")
    with pytest.raises(ocgraph.OcgraphIOError):
        ocgraph.pack(src, dst)
    with pytest.raises(ocgraph.InvalidArgumentError, match="packed graphs cannot be opened for updates"):
        ocgraph.open(dst, writable=True)
    with ocgraph.open(src, writable=True) as g:
        g.add_edges([0], [5])
    with pytest.raises(ocgraph.InvalidArgumentError, match="compact"):
        ocgraph.pack(src, tmp_path / "q")
    assert not (tmp_path / "q").exists()
    index = dst / "out.packed_index"
    index.write_bytes(index.read_bytes()[:100])
    with pytest.raises(ocgraph.FormatError, match=r"out\.packed_index"):
        ocgraph.open(dst)
    # A copy may not replace a directory holding its source (the source would be deleted).
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "outer" / "sub").close()
    for copy in (ocgraph.pack, ocgraph.reorder):
        with pytest.raises(ocgraph.InvalidArgumentError, match="overlaps the graph directory"):
            copy(tmp_path / "outer" / "sub", tmp_path / "outer", overwrite=True)
        assert ocgraph.open(tmp_path / "outer" / "sub").neighbors(1).tolist() == [2]


def test_a_page_read_failing_under_the_pool_is_an_io_error_naming_the_file(tmp_path):
    """A data file cut short after open: the pool's page read fails in a rayon worker of the
    kernel, and the call raises OcgraphIOError naming the file and offset (no panic)."""
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 20000, 200000), rng.integers(0, 20000, 200000)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=20000).close()
    with ocgraph.open(tmp_path / "g", backend="pool", memory="64KiB") as g:
        for name in ("out.neighbors", "in.neighbors"):
            with open(tmp_path / "g" / name, "r+b") as f:
                f.truncate(4096)
        with pytest.raises(ocgraph.OcgraphIOError, match=r"\.neighbors.*offset"):
            g.pagerank(max_iter=2, threads=2)
        with pytest.raises(ocgraph.OcgraphIOError, match=r"\.neighbors.*offset"):
            g.bfs(0, threads=2)


def test_a_pool_of_two_frames_runs_kernels_and_maintained_results(tmp_path):
    # Two 4 KiB frames hold one reader's two pinned pages: kernels asked for more threads run
    # with one (more would each pin a frame and wait for another forever), and so does the
    # first computation of a maintained result.
    import networkx as nx

    rng = np.random.default_rng(0)
    n, m = 1500, 3000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    ocgraph.from_edges(
        src, dst, tmp_path / "g", num_vertices=n, directed=False, dedup=True, drop_self_loops=True
    ).close()
    h = nx.Graph()
    h.add_nodes_from(range(n))
    h.add_edges_from((int(a), int(b)) for a, b in zip(src, dst) if a != b)
    g = ocgraph.open(tmp_path / "g", backend="pool", memory="8KiB")
    want = nx.single_source_shortest_path_length(h, 0)
    assert g.bfs(0, threads=2).tolist() == [want.get(v, -1) for v in range(n)]
    np.testing.assert_allclose(g.sssp(0, threads=2), [want.get(v, np.inf) for v in range(n)])
    pr = nx.pagerank(h, tol=1e-10, max_iter=500)
    np.testing.assert_allclose(
        g.pagerank(tol=1e-10, max_iter=500, threads=2), [pr[v] for v in range(n)], atol=1e-9
    )
    # A pattern search keeps a list per pattern vertex: through a small pool it copies them.
    path3 = [(0, 1), (1, 2), (2, 3)]
    assert g.count_matches(path3, induced=True) == ocgraph.open(tmp_path / "g").count_matches(
        path3, induced=True
    )
    g.close()
    g = ocgraph.open(tmp_path / "g", backend="pool", memory="8KiB", writable=True, durability="none")
    w = g.maintain("wcc")
    p = g.maintain("pagerank", tol=1e-10)
    g.add_edges([0, 1], [n - 1, n - 2])
    h.add_edges_from([(0, n - 1), (1, n - 2)])
    want = np.empty(n, dtype=np.int64)
    for c in nx.connected_components(h):
        want[list(c)] = min(c)
    np.testing.assert_array_equal(w.result(), want)
    pr = nx.pagerank(h, tol=1e-12, max_iter=1000)
    np.testing.assert_allclose(p.result(), [pr[v] for v in range(n)], atol=1e-6)
    g.close()


def test_negative_arguments_of_open_and_import_edges_name_the_argument(tmp_path):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").close()
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"^auto_compact_levels must be an integer"):
        ocgraph.open(tmp_path / "g", writable=True, auto_compact_levels=-1)
    (tmp_path / "e.txt").write_text("0 1\n1 2\n")
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"^num_vertices must be an integer"):
        ocgraph.import_edges(tmp_path / "e.txt", tmp_path / "h", num_vertices=-1)
    assert not (tmp_path / "h").exists()


def test_unsigned_ids_beyond_int64_are_named_as_given(tmp_path):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        cases = [([2**63], 2**63), (np.array([1, 2**64 - 1], dtype="u8"), 2**64 - 1)]
        # Past 64 bits too, in a list or alone (alone it was "must hold integers, got dtype
        # object", an InvalidArgumentError).
        cases += [([0, 2**64], 2**64), (2**64, 2**64), (-(2**70), -(2**70))]
        for ids, shown in cases:
            with pytest.raises(ocgraph.VertexError, match=f"= {shown} is out of range"):
                g.add_edges(ids, [0] * np.size(ids))
        assert g.num_edges == 2


def test_an_update_names_the_argument_and_position_of_a_vertex_out_of_range(tmp_path):
    """It said only "vertex 7 out of range", not which array or where in it."""
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=4).close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        g.watch("triangle")  # the watch's bookkeeping runs before the native check
        for call, where in (
            (
                lambda: g.add_edges([0, -1], [1, 2]),
                r"^src\[1\] = -1 is out of range \(the graph has 4 vertices\)",
            ),
            (lambda: g.add_edges([0, 1], [1, 7]), r"^dst\[1\] = 7 is out of range"),
            (lambda: g.remove_edges([0, 1], [1, 9]), r"^dst\[1\] = 9 is out of range"),
            (lambda: g.remove_vertices([1, 2, 4]), r"^vertices\[2\] = 4 is out of range"),
            (lambda: g.set_vertex_labels([5], [1]), r"^vertices\[0\] = 5 is out of range"),
        ):
            with pytest.raises(ocgraph.VertexError, match=where):
                call()
        assert g.num_edges == 2


def test_arguments_named_as_in_the_signature_and_bytes_paths(tmp_path):
    """`shortest_path`'s TypeError named the native arguments 's' and 't'; a bytes path was
    refused as "'bytes' object cannot be converted to 'PyString'"."""
    with ocgraph.from_edges([0, 1], [1, 2], os.fsencode(tmp_path / "g")) as g:
        assert g.shortest_path(0, 2) == [0, 1, 2]
        with pytest.raises(TypeError, match="'source'"):
            g.shortest_path(1.5, 2)
        with pytest.raises(TypeError, match="'target'"):
            g.shortest_path(0, "2")
    with ocgraph.open(os.fsencode(tmp_path / "g")) as g:
        assert g.num_edges == 2


def test_unwatch_of_a_watch_not_on_the_graph(tmp_path):
    ocgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "g").close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        w = g.watch("triangle")
        g.unwatch(w)
        with pytest.raises(ocgraph.InvalidArgumentError, match="not watching this graph"):
            g.unwatch(w)


def test_add_vertices_fails_before_committing_when_the_result_does_not_fit(tmp_path, monkeypatch):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=4).close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        assert g.add_vertices(3).tolist() == [4, 5, 6]

        def no_memory(*args, **kwargs):
            raise MemoryError("no memory for the returned ids")

        monkeypatch.setattr(np, "arange", no_memory)  # as for 2**32 - 10 vertices
        with pytest.raises(MemoryError):
            g.add_vertices(2**32 - 10)
        monkeypatch.undo()
        assert g.num_vertices == 7
        with pytest.raises(
            ocgraph.InvalidArgumentError, match=r"^count must be an integer from 0 to 4294967288"
        ):
            g.add_vertices(2**32 - 7)  # beyond 2**32 - 1 vertices in all: refused before allocating
    assert ocgraph.open(tmp_path / "g").num_vertices == 7


def test_waiting_for_a_negative_batch_names_the_argument(tmp_path):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        m = g.maintain("wcc")
        with pytest.raises(ocgraph.InvalidArgumentError, match="seq must be a batch number"):
            m.wait(-1)
        m.wait(g.add_edges([2], [0]))
        assert m.result().tolist() == [0, 0, 0]
        m.stop()


def test_a_missing_id_is_reported_as_missing(tmp_path):
    # A nullable column with a gap converts to floats or objects; the error names the gap.
    pd = pytest.importorskip("pandas")
    gaps = (pd.Series([0, None], dtype="Int64"), [0, None], np.array([0.0, np.nan]))
    for src in gaps:
        with pytest.raises(ocgraph.InputError, match=r"src\[1\] is missing"):
            ocgraph.from_edges(src, [1, 2], tmp_path / "g")
        assert not (tmp_path / "g").exists()
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        for dst in gaps:
            with pytest.raises(ocgraph.InvalidArgumentError, match=r"dst\[1\] is missing"):
                g.add_edges([0, 1], dst)
        # An iterator is refused by name (numpy would hold it as one object).
        with pytest.raises(
            ocgraph.InvalidArgumentError, match="src must be an array or a sequence, got generator"
        ):
            g.add_edges((v for v in [0]), [1])
        # So are a set and a mapping: their order, which pairs sources with targets, is not given.
        for unordered, kind in (({0}, "set"), ({0: 1}, "dict")):
            with pytest.raises(ocgraph.InvalidArgumentError, match=f"got {kind}, which has no order"):
                g.add_edges(unordered, [1])
            with pytest.raises(ocgraph.InputError, match=f"src must .* got {kind}, which has no order"):
                ocgraph.from_edges(unordered, [1], tmp_path / "h")
        assert g.num_arcs == 2
        # An Arrow null is refused, not read as NaN (as a masked entry or a Series NA).
        pa = pytest.importorskip("pyarrow")
        with pytest.raises(ocgraph.InvalidArgumentError, match="x has 1 null"):
            g.spmv(pa.array([1.0, None, 1.0]))
        with pytest.raises(ocgraph.InvalidArgumentError, match="personalization has 1 null"):
            g.pagerank(personalization=pa.chunked_array([[1.0], [None, 1.0]]))
        assert g.spmv(pa.array([1.0, 2.0, 4.0])).tolist() == g.spmv(np.array([1.0, 2.0, 4.0])).tolist()


def test_a_fractional_vertex_count_is_refused(tmp_path):
    with pytest.raises(TypeError, match=r"num_vertices must be an integer, got 3\.5"):
        ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=3.5)
    assert not (tmp_path / "g").exists()
    g = ocgraph.from_edges([0, 1], [1, 2], tmp_path / "h", num_vertices=np.int64(5))
    assert g.num_vertices == 5
    # A bool is no count (True built a graph of 1 vertex), nor a probability (p=True was 1.0).
    with pytest.raises(TypeError, match="num_vertices must be an integer, got True"):
        ocgraph.from_edges([0], [0], tmp_path / "b", num_vertices=True)
    with pytest.raises(TypeError, match="p must be a real number, got bool"):
        ocgraph.generate("erdos-renyi", tmp_path / "er", n=10, p=True)
    assert not (tmp_path / "b").exists() and not (tmp_path / "er").exists()


def test_arguments_the_docs_promise(tmp_path):
    # Flags take True/False and the integers 0 and 1.
    g = ocgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "g", directed=False)
    assert g.count_matches("triangle", induced=1) == 1
    assert g.motifs(3, directed=0).tolist() == [0, 1]
    g.close()
    w = ocgraph.open(tmp_path / "g", writable=1)
    assert w.add_edges([0], [0], durable=0) > 0
    w.close()
    # A string is refused: bool("false") is True, which would build or open something else than
    # asked, and nothing is written.
    with pytest.raises(TypeError, match="directed must be True or False, got str 'false'"):
        ocgraph.from_edges([0, 1], [1, 2], tmp_path / "s", directed="false")
    assert not (tmp_path / "s").exists()
    with pytest.raises(TypeError, match="undirected must be True or False"):
        ocgraph.import_edges(tmp_path / "none.txt", tmp_path / "s", undirected="no")
    with pytest.raises(TypeError, match="writable must be True or False"):
        ocgraph.open(tmp_path / "g", writable="false")
    with pytest.raises(TypeError, match="parents must be True or False"):
        ocgraph.open(tmp_path / "g").bfs(0, parents=2)
    w = ocgraph.open(tmp_path / "g", writable=True)
    with pytest.raises(TypeError, match="durable must be True or False"):
        w.add_edges([1], [1], durable="yes")
    assert w.num_arcs == ocgraph.open(tmp_path / "g").num_arcs
    w.close()
    # An id past the 32-bit id space names the array and the index.
    with pytest.raises(ocgraph.InputError, match=r"dst\[1\] = 4294967296 does not fit a 32-bit vertex id"):
        ocgraph.from_edges([0, 1], [1, 2**32], tmp_path / "big")
    # ... also past int64, where numpy would hold a list's ints as floats or objects.
    with pytest.raises(ocgraph.InputError, match=r"src\[1\] = 9223372036854775808 does not fit"):
        ocgraph.from_edges([0, 2**63], [1, 2], tmp_path / "big")
    with pytest.raises(ocgraph.InputError, match=r"src\[1\] = 18446744073709551616 is out of range"):
        ocgraph.from_edges([0, 2**64], [1, 2], tmp_path / "big")
    # A parameter the kind does not take is refused, edge_factor included.
    with pytest.raises(ocgraph.InvalidArgumentError, match="takes no edge_factor"):
        ocgraph.generate("road", tmp_path / "r", rows=3, cols=3, edge_factor=8)
    # Wrong types and values name the argument, with the documented classes.
    g = ocgraph.open(tmp_path / "g")
    with pytest.raises(TypeError, match="an original id is an int or a str"):
        g.vertex(3.0)
    with pytest.raises(TypeError, match="got bool"):
        g.vertex(True)
    # A bool where a vertex goes is refused, not read as vertex 0 or 1 (Python's bool is an int).
    for call in (
        lambda: g.bfs(True),
        lambda: g.sssp(False),
        lambda: g.neighbors(True),
        lambda: g.out_degree(True),
        lambda: g.k_hop(True, 1),
        lambda: g.shortest_path(0, True),
        lambda: g.original_id(np.True_),
    ):
        with pytest.raises(TypeError, match="a vertex must be an integer, got bool"):
            call()
    assert g.bfs(np.int64(1)).tolist() == g.bfs(1).tolist()
    # A bool among numbers in a list: numpy reads [True, 1] as integers, and the bool became
    # vertex 1 (or weight 1.0) without a word.
    with pytest.raises(ocgraph.InputError, match=r"^src\[0\] is a bool \(True\), not a number$"):
        ocgraph.from_edges([True, 1], [0, 2], tmp_path / "bools")
    with pytest.raises(ocgraph.InputError, match=r"^weights\[1\] is a bool \(False\), not a number$"):
        ocgraph.from_edges([0, 1], [1, 2], tmp_path / "bools", weights=[2.0, np.False_])
    assert not (tmp_path / "bools").exists()
    with ocgraph.open(tmp_path / "g", writable=True) as w:
        before = w.num_edges
        for call in (
            lambda: w.add_edges([True, 0], [2, 2]),
            lambda: w.remove_vertices([np.False_, 2]),
            lambda: w.set_vertex_labels([True, 2], [7, 8]),
        ):
            with pytest.raises(ocgraph.InvalidArgumentError, match=r"\[0\] is a bool"):
                call()
        assert w.num_edges == before
    # A scalar where one value per vertex goes (it raised numpy's "len() of unsized object").
    for bad in (5, "abc", np.float64(1)):
        with pytest.raises(ocgraph.InvalidArgumentError, match=r"per vertex \(\d+\), got shape \(\)"):
            g.to_series(bad)
    # The constructor refuses a bool size as open does (it read True as a 1-byte pool).
    for backend in ("pool", "mmap"):
        with pytest.raises(TypeError, match="a size must be an int or a string like '256MB', got bool True"):
            ocgraph.Graph(str(tmp_path / "g"), backend=backend, memory=True)
    (tmp_path / "e.txt").write_text("5 9\n")
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"^num_vertices applies .* \(relabel=None\)"):
        ocgraph.import_edges(tmp_path / "e.txt", tmp_path / "r", relabel="sorted", num_vertices=10)
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"^num_vertices must be at least 1"):
        ocgraph.import_edges(tmp_path / "e.txt", tmp_path / "r", num_vertices=0)
    # Gauss-Seidel has no teleport term at damping 1: refused (it returned NaN scores).
    with pytest.raises(ocgraph.InvalidArgumentError, match="Jacobi"):
        g.pagerank(damping=1.0, method="gauss-seidel")
    assert np.isfinite(g.pagerank(damping=1.0)).all()
    with pytest.raises(ocgraph.InvalidArgumentError, match="real numbers"):
        g.spmv(np.full(3, 1 + 1j))
    # A damping or tolerance given as a string is refused, not parsed.
    with pytest.raises(TypeError, match="damping must be a real number"):
        g.pagerank(damping="0.5")
    assert np.allclose(g.pagerank(damping=np.float32(0.5)), g.pagerank(damping=0.5), atol=1e-7)
    g.close()
    w = ocgraph.open(tmp_path / "g", writable=True)
    with pytest.raises(TypeError, match="tol must be a real number"):
        w.maintain("pagerank", tol="1e-6")
    w.close()
    with pytest.raises(ocgraph.InvalidArgumentError, match="auto_compact_levels"):
        ocgraph.Graph(str(tmp_path / "g"), writable=True, auto_compact_levels=-1)
    with pytest.raises(ocgraph.InvalidArgumentError, match="takes a pandas DataFrame, got dict"):
        ocgraph.from_pandas({"src": [0], "dst": [1]}, tmp_path / "d")
    with pytest.raises(ocgraph.InputError, match="rows 0 to 1"):
        ocgraph.from_pandas(pd.DataFrame({"src": [1, "a"], "dst": [2, "b"]}), tmp_path / "p")
    # Parquet input takes the spellings text input does.
    pd.DataFrame({"src": [0, 1], "dst": [1, 2]}).to_parquet(tmp_path / "e.pq")
    h = ocgraph.import_edges(tmp_path / "e.pq", tmp_path / "q", format="Parquet", relabel="First_Seen")
    assert (h.num_vertices, h.num_edges) == (3, 2)
    h.close()
    # A workload larger than it can hold is refused, not an aborted allocation or a wrapped count.
    g = ocgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "stored")
    for kind, count in (("edge-queries", 2**40), ("shortest-path", 2**63)):
        with pytest.raises(ocgraph.InvalidArgumentError, match="count"):
            ocgraph.workload(g, kind, tmp_path / "w.bin", count)
    # Never written into the graph's directory: "stored/manifest" replaced the manifest.
    for inside in ("manifest", "queries.bin"):
        with pytest.raises(ocgraph.InvalidArgumentError, match="overlaps the graph directory"):
            ocgraph.workload(g, "fof", tmp_path / "stored" / inside, 5)
    g.close()
    assert ocgraph.open(tmp_path / "stored").num_edges == 3


def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    """Importing a named pipe (a FIFO nobody writes) hung in the Parquet sniff, which opened it
    before the import could refuse a stream; the CLI and Python now refuse it at once."""
    import subprocess
    import sys

    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    code = f"import ocgraph; ocgraph.import_edges({str(fifo)!r}, {str(tmp_path / 'g')!r})"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "not a regular file" in r.stderr, r.stderr
    if OCGRAPH_BIN.exists():
        r = subprocess.run(
            [str(OCGRAPH_BIN), "import", str(fifo), str(tmp_path / "h")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 1 and "not a regular file" in r.stderr, r.stderr
        # `-` (standard input elsewhere) said "No such file or directory".
        r = subprocess.run(
            [str(OCGRAPH_BIN), "import", "-", str(tmp_path / "h")],
            input="0 1\n",
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
        assert r.returncode == 1 and "-: standard input is not read" in r.stderr, r.stderr
    assert not (tmp_path / "g").exists() and not (tmp_path / "h").exists()


def test_arguments_that_hung_split_or_overflowed(tmp_path):
    """A subnormal PageRank tolerance kept the maintained result pushing forever; a lone string
    of original ids was split into characters and written durably; a huge source or batch
    number raised a bare OverflowError; personalization strings were parsed and complex
    values cut."""
    (tmp_path / "named.txt").write_text("ann bob\nbob cat\n")
    ocgraph.import_edges(tmp_path / "named.txt", tmp_path / "named").close()
    g = ocgraph.open(tmp_path / "named", writable=True)
    for tol in (5e-324, 2e-323, 1e-301):
        with pytest.raises(ocgraph.InvalidArgumentError, match="tol must be from 1e-300"):
            g.maintain("pagerank", tol=tol)
    m = g.maintain("pagerank", tol=1e-300)
    # A lone original id is one id, never its characters.
    g.add_edges("ann", "dan", ids="original")
    assert (g.num_vertices, g.num_edges) == (4, 3) and g.vertex("dan") == 3
    g.remove_edges("ann", "dan", ids="original")
    with pytest.raises(ocgraph.InvalidArgumentError, match='give it as the string "1"'):
        g.remove_edges(1, 2, ids="original")
    # True was taken as the id 1 (Python's bool is an int); sets, dicts and data frames paired
    # ids in their iteration order, keys or column names.
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"src\[0\]: an original id is .*, got True"):
        g.add_edges([True], ["ann"], ids="original")
    # An id no import gives names its argument and position (it named neither).
    for bad, shown in ((-1, "-1"), (2**64, "18446744073709551616"), (5.0, "5.0"), (b"ann", "b'ann'")):
        with pytest.raises(ocgraph.InvalidArgumentError, match=rf"dst\[1\]: an original id .*, got {shown}$"):
            g.add_edges(["ann", "bob"], ["bob", bad], ids="original")
        with pytest.raises(ocgraph.InvalidArgumentError, match=rf"ids\[0\]: an original id .*, got {shown}$"):
            g.add_vertices(ids=[bad])
    for bad in ({"ann"}, {"ann": "bob"}, pd.DataFrame({"ann": ["bob"]})):
        with pytest.raises(ocgraph.InvalidArgumentError, match="give the ids as a list, tuple or array"):
            g.add_edges(bad, ["bob"], ids="original")
    assert (g.num_vertices, g.num_edges) == (4, 2)
    for bad in (2**63, -(2**63) - 1, 2**64):
        with pytest.raises(ocgraph.VertexError):
            g.maintain("bfs", source=bad)
    with pytest.raises(ocgraph.InvalidArgumentError, match="seq must be a batch number"):
        m.wait(-(2**70))
    with pytest.raises(ocgraph.InvalidArgumentError, match="past the graph's last batch"):
        m.wait(2**63)
    for column in ("src", "weight"):
        df = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [1.0, 2.0]})
        df[column] = df[column].astype(complex)
        with pytest.raises(ocgraph.InputError, match=f"rows 0 to 1: .*column {column}"):
            ocgraph.from_pandas(df, tmp_path / "cx", weight="weight")
    for p in (np.array(["1"] * 3), [b"1"] * 3, np.array([1 + 5j] * 3)):
        with pytest.raises(ocgraph.InvalidArgumentError, match="personalization must hold real numbers"):
            g.pagerank(personalization=p)
    # Negative values whose sum overflows are refused as given (they were scaled by the largest,
    # a negative: all became positive, and the scores came back uniform).
    n = g.num_vertices
    for p, named in (
        ([-1e308] * n, r"\[0\] = -10{308};"),
        ([1e308] * (n - 1) + [-1.0], rf"\[{n - 1}\] = -1;"),
    ):
        with pytest.raises(ocgraph.InvalidArgumentError, match=named):
            g.pagerank(personalization=np.array(p))
    with pytest.raises(ocgraph.InvalidArgumentError, match="maps vertex ids"):
        g.pagerank(personalization={True: 1.0})
    g.close()


def test_builders_refuse_a_budget_below_4kib(tmp_path):
    """A budget of a few bytes spilled a sorted run per edge or two (seconds for a small graph):
    every Python builder refuses less than 4 KiB, as the CLI does; 4 KiB builds."""
    import pandas as pd

    (tmp_path / "e.txt").write_text("0 1\n1 2\n")
    builders = {
        "from_edges": lambda p, m: ocgraph.from_edges([0, 1], [1, 2], p, memory=m),
        "import_edges": lambda p, m: ocgraph.import_edges(tmp_path / "e.txt", p, memory=m),
        "from_pandas": lambda p, m: ocgraph.from_pandas(
            pd.DataFrame({"src": [0], "dst": [1]}), path=p, memory=m
        ),
        "generate": lambda p, m: ocgraph.generate("erdos-renyi", p, n=10, m=20, memory=m),
    }
    for name, build in builders.items():
        for small in (16, "4095B"):
            with pytest.raises(ocgraph.InvalidArgumentError, match="at least 4KiB"):
                build(tmp_path / f"{name}-small", small)
            assert not (tmp_path / f"{name}-small").exists(), name
        build(tmp_path / name, "4KiB").close()


def test_a_bad_size_names_its_argument(tmp_path):
    """A size that does not parse names the argument it was given for (the message named only
    the size: "bad size '1XB': unknown unit 'xb'", whichever of several sizes it was)."""
    g = tmp_path / "g"
    ocgraph.from_edges([0, 1], [1, 2], g).close()
    (tmp_path / "e.txt").write_text("0 1\n")
    calls = {
        "memory": lambda v: ocgraph.open(g, backend="pool", memory=v),
        "page_size": lambda v: ocgraph.open(g, backend="pool", page_size=v),
        "freeze_threshold": lambda v: ocgraph.open(g, writable=True, freeze_threshold=v),
        "block_size": lambda v: ocgraph.compress(g, block_size=v),
    }
    builders = {
        "from_edges": lambda v: ocgraph.from_edges([0], [1], tmp_path / "b", memory=v),
        "import_edges": lambda v: ocgraph.import_edges(tmp_path / "e.txt", tmp_path / "b", memory=v),
        "from_pandas": lambda v: ocgraph.from_pandas(
            pd.DataFrame({"src": [0], "dst": [1]}), path=tmp_path / "b", memory=v
        ),
        "generate": lambda v: ocgraph.generate("erdos-renyi", tmp_path / "b", n=10, m=20, memory=v),
        "reorder": lambda v: ocgraph.reorder(g, tmp_path / "b", memory=v),
        "build_grid": lambda v: ocgraph.build_grid(g, memory=v),
    }
    for name, call in [*calls.items(), *(("memory", b) for b in builders.values())]:
        with pytest.raises(
            ocgraph.InvalidArgumentError, match=f"^{name}: bad size '1XB': unknown unit 'xb'$"
        ):
            call("1XB")
        with pytest.raises(
            ocgraph.InvalidArgumentError, match=f"^{name}: size must be non-negative, got -5$"
        ):
            call(-5)
        with pytest.raises(
            TypeError, match=f"^{name} must be an int or a string like '256MB', got float 1.5$"
        ):
            call(1.5)
        with pytest.raises(
            TypeError, match=f"^{name} must be an int or a string like '256MB', got bool True$"
        ):
            call(True)
        assert not (tmp_path / "b").exists()
    with ocgraph.open(g) as h:
        with pytest.raises(ocgraph.InvalidArgumentError, match=r"^memory: bad size"):
            h.query(tmp_path / "w.bin", memory="1XB")


def test_open_checks_every_option_and_types(tmp_path):
    """Options the chosen backend or mode does not use are still checked (a misspelt policy
    passed silently until someone switched to the pool); a size or name of the wrong Python
    type is a TypeError; an int size past 2^63 is not called a non-int."""
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").close()
    p = tmp_path / "g"
    for kw, match in [
        ({"policy": "bogus"}, "bogus"),
        ({"page_size": "3KiB"}, "page size"),
        ({"backend": "pool", "advice": "bogus"}, "advice"),
        ({"durability": "bogus"}, "durability"),
        ({"backend": "pool", "memory": 2**64}, "beyond 2"),
    ]:
        with pytest.raises(ocgraph.InvalidArgumentError, match=match):
            ocgraph.open(p, **kw)
    for kw in ({"backend": "pool", "memory": 3.5}, {"memory": None}):
        with pytest.raises(TypeError, match=r"^memory must be an int or a string"):
            ocgraph.open(p, **kw)
    ocgraph.open(p, backend="pool", memory=2**63).close()
    with ocgraph.open(p) as g:
        with pytest.raises(TypeError):
            g.bfs(0, layout=None)
        with pytest.raises(TypeError):
            g.pagerank(method=None)


def test_array_inputs_are_read_as_given_or_refused(tmp_path):
    """Masked entries, durations and pattern vertices past the largest pattern were read as
    data (or panicked); big-endian and repeated pandas columns raised a bare ValueError; a
    0-d array or an Arrow array of original ids was refused."""
    g = ocgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "g")
    for pattern in ([(0, 2**64 - 1)], [(0, 1), (1, 2**64 - 1)], [(0, 8)]):
        with pytest.raises(ocgraph.InvalidArgumentError, match="at most 8 vertices"):
            g.match(np.array(pattern, dtype=np.uint64))
    masked = np.ma.masked_array([0, 1, 2], mask=[0, 0, 1])
    with pytest.raises(ocgraph.InputError, match="masked entries"):
        ocgraph.from_edges(masked, [1, 2, 0], tmp_path / "m")
    with pytest.raises(ocgraph.InvalidArgumentError, match="masked entries"):
        g.pagerank(personalization=np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]))
    with pytest.raises(ocgraph.InvalidArgumentError, match="masked entries"):
        g.match("triangle", labels=np.ma.masked_array([1, 1, 1], mask=[1, 0, 0]), pattern_labels=[1, 1, 1])
    # A mask hiding nothing is an array like any other.
    assert g.pagerank(personalization=np.ma.masked_array([1.0, 1.0, 1.0], mask=[0, 0, 0])).shape == (3,)
    with pytest.raises(ocgraph.InputError, match="must hold integers, got dtype timedelta64"):
        ocgraph.from_edges(np.array([0, 1], dtype="m8[D]"), [1, 2], tmp_path / "t")
    with pytest.raises(ocgraph.InputError, match="must be real numbers, got dtype timedelta64"):
        ocgraph.from_edges([0, 1], [1, 2], tmp_path / "t", weights=np.array([1, 2], dtype="m8[s]"))
    with pytest.raises(ocgraph.InvalidArgumentError, match="labels must be integers"):
        g.match("triangle", labels=np.array([1, 1, 1], dtype="m8[s]"), pattern_labels=[1, 1, 1])
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"one value per vertex \(3\), got shape \(\)"):
        g.spmv(x=5.0)

    # Big-endian columns build the graph the native ones do; repeated names are refused.
    df = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0], "weight": [0.5, 1.5, 2.5]})
    swapped = df.astype({"src": ">i8", "dst": ">u4", "weight": ">f8"})
    a = ocgraph.from_pandas(df, tmp_path / "native", weight="weight", directed=True)
    b = ocgraph.from_pandas(swapped, tmp_path / "swapped", weight="weight", directed=True)
    assert a.edges("pandas").equals(b.edges("pandas"))
    twice = pd.concat([df[["src", "dst"]], df[["dst"]]], axis=1)
    with pytest.raises(ocgraph.InputError, match="more than one column named 'dst'"):
        ocgraph.from_pandas(twice, tmp_path / "twice")

    # Original ids as a 0-d array or an Arrow array.
    pa = pytest.importorskip("pyarrow")
    (tmp_path / "named.txt").write_text("10 20\n20 30\n")
    ocgraph.import_edges(tmp_path / "named.txt", tmp_path / "named").close()
    w = ocgraph.open(tmp_path / "named", writable=True)
    w.add_edges(np.array(10), np.array(30), ids="original")
    w.add_edges(pa.array([30]), pa.array([40]), ids="original")
    for hidden in (np.ma.array(10, mask=True), np.ma.array([10, 20], mask=[0, 1])):
        with pytest.raises(ocgraph.InvalidArgumentError, match="masked entries"):
            w.remove_vertices(hidden, ids="original")
    got = {(int(a), int(b)) for a, b in w.edges("pandas").itertuples(index=False)}
    assert got == {(10, 20), (20, 30), (10, 30), (30, 40)}


def test_a_labels_series_is_read_by_original_id(tmp_path):
    """``labels=`` given as a pandas Series (as ``to_series`` gives) was read by position, so
    labelled matches used other vertices' labels."""
    e = pd.DataFrame(
        {"src": ["alice", "bob", "carol", "carol", "dave"], "dst": ["bob", "carol", "alice", "dave", "alice"]}
    )
    g = ocgraph.from_pandas(e, tmp_path / "g", directed=False)
    roles = pd.Series({"dave": 2, "carol": 2, "bob": 1, "alice": 1})
    by_id = roles.reindex(g.original_ids()).to_numpy()
    assert not np.array_equal(by_id, roles.to_numpy())  # position and id disagree here
    pattern = [(0, 1), (1, 2), (2, 0)]
    want = g.match(pattern, labels=by_id, pattern_labels=[1, 1, 2])
    names = {tuple(sorted(g.original_id(int(x)) for x in row)) for row in want}
    assert names == {("alice", "bob", "carol")}
    assert np.array_equal(g.match(pattern, labels=roles, pattern_labels=[1, 1, 2]), want)
    g.close()
    ocgraph.set_labels(tmp_path / "g", roles)
    assert np.array_equal(ocgraph.open(tmp_path / "g").vertex_labels(), by_id)
    with pytest.raises(ocgraph.InvalidArgumentError, match="missing values"):
        ocgraph.set_labels(tmp_path / "g", roles.astype("Int64").where(roles > 1))


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
def test_the_command_line_with_closed_and_refused_outputs(tmp_path):
    """Help into a closed pipe ends as every output does (status 141, no error); a usage or
    runtime error whose standard error is a closed pipe keeps its status (it aborted on the
    panic of `eprintln!`); a read-only output file is refused before the work; `-` is standard
    output even when the current directory is inside the graph."""
    import os
    import subprocess

    def closed_pipe() -> int:
        r, w = os.pipe()
        os.close(r)
        return w

    def status(args, stream, **kw) -> int:
        w = closed_pipe()
        try:
            return subprocess.run([str(OCGRAPH_BIN), *args], **{stream: w}, **kw).returncode
        finally:
            os.close(w)

    for args in (["--help"], ["help", "run"], ["--version"]):
        assert status(args, "stdout") == 141, args
    assert status(["bogus"], "stderr", stdout=subprocess.DEVNULL) == 2
    assert status(["info", str(tmp_path / "nope")], "stderr", stdout=subprocess.DEVNULL) == 1
    g = tmp_path / "g"
    subprocess.run([str(OCGRAPH_BIN), "generate", "kronecker", "--scale", "5", "--quiet", str(g)], check=True)
    ro = tmp_path / "ro.txt"
    ro.write_text("kept")
    ro.chmod(0o444)
    r = subprocess.run(
        [str(OCGRAPH_BIN), "run", "pagerank", str(g), "--out", str(ro)], capture_output=True, text=True
    )
    assert r.returncode == 2 and "read-only" in r.stderr and ro.read_text() == "kept", r.stderr
    r = subprocess.run([str(OCGRAPH_BIN), "export", ".", "-"], capture_output=True, text=True, cwd=g)
    assert r.returncode == 0 and len(r.stdout.splitlines()) > 10, r.stderr


def test_wait_takes_integer_like_objects(tmp_path):
    g = ocgraph.from_edges([0, 1], [1, 2], tmp_path / "w", num_vertices=5)
    g.close()
    g = ocgraph.open(tmp_path / "w", writable=True, durability="none")
    m = g.maintain("wcc")
    seq = g.add_edges([3], [4])
    m.wait(np.int64(seq))
    with pytest.raises(ocgraph.InvalidArgumentError, match="0 or more"):
        m.wait(np.int64(-1))
    with pytest.raises(ocgraph.InvalidArgumentError, match="past the graph's last batch"):
        m.wait(np.uint64(2**63))
    # A bool is an int to Python, but no batch number (as `maintain`'s source refuses it).
    for b in (True, np.bool_(False)):
        with pytest.raises(TypeError, match="got bool"):
            m.wait(b)
    g.close()


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
def test_state_the_machine_cannot_hold_is_a_memory_error(tmp_path):
    import subprocess
    import sys

    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g")
    (tmp_path / "u.txt").write_text("+v 4294967290\n")
    subprocess.run(
        [str(OCGRAPH_BIN), "stream", str(tmp_path / "g"), "--updates", str(tmp_path / "u.txt")],
        check=True,
        capture_output=True,
    )
    # In a child whose address space is limited to 4 GiB, PageRank's state on the grown graph
    # (about 192 GiB) is refused as an OcgraphMemoryError, which is also a MemoryError.
    code = f"""
import resource, ocgraph
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
g = ocgraph.open({str(tmp_path / "g")!r})
try:
    g.pagerank()
except MemoryError as e:
    print(type(e).__name__, isinstance(e, ocgraph.Error), e)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("OcgraphMemoryError True out of memory: pagerank's per-vertex state"), r.stdout
    assert "4294967293 vertices" in r.stdout
    # The message names the limit, which the threads' malloc arenas share with the state.
    assert "address-space limit of 4.0 GiB (`ulimit -v`)" in r.stdout, r.stdout


def test_a_listing_larger_than_memory_is_a_memory_error(tmp_path):
    """Listing matches in memory grew until the system killed the process (a labelled 5-vertex
    pattern with 1.2 billion matches took 23 GB); it now stops with OcgraphMemoryError once
    the rows would take half the memory available: here 150 MiB of address space left, and
    the 35.8 million triangles of K_600 take 430 MB."""
    import subprocess
    import sys

    n = 600
    src, dst = np.triu_indices(n, 1)
    ocgraph.from_edges(src, dst, tmp_path / "k", directed=False, num_vertices=n).close()
    code = f"""
import resource, ocgraph
g = ocgraph.open({str(tmp_path / "k")!r})
assert len(g.list_cliques(3, threads=1)[:0]) == 0  # threads, arenas and pages mapped first
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + (300 << 20), size + (300 << 20)))
assert g.list_cliques(2, threads=1).shape == ({n * (n - 1) // 2}, 2)
for listing in (lambda: g.list_cliques(3, threads=1), lambda: g.match("triangle", threads=1)):
    try:
        listing()
    except ocgraph.OcgraphMemoryError as e:
        print(e)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    assert lines[0].startswith("out of memory: listing the 3-cliques in memory (more than"), lines[0]
    assert lines[1].startswith("out of memory: listing the matches in memory (more than"), lines[1]
    assert "count them instead, or list them to a file" in lines[1]
    # The need reported is what was granted plus the one refused request (rows held twice while
    # joined), not every refused request added up.
    for line in lines:
        needed = int(line.split(" bytes)")[0].rsplit("(", 1)[1])
        assert 100 << 20 < needed < 1 << 30, line


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
def test_worker_threads_the_address_space_cannot_hold_are_an_error_not_a_panic(tmp_path):
    import re
    import resource
    import subprocess

    ocgraph.from_edges([0, 1, 2], [1, 2, 3], tmp_path / "g").close()
    # Address-space limits from too small to load the binary up to enough: between the two, the
    # threads' stacks find no room. That is an out-of-memory error naming the limit, for the
    # global pool (generate) and for a kernel's own pool (run), never rayon's panic at the
    # pool's first use ("internal error"). Lower, a small allocation can still abort the
    # process, as any program's does.
    thread_errors = 0
    for mib in range(8, 81):
        generate = [
            "generate",
            "erdos-renyi",
            tmp_path / f"e{mib}",
            "--vertices",
            "100",
            "--edges",
            "300",
            "--quiet",
        ]
        for args in (generate, ["run", "bfs", tmp_path / "g", "--source", "0"]):
            limit = mib << 20

            def cap(limit=limit):
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

            r = subprocess.run(
                [str(OCGRAPH_BIN), *map(str, args)],
                capture_output=True,
                text=True,
                preexec_fn=cap,
                timeout=60,
            )
            assert "internal error" not in r.stderr, (mib, args[0], r.stderr)
            if re.search(r"starting \d+ worker thread", r.stderr):
                thread_errors += 1
                assert r.returncode == 1, r.stderr
                assert f"address-space limit of {mib}.0 MiB (`ulimit -v`)" in r.stderr, r.stderr
    assert thread_errors > 0


def test_a_batch_the_machine_cannot_hold_is_refused_before_it_is_logged(tmp_path):
    import subprocess
    import sys

    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").close()
    # 40M edges 0 -> 1 make 80M arc operations (out and in), whose recording in the delta
    # (about 6 GiB) a child limited to 4 GiB cannot allocate: refused before the batch is
    # logged, so the graph takes the next batch and a reopen holds no trace of the refused one.
    code = f"""
import resource, numpy as np, ocgraph
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
g = ocgraph.open({str(tmp_path / "g")!r}, writable=True)
n = 40_000_000
try:
    g.add_edges(np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64))
except MemoryError as e:
    print(type(e).__name__, e)
g.add_edges([2], [0])
g.close()
g = ocgraph.open({str(tmp_path / "g")!r})
print(g.num_edges, [sorted(g.neighbors(v).tolist()) for v in range(g.num_vertices)])
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()
    assert first.startswith("OcgraphMemoryError out of memory: add_edges: recording a batch of"), first
    assert second == "3 [[1], [2], [0]]", second
