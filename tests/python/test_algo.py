"""Every algorithm against networkx on random graphs (directed and undirected, both backends,
plain and packed lists, and copies renumbered by degree)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

import ocgraph
from conftest import open_with, random_edges


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """Random simple graphs (dedup, no self-loops): (path, networkx graph) for each case."""
    out = []
    rng = np.random.default_rng(2024)
    base = tmp_path_factory.mktemp("algo")
    for i in range(8):
        directed = i % 2 == 0
        weighted = i % 4 < 2
        n = int(rng.integers(5, 80))
        src, dst, w = random_edges(rng, n, int(rng.integers(n, 4 * n)), weighted)
        path = base / f"g{i}"
        g = ocgraph.from_edges(
            src, dst, path, num_vertices=n, weights=w, directed=directed, dedup=True, drop_self_loops=True
        )
        h = g.to_networkx()
        g.close()
        out.append((path, h))
        ocgraph.pack(path, base / f"p{i}").close()
        out.append((base / f"p{i}", h))
        # The copy renumbered by degree, against networkx renumbered through its original ids.
        r = ocgraph.reorder(path, base / f"r{i}")
        new_of = {r.original_id(p): p for p in range(r.num_vertices)}
        r.close()
        out.append((base / f"r{i}", nx.relabel_nodes(h, new_of)))
    return out


def each(graphs, backend):
    for path, h in graphs:
        yield open_with(path, backend), h


def test_bfs(graphs, backend):
    for g, h in each(graphs, backend):
        for s in range(0, g.num_vertices, 7):
            depth, parent = g.bfs(s, parents=True)
            ref = nx.single_source_shortest_path_length(h, s)
            expect = np.array([ref.get(v, -1) for v in range(g.num_vertices)])
            np.testing.assert_array_equal(depth, expect)
            assert depth.dtype == np.int64
            assert parent[s] == s
            for v in range(g.num_vertices):
                if v != s and depth[v] > 0:
                    assert h.has_edge(parent[v], v) and depth[parent[v]] == depth[v] - 1
                elif depth[v] < 0:
                    assert parent[v] == -1


def test_sssp(graphs, backend):
    for g, h in each(graphs, backend):
        for s in range(0, g.num_vertices, 11):
            dist = g.sssp(s, threads=2)
            ref = nx.single_source_dijkstra_path_length(h, s, weight="weight")
            expect = np.array([ref.get(v, math.inf) for v in range(g.num_vertices)])
            np.testing.assert_allclose(dist, expect, rtol=1e-9)


def test_wcc(graphs, backend):
    for g, h in each(graphs, backend):
        labels = g.wcc()
        comps = nx.weakly_connected_components(h) if h.is_directed() else nx.connected_components(h)
        for comp in comps:
            assert {int(labels[v]) for v in comp} == {min(comp)}


@pytest.mark.parametrize("threads", [None, 1])
def test_pagerank(graphs, backend, threads):
    for g, h in each(graphs, backend):
        pr = g.pagerank(threads=threads)
        ref = nx.pagerank(h, alpha=0.85, max_iter=100, tol=1e-6)
        expect = np.array([ref[v] for v in range(g.num_vertices)])
        assert abs(pr.sum() - 1) < 1e-9
        assert np.abs(pr - expect).sum() < 1e-6
        # Gauss-Seidel sweeps: the same PageRank (compared at a tighter tolerance on both sides).
        tight = nx.pagerank(h, alpha=0.85, max_iter=1000, tol=1e-12)
        tight = np.array([tight[v] for v in range(g.num_vertices)])
        gs = g.pagerank(threads=threads, method="gauss-seidel", tol=1e-12, max_iter=1000)
        assert abs(gs.sum() - 1) < 1e-9
        assert np.abs(gs - tight).sum() < 1e-6


def test_pagerank_personalization(graphs):
    path, h = graphs[0]
    g = ocgraph.open(path)
    pers = {0: 1.0, 3: 2.0}
    ref = nx.pagerank(h, alpha=0.7, personalization=pers, tol=1e-8, max_iter=200)
    expect = np.array([ref[v] for v in range(g.num_vertices)])
    got = g.pagerank(damping=0.7, personalization=pers, tol=1e-8, max_iter=200)
    assert np.abs(got - expect).sum() < 1e-6
    arr = np.zeros(g.num_vertices)
    arr[0], arr[3] = 1.0, 2.0
    np.testing.assert_allclose(g.pagerank(damping=0.7, personalization=arr, tol=1e-8, max_iter=200), got)
    with pytest.raises(ocgraph.InvalidArgumentError):
        g.pagerank(personalization=np.ones(3))
    # A key outside the graph is a vertex error, as for every other vertex argument.
    for v in (g.num_vertices, -1):
        with pytest.raises(ocgraph.VertexError, match=f"personalization vertex {v} out of range"):
            g.pagerank(personalization={v: 1.0})
    # Finite values whose sum overflows float64: the same direction, so the same scores.
    np.testing.assert_allclose(
        g.pagerank(damping=0.7, personalization={0: 1e308, 3: 1.5e308}, tol=1e-8, max_iter=200),
        g.pagerank(damping=0.7, personalization={0: 1.0, 3: 1.5}, tol=1e-8, max_iter=200),
    )
    for bad in (np.inf, np.nan, -1.0):
        with pytest.raises(ocgraph.InvalidArgumentError, match=r"personalization\[3\]"):
            g.pagerank(personalization={0: 1e308, 3: bad})
    with pytest.raises(ocgraph.InvalidArgumentError, match="gauss-seidel"):
        g.pagerank(method="newton")
    gs = g.pagerank(damping=0.7, personalization=pers, tol=1e-12, max_iter=1000, method="gauss-seidel")
    tight = nx.pagerank(h, alpha=0.7, personalization=pers, tol=1e-12, max_iter=1000)
    assert np.abs(gs - np.array([tight[v] for v in range(g.num_vertices)])).sum() < 1e-6


def test_triangles_diameter_paths(graphs, backend):
    for g, h in each(graphs, backend):
        u = h.to_undirected() if h.is_directed() else h
        assert g.triangle_count() == sum(nx.triangles(u).values()) // 3
        # Diameter estimate: a true eccentricity, so at most the largest finite distance.
        lengths = dict(nx.all_pairs_shortest_path_length(h))
        true_max = max(d for row in lengths.values() for d in row.values())
        est = g.diameter_estimate()
        assert 0 <= est <= true_max
        for s in range(0, g.num_vertices, 9):
            for t in range(0, g.num_vertices, 5):
                p = g.shortest_path(s, t)
                if t in lengths[s]:
                    assert p is not None and p[0] == s and p[-1] == t
                    assert len(p) - 1 == lengths[s][t]
                    assert all(h.has_edge(a, b) for a, b in zip(p, p[1:]))
                else:
                    assert p is None


def test_k_hop_and_friends_of_friends(graphs, backend):
    for g, h in each(graphs, backend):
        for v in range(0, g.num_vertices, 6):
            lengths = nx.single_source_shortest_path_length(h, v, cutoff=3)
            for k in (0, 1, 2, 3):
                expect = sorted(x for x, d in lengths.items() if 0 < d <= k)
                assert g.k_hop(v, k).tolist() == expect
            fof = sorted(x for x, d in lengths.items() if d == 2)
            assert g.friends_of_friends(v).tolist() == fof


def test_algorithms_check_vertices(graphs):
    g = ocgraph.open(graphs[0][0])
    n = g.num_vertices
    for call in (
        lambda: g.bfs(n),
        lambda: g.sssp(-1),
        lambda: g.k_hop(n, 1),
        lambda: g.shortest_path(0, n),
        lambda: g.friends_of_friends(n + 5),
    ):
        with pytest.raises(ocgraph.VertexError):
            call()
    with pytest.raises(ocgraph.InvalidArgumentError):
        g.wcc(threads=-1)
    with pytest.raises(ocgraph.InvalidArgumentError):
        g.wcc(threads=1025)
    # 0 is one thread per core, as the command line's `--threads 0`.
    assert np.array_equal(g.wcc(threads=0), g.wcc(threads=1))


@pytest.mark.parametrize(
    "policy",
    ["clock", "lru", "fifo", "lifo", "random", "s3fifo", "arc", "gac", "gac:decay=0.99:guidegap=0.5"],
)
def test_every_pool_policy_gives_networkx_results(graphs, policy):
    # A pool of 16 frames (smaller than most of these graphs) under each replacement policy.
    for path, h in graphs[::3]:
        g = ocgraph.open(path, backend="pool", memory="64KiB", page_size="4KiB", policy=policy)
        depth = g.bfs(0)
        assert {v: int(d) for v, d in enumerate(depth) if d >= 0} == nx.single_source_shortest_path_length(
            h, 0
        )
        labels = g.wcc()
        comps = nx.weakly_connected_components(h) if h.is_directed() else nx.connected_components(h)
        for comp in comps:
            assert {int(labels[v]) for v in comp} == {min(comp)}
        g.close()


def test_pagerank_takes_networkx_weight_forms(tmp_path):
    # networkx's weight="weight" (the attribute) and weight=None (unweighted) mean True and False.
    src, dst, w = [0, 0, 1, 2, 3], [1, 2, 2, 0, 0], [5.0, 1.0, 2.0, 1.0, 3.0]
    g = ocgraph.from_edges(src, dst, tmp_path / "g", weights=w)
    h = nx.DiGraph()
    h.add_weighted_edges_from(zip(src, dst, w))
    for given, attr in (("weight", "weight"), (True, "weight"), (None, None), (False, None)):
        want = nx.pagerank(h, tol=1e-12, max_iter=1000, weight=attr)
        got = g.pagerank(tol=1e-12, max_iter=1000, weight=given)
        np.testing.assert_allclose(got, [want[v] for v in range(4)], rtol=1e-6, err_msg=repr(given))
    with pytest.raises(ocgraph.InvalidArgumentError, match="weight must be True, False, None or 'weight'"):
        g.pagerank(weight="w")
    with pytest.raises(TypeError, match="weight must be True or False"):
        g.pagerank(weight=2)


@pytest.mark.parametrize("weights", [1e-45, 3e38])
def test_pagerank_with_extreme_weights_on_a_graph_of_float32_contributions(tmp_path, weights):
    """From 65,536 vertices contributions are stored as float32; out-weights this extreme would
    overflow or lose precision there (inf, NaN or 7% off), so such graphs keep float64."""
    n = 1 << 16
    src, dst = [0, 0, 0, 0, 1, 2, 3, 4], [1, 2, 3, 4, 0, 0, 0, 0]
    w = np.array([weights] * 4 + [1.0] * 4, dtype=np.float32)
    g = ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n, weights=w)
    h = nx.DiGraph()
    h.add_nodes_from(range(n))
    h.add_weighted_edges_from(zip(src, dst, w.astype(np.float64).tolist()))
    want = nx.pagerank(h, tol=1e-12, max_iter=1000)
    want = np.array([want[v] for v in range(n)])
    ocgraph.build_grid(tmp_path / "g")
    g = ocgraph.open(tmp_path / "g")
    for layout in ("csr", "grid"):
        for method in ("jacobi", "gauss-seidel"):
            got = g.pagerank(tol=1e-12, max_iter=1000, method=method, layout=layout)
            # Gauss-Seidel stops at another iterate than networkx's power iteration.
            rtol = 1e-6 if method == "jacobi" else 1e-3
            np.testing.assert_allclose(got[:5], want[:5], rtol=rtol, err_msg=f"{layout} {method}")
            assert np.abs(got - want).sum() < 1e-5, (layout, method)
    g.close()
    with ocgraph.open(tmp_path / "g", writable=True, durability="none") as g:
        m = g.maintain("pagerank", tol=1e-12)  # it looped forever on infinite scores
        g.add_edges([3], [1], weights=[1.0])
        h.add_edge(3, 1, weight=1.0)
        want = nx.pagerank(h, tol=1e-12, max_iter=1000)
        want = np.array([want[v] for v in range(n)])
        # Within the tolerance as tests/python/test_incremental.py checks it.
        assert np.abs(m.result() - want).sum() < 1e-5
        np.testing.assert_allclose(m.result()[:5], want[:5], rtol=1e-3)


def test_pagerank_with_float32_contributions_sums_to_one_and_keeps_networkx_iterates(tmp_path):
    """From 65,536 vertices the contributions are float32 (at tolerances of 1e-6 / n and
    above): each is rounded on its own, which drifted the scores' sum by about 1e-8; the
    scores are scaled to sum 1, and stay within 1e-7 (L1) of networkx's iterates."""
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    for n in (65535, 65536, 70001):
        src, dst = rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n)
        g = ocgraph.from_edges(src, dst, tmp_path / f"g{n}", num_vertices=n, dedup=True)
        a = g.to_scipy()
        out = np.asarray(a.sum(1)).ravel()
        m = sp.diags(np.divide(1, out, out=np.zeros(n), where=out > 0)) @ a
        x = np.full(n, 1 / n)
        for _ in range(3):  # networkx's power iteration (pagerank_scipy), three steps
            x = 0.85 * (x @ m + x[out == 0].sum() / n) + 0.15 / n
        g.close()
        ocgraph.build_grid(tmp_path / f"g{n}")
        g = ocgraph.open(tmp_path / f"g{n}")
        for layout in ("csr", "grid"):
            got = g.pagerank(tol=0, max_iter=3, layout=layout)
            assert abs(got.sum() - 1) < 1e-12, (n, layout, got.sum() - 1)
            assert np.abs(got - x).sum() < 1e-7, (n, layout)
            assert abs(g.pagerank(layout=layout).sum() - 1) < 1e-12, (n, layout)
        g.close()


def test_pagerank_warns_when_it_stops_at_max_iter(tmp_path):
    # networkx raises PowerIterationFailedConvergence there; the scores of the last iteration
    # are returned with a warning, and none when tol=0 asks for a fixed number of iterations.
    import warnings

    import networkx as nx

    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 200, 1000), rng.integers(0, 200, 1000)
    g = ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=200)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(g.to_networkx(), tol=1e-12, max_iter=2)
    with pytest.warns(RuntimeWarning, match="did not converge to tol=1e-12 in 2 iterations"):
        stopped = g.pagerank(tol=1e-12, max_iter=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(g.pagerank(tol=0, max_iter=2), stopped)
        g.pagerank(tol=1e-6, max_iter=100)
    g.close()


def test_a_series_is_read_by_its_index(tmp_path):
    """A pandas Series given as personalization or spmv's x is aligned by its index, the
    original ids (as to_series gives it), not read by position."""
    pd = pytest.importorskip("pandas")
    edges = tmp_path / "e.txt"
    edges.write_text("a b\nb c\nc a\nd a\nd e\nx x\n")
    g = ocgraph.import_edges(edges, tmp_path / "g")  # vertex order a b c d e x
    pers = pd.Series({"d": 1.0, "a": 0, "b": 0, "c": 0, "e": 0, "x": 0})
    by_vertex = np.array([pers[g.original_id(v)] for v in range(g.num_vertices)])
    got = g.pagerank(personalization=pers)
    np.testing.assert_allclose(got, g.pagerank(personalization=by_vertex))
    assert got[g.vertex("d")] > 0 and g.pagerank(personalization=pers, as_series=True)["d"] > 0
    x = g.to_series(np.arange(g.num_vertices, dtype=np.float64)).sort_values(ascending=False)
    np.testing.assert_allclose(g.spmv(x), g.spmv(np.arange(g.num_vertices, dtype=np.float64)))
    with pytest.raises(ocgraph.InvalidArgumentError, match="original id 'x'"):
        g.spmv(pd.Series({"a": 1.0, "b": 1, "c": 1, "d": 1, "e": 1, "y": 1}))
    with pytest.raises(ocgraph.InvalidArgumentError, match="one value per vertex"):
        g.spmv(pd.Series({"a": 1.0}))
    # Personalization leaves out vertices as a dict does (they get 0), by original id.
    part = g.pagerank(personalization=pd.Series({"d": 2.0, "b": 1.0}))
    np.testing.assert_allclose(
        part, g.pagerank(personalization=pd.Series([2, 1], index=["d", "b"], dtype="Int64"))
    )
    full = np.zeros(g.num_vertices)
    full[[g.vertex("d"), g.vertex("b")]] = [2.0, 1.0]
    np.testing.assert_allclose(part, g.pagerank(personalization=full))
    h = nx.DiGraph([tuple(line.split()) for line in edges.read_text().splitlines()])
    want = nx.pagerank(h, personalization={"d": 2.0, "b": 1.0}, tol=1e-10, max_iter=1000)
    np.testing.assert_allclose(part, [want[g.original_id(v)] for v in range(g.num_vertices)], atol=1e-5)
    with pytest.raises(ocgraph.InvalidArgumentError, match="real numbers"):
        g.pagerank(personalization=pd.Series([1 + 2j], index=["a"]))
    with pytest.raises(ocgraph.InvalidArgumentError, match="names 'y', not a vertex"):
        g.pagerank(personalization=pd.Series({"a": 1.0, "y": 1.0}))


def test_a_float_or_boolean_series_index_matches_ids_exactly(tmp_path):
    """pandas compares integer ids with a float index as float64: a label past 2**53 matched
    every id that rounds to it, and a label naming no vertex gave its value to another one."""
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    a, b = 2**53, 2**53 + 1
    src, dst = pa.array([a, b, 7], pa.uint64()), pa.array([b, 7, a], pa.uint64())
    g = ocgraph.from_arrow(pa.table({"src": src, "dst": dst}), tmp_path / "g", relabel="sorted")
    assert list(g.original_ids()) == [7, a, b]
    with pytest.raises(ocgraph.InvalidArgumentError, match="exact integer id"):
        g.pagerank(personalization=pd.Series([1.0], index=[float(a)]))
    with pytest.raises(ocgraph.InvalidArgumentError, match="exact integer id"):
        g.spmv(pd.Series([1.0, 10.0, 100.0], index=[7.0, float(a), float(a + 2)]))
    with pytest.raises(ocgraph.InvalidArgumentError, match="exact integer id"):
        g.pagerank(personalization=pd.Series([1.0, 1.0], index=pd.Index([7, float(a)], dtype=object)))
    with pytest.raises(ocgraph.InvalidArgumentError, match="indexed by booleans"):
        g.pagerank(personalization=pd.Series([1.0], index=[True]))
    # Whole floats up to 2**53 are the ids they hold (as a merge that brought a NaN in leaves
    # an integer column), in any order.
    h = ocgraph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], tmp_path / "h")
    x = pd.Series([3.0, 1.0, 2.0, 4.0], index=[2.0, 0.0, 1.0, 3.0])
    np.testing.assert_allclose(h.spmv(x), h.spmv(np.array([1.0, 2.0, 3.0, 4.0])))
    with pytest.raises(ocgraph.InvalidArgumentError, match="exact integer id"):
        h.spmv(pd.Series([1.0, 2.0, 3.0, 4.0], index=[0.5, 1.0, 2.0, 3.0]))
    # Ids in messages are shown as the numbers they are, not as numpy's reprs.
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"names 9, not a vertex"):
        h.pagerank(personalization=pd.Series([1.0], index=[9]))
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"of original id 3$"):
        h.spmv(pd.Series([1.0, 2.0, 3.0, 5.0], index=[0, 1, 2, 4]))


def test_argument_checks_name_the_argument(tmp_path):
    g = ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g")
    with pytest.raises(ocgraph.InvalidArgumentError, match="to numbers, got 1: '1'"):
        g.pagerank(personalization={1: "1"})  # a string was read as a number
    with pytest.raises(ocgraph.InvalidArgumentError, match="sweeps must be an integer from 1"):
        g.diameter_estimate(sweeps=0)
    with pytest.raises(
        ocgraph.InvalidArgumentError, match="cells_per_side must be an integer from 1 to 1024, got 0"
    ):
        ocgraph.build_grid(tmp_path / "g", cells_per_side=0)


def test_run_out_writes_the_arrays_python_returns(tmp_path):
    """`ocgraph run ALGO --out x.npy` writes the values and the dtype of the Python method."""
    import os
    import subprocess
    from pathlib import Path

    exe = Path(os.environ.get("OCGRAPH_BIN", Path(__file__).resolve().parents[2] / "target/release/ocgraph"))
    if not exe.exists():
        pytest.skip(f"{exe} is not built (make cli)")
    rng = np.random.default_rng(8)
    src, dst, w = random_edges(rng, 50, 200, weighted=True)
    g = ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=60, weights=w)
    cases = {
        "bfs": (["--source", "3"], g.bfs(3)),
        "sssp": (["--source", "3"], g.sssp(3)),
        "wcc": ([], g.wcc()),
        "pagerank": ([], g.pagerank()),
        "k-hop": (["--source", "3", "--k", "2"], g.k_hop(3, 2)),
    }
    for algo, (args, want) in cases.items():
        out = tmp_path / f"{algo}.npy"
        subprocess.run(
            [str(exe), "run", algo, str(g.path), *args, "--out", str(out)], check=True, capture_output=True
        )
        got = np.load(out)
        assert got.dtype == want.dtype, algo
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=algo)


def test_diameter_estimate_starts_where_the_edges_are(tmp_path):
    # Vertex 0 isolated; a path 1 - 2 - ... - 10 (diameter 9) and a pendant 11 on 5.
    src, dst = [*range(1, 10), 5], [*range(2, 11), 11]
    g = ocgraph.from_edges(src, dst, tmp_path / "g", directed=False, num_vertices=12)
    assert g.diameter_estimate() == 9
    assert g.diameter_estimate(start=0) == 0
