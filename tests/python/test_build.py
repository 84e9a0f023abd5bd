"""from_edges against an independent numpy/scipy reference on many random small graphs."""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import ocgraph
from conftest import graph_arcs, open_with, random_edges, reference_arcs

OCGRAPH_BIN = Path(
    os.environ.get("OCGRAPH_BIN", Path(__file__).resolve().parents[2] / "target" / "release" / "ocgraph")
)

CASES = list(itertools.product([True, False], [False, True], [False, True], [False, True]))


@pytest.mark.parametrize(("directed", "dedup", "weighted", "drop_loops"), CASES)
def test_from_edges_matches_reference(tmp_path, directed, dedup, weighted, drop_loops):
    rng = np.random.default_rng(1234)
    for trial in range(6):
        n = int(rng.integers(1, 40))
        m = int(rng.integers(0, 3 * n))
        src, dst, w = random_edges(rng, n, m, weighted)
        extra = int(rng.integers(0, 3))  # isolated vertices past the largest id
        path = tmp_path / f"g{trial}"
        g = ocgraph.from_edges(
            src,
            dst,
            path,
            num_vertices=n + extra,
            weights=w,
            directed=directed,
            dedup=dedup,
            drop_self_loops=drop_loops,
        )
        ru, rv, rw = reference_arcs(src, dst, w, directed, dedup, drop_loops)
        assert g.num_vertices == n + extra
        assert g.directed == directed and g.weighted == weighted
        assert g.num_arcs == len(ru)
        gu, gv, gw = graph_arcs(g)
        np.testing.assert_array_equal(gu, ru)
        np.testing.assert_array_equal(gv, rv)
        np.testing.assert_array_equal(gw, rw)
        # scipy: duplicates summed on both sides.
        ref = sp.csr_matrix((rw, (ru, rv)), shape=(n + extra, n + extra))
        assert abs(g.to_scipy() - ref).max() == 0 if len(ru) else g.to_scipy().nnz == 0
        np.testing.assert_array_equal(g.out_degrees(), np.bincount(ru, minlength=n + extra))
        np.testing.assert_array_equal(g.in_degrees(), np.bincount(rv, minlength=n + extra))
        for v in range(n + extra):
            assert g.out_degree(v) == int(np.sum(ru == v))
            np.testing.assert_array_equal(np.sort(g.in_neighbors(v)), np.sort(ru[rv == v]))
        g.close()


def test_num_edges_counts_undirected_edges_once(tmp_path):
    g = ocgraph.from_edges([0, 1, 2, 2], [1, 2, 0, 2], tmp_path / "g", directed=False)
    assert g.num_edges == 4
    assert g.num_arcs == 7  # three edges twice, the self-loop once


def test_default_num_vertices_and_empty_graph(tmp_path):
    g = ocgraph.from_edges(np.array([3]), np.array([5]), tmp_path / "a")
    assert g.num_vertices == 6
    e = ocgraph.from_edges([], [], tmp_path / "b", num_vertices=4)
    assert (e.num_vertices, e.num_edges) == (4, 0)
    np.testing.assert_array_equal(e.out_degrees(), [0, 0, 0, 0])
    assert e.neighbors(3).dtype == np.uint32 and len(e.neighbors(3)) == 0


def test_to_networkx_matches_edges(tmp_path):
    import networkx as nx

    rng = np.random.default_rng(7)
    src, dst, w = random_edges(rng, 30, 80, weighted=True)
    for directed in (True, False):
        g = ocgraph.from_edges(
            src, dst, tmp_path / f"g{directed}", num_vertices=32, weights=w, directed=directed, dedup=True
        )
        h = g.to_networkx()
        ref = nx.DiGraph() if directed else nx.Graph()
        ref.add_nodes_from(range(32))
        for u, v, x in sorted(zip(src.tolist(), dst.tolist(), w.tolist()), key=lambda t: -t[2]):
            ref.add_edge(u, v, weight=x)  # the smallest weight is added last and kept
        assert set(h.nodes) == set(ref.nodes)
        assert nx.utils.edges_equal(h.edges(data="weight"), ref.edges(data="weight"))
        # Without dedup the stored arcs repeat; networkx keeps the smallest weight as well.
        m = ocgraph.from_edges(
            src, dst, tmp_path / f"m{directed}", num_vertices=32, weights=w, directed=directed
        )
        assert nx.utils.edges_equal(m.to_networkx().edges(data="weight"), ref.edges(data="weight"))


def test_backends_give_identical_neighbours(tmp_path, backend):
    rng = np.random.default_rng(99)
    src, dst, w = random_edges(rng, 3000, 30000, weighted=True)
    ocgraph.from_edges(src, dst, tmp_path / "g", weights=w, num_vertices=3000)
    ref = ocgraph.open(tmp_path / "g")
    g = open_with(tmp_path / "g", backend)
    for v in range(0, 3000, 7):
        np.testing.assert_array_equal(g.neighbors(v), ref.neighbors(v))
        np.testing.assert_array_equal(g.in_neighbors(v), ref.in_neighbors(v))
        np.testing.assert_array_equal(g.edge_weights(v), ref.edge_weights(v))
    np.testing.assert_array_equal(g.out_degrees(), ref.out_degrees())
    assert abs(g.to_scipy() - ref.to_scipy()).max() == 0
    stats = g.io_stats()
    assert stats["backend"] == backend
    g.reset_io_stats()
    assert g.io_stats()["page_requests"] == 0


def test_pool_occupancy_stays_within_its_budget(tmp_path):
    rng = np.random.default_rng(7)
    src, dst, _ = random_edges(rng, 5000, 60000)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=5000)
    files = sum(f.stat().st_size for f in (tmp_path / "g").iterdir() if f.is_file())
    with ocgraph.open(tmp_path / "g", backend="pool", memory="64KiB") as g:
        g.bfs(0)
        io = g.io_stats()
        assert 0 < io["resident_bytes"] <= io["capacity_bytes"] <= 64 * 1024
        assert io["evictions"] > 0
    with ocgraph.open(tmp_path / "g", backend="pool", memory=4 * files) as g:
        g.to_scipy()
        io = g.io_stats()
        # Nothing had to be evicted: every page read is still held, in whole frames.
        assert io["evictions"] == 0
        assert 0 < io["bytes_read"] <= io["resident_bytes"] <= io["capacity_bytes"]
    with ocgraph.open(tmp_path / "g") as g:
        g.bfs(0)
        assert g.io_stats()["resident_bytes"] == g.io_stats()["capacity_bytes"] == 0


def test_overwrite(tmp_path):
    ocgraph.from_edges([0], [1], tmp_path / "g")
    with pytest.raises(ocgraph.OcgraphIOError):
        ocgraph.from_edges([0], [2], tmp_path / "g")
    g = ocgraph.from_edges([0], [2], tmp_path / "g", overwrite=True)
    assert g.num_vertices == 3


@pytest.mark.parametrize("directed", [True, False])
def test_reorder_renumbers_by_degree_and_keeps_original_ids(tmp_path, directed):
    """A string-id graph with multi-edges and self-loops: the reordered copy holds the same
    weighted arcs through its original ids, its degrees never increase with the id, packs, runs
    PageRank to the same values, and is read-only."""
    rng = np.random.default_rng(7)
    n, m = 60, 400
    src, dst = rng.zipf(1.6, m) % n, rng.integers(0, n, m)
    weights = rng.integers(1, 9, m)
    text = tmp_path / "e.txt"
    text.write_text("".join(f"v{a} v{b} {w}\n" for a, b, w in zip(src, dst, weights)))
    g = ocgraph.import_edges(text, tmp_path / "g", undirected=not directed, weighted=True)
    r = ocgraph.reorder(tmp_path / "g", tmp_path / "r")
    assert (r.num_vertices, r.num_edges, r.directed) == (g.num_vertices, g.num_edges, directed)

    def named_arcs(h):
        u, v, w = graph_arcs(h)
        return sorted((h.original_id(int(a)), h.original_id(int(b)), float(c)) for a, b, c in zip(u, v, w))

    assert named_arcs(r) == named_arcs(g)
    csr = r.to_scipy()
    degree = np.diff(csr.indptr) + (np.diff(csr.tocsc().indptr) if directed else 0)
    assert np.all(np.diff(degree) <= 0) and degree[0] > degree[-1]
    assert r.original_ids() == [r.original_id(p) for p in range(n)] == sorted(g.original_ids(), key=r.vertex)
    old = np.array([g.vertex(r.original_id(p)) for p in range(n)])
    pr_g, pr_r = g.pagerank(tol=1e-10, max_iter=500), r.pagerank(tol=1e-10, max_iter=500)
    np.testing.assert_allclose(pr_r, pr_g[old], rtol=1e-7)
    rp = ocgraph.pack(tmp_path / "r", tmp_path / "rp")
    assert rp.packed and named_arcs(rp) == named_arcs(g)
    a, b = r.original_id(0), r.original_id(n - 1)
    for h in (g, r, rp):
        h.close()
    with ocgraph.open(tmp_path / "r", writable=True) as w:  # updates by original id on the copy
        w.add_edges([a], [b], ids="original")
        assert w.vertex(b) in w.neighbors(w.vertex(a))
    with pytest.raises(ocgraph.InvalidArgumentError, match="packed"):
        ocgraph.open(tmp_path / "rp", writable=True)
    with pytest.raises(ocgraph.OcgraphIOError):
        ocgraph.reorder(tmp_path / "g", tmp_path / "r")


def test_original_ids_map_results_of_a_reordered_copy_back(tmp_path):
    """Integer ids: original_ids() is a uint64 array; indexing with it puts a reordered copy's
    BFS depths back in the source's numbering."""
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 300, 2000) ** 2 // 300, rng.integers(0, 300, 2000)
    g = ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=320)
    np.testing.assert_array_equal(g.original_ids(), np.arange(320))
    r = ocgraph.reorder(tmp_path / "g", tmp_path / "r")
    ids = r.original_ids()
    assert ids.dtype == np.uint64 and sorted(ids.tolist()) == list(range(320))
    assert ids.tolist() != list(range(320))
    back = np.empty(320, dtype=np.int64)
    back[ids] = r.bfs(int(np.flatnonzero(ids == 7)[0]))
    np.testing.assert_array_equal(back, g.bfs(7))


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
@pytest.mark.parametrize(
    "cli, kw",
    [
        (["kronecker", "--scale", "6", "--edge-factor", "4"], {"scale": 6, "edge_factor": 4}),
        (["erdos-renyi", "--vertices", "30", "--edges", "200"], {"n": 30, "m": 200}),
        (["erdos-renyi", "--vertices", "30", "--edges", "200"], {"vertices": 30, "edges": 200}),
        (["erdos-renyi", "--vertices", "30", "--probability", "0.2"], {"vertices": 30, "probability": 0.2}),
    ],
)
def test_python_generate_with_dedup_makes_the_cli_graph(tmp_path, cli, kw):
    subprocess.run(
        [str(OCGRAPH_BIN), "generate", *cli, "--seed", "3", "--quiet", str(tmp_path / "c")], check=True
    )
    kind = cli[0]
    with (
        ocgraph.open(tmp_path / "c") as c,
        ocgraph.generate(kind, tmp_path / "p", seed=3, dedup=True, **kw) as g,
    ):
        assert sorted(c.to_pandas().itertuples(index=False)) == sorted(g.to_pandas().itertuples(index=False))
        assert not any(u == v for u, v in g.to_pandas().itertuples(index=False))


def test_generate_refuses_options_of_another_kind(tmp_path):
    for kind, kw in (
        ("road", {"rows": 3, "cols": 3, "scale": 3}),
        ("rmat", {"scale": 4, "n": 5}),
        ("gnp", {"n": 5, "p": 0.5, "rows": 2}),
    ):
        with pytest.raises(ocgraph.InvalidArgumentError, match="takes no"):
            ocgraph.generate(kind, tmp_path / kind, **kw)
        assert not (tmp_path / kind).exists()
    with pytest.raises(ocgraph.InvalidArgumentError, match="give n or vertices, not both"):
        ocgraph.generate("erdos-renyi", tmp_path / "both", n=5, vertices=5, m=3)
    with pytest.raises(ocgraph.InvalidArgumentError, match="road grids are undirected"):
        ocgraph.generate("road", tmp_path / "r", rows=3, cols=3, directed=True)
    assert not (tmp_path / "r").exists()


def peak_rss_kib(args) -> int:
    """Runs the command to its end (it must succeed) and returns its peak RSS in KiB."""
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen([str(a) for a in args], stdout=null, stderr=null)
        _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    assert p.returncode == 0, args
    return usage.ru_maxrss


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
def test_cli_import_holds_its_input_blocks_within_the_budget(tmp_path):
    """A weighted text import of 14 MB with --memory 4MiB: the block of input read at a time and
    the edges parsed from it count against the budget, so the import's peak RSS stays within
    the budget and a small margin (output buffers) of that of a command that reads nothing, and
    the graph holds every edge. (A 16 MiB block and its parsed edges came on top: 30 MB over.)"""
    rng = np.random.default_rng(11)
    m = 600_000
    src, dst = rng.integers(0, 1 << 20, m), rng.integers(0, 1 << 20, m)
    w = rng.integers(1, 1000, m) / 8
    lines = "".join(f"{s} {d} {x}\n" for s, d, x in zip(src.tolist(), dst.tolist(), w.tolist()))
    (tmp_path / "e.txt").write_text(lines)
    baseline = peak_rss_kib([OCGRAPH_BIN, "--version"])
    budget_kib = 4 << 10
    rss = peak_rss_kib(
        [
            OCGRAPH_BIN,
            "import",
            tmp_path / "e.txt",
            tmp_path / "g",
            "--weighted",
            "--memory",
            "4MiB",
            "--quiet",
        ]
    )
    assert rss - baseline < budget_kib + (10 << 10), (rss, baseline)
    with ocgraph.open(tmp_path / "g") as g:
        got = g.to_pandas()
        assert len(got) == m
        expect = sorted(zip(src.tolist(), dst.tolist(), w.tolist()))
        assert sorted(zip(got["src"].tolist(), got["dst"].tolist(), got["weight"].tolist())) == expect
