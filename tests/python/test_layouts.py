"""The grid layout from Python and the CLI: PageRank, WCC and SpMV on the grid against networkx
and scipy, for directed, undirected and weighted graphs, compressed and not, with vertex counts
that are not a multiple of the block; layout errors; the CLI's layout choice."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import ocgraph
from conftest import open_with, random_edges

ROOT = Path(__file__).resolve().parents[2]
OCGRAPH_BIN = Path(os.environ.get("OCGRAPH_BIN", ROOT / "target" / "release" / "ocgraph"))

CASES = [
    (directed, weighted, compress)
    for directed in (False, True)
    for weighted in (False, True)
    for compress in ("none", "lz4", "runs")
]


@pytest.mark.parametrize(("directed", "weighted", "compress"), CASES)
@pytest.mark.parametrize("backend", ["mmap", "pool"])
def test_grid_kernels_match_networkx(tmp_path, directed, weighted, compress, backend):
    rng = np.random.default_rng(7 + 2 * directed + weighted)
    n = 700
    src, dst, w = random_edges(rng, n, 3000, weighted)
    path = tmp_path / "g"
    g = ocgraph.from_edges(
        src, dst, path, num_vertices=n, weights=w, directed=directed, dedup=True, drop_self_loops=True
    )
    h = g.to_networkx()
    g.close()
    # 5 cells per side of 256 vertices: 3 blocks, the last one short. With 4 KiB, a codec encodes
    # one cell at a time.
    memory = "4KiB" if backend == "pool" else "256MiB"
    with pytest.raises(ocgraph.InvalidArgumentError, match="at least 4KiB"):
        ocgraph.build_grid(path, memory="1KiB")  # as every builder's budget
    shape = ocgraph.build_grid(path, cells_per_side=5, compress=compress, memory=memory)
    assert (shape["cells_per_side"], shape["block_vertices"]) == (3, 256)
    assert shape["arcs"] == (h.number_of_edges() if directed else 2 * h.number_of_edges())
    g = open_with(path, backend)
    want = nx.pagerank(h, tol=1e-10, max_iter=500, weight="weight" if weighted else None)
    got = g.pagerank(tol=1e-10, max_iter=500, layout="grid")
    np.testing.assert_allclose(got, [want[v] for v in range(n)], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(got, g.pagerank(tol=1e-10, max_iter=500, layout="csr"), rtol=1e-12)
    labels = g.wcc(layout="grid")
    comps = nx.weakly_connected_components(h) if directed else nx.connected_components(h)
    for c in comps:
        assert set(labels[list(c)]) == {min(c)}
    x = rng.random(n)
    a = nx.to_scipy_sparse_array(h, nodelist=range(n), weight="weight" if weighted else None, format="csr")
    want_y = a.T @ x if directed else a @ x
    np.testing.assert_allclose(g.spmv(x, layout="grid"), want_y, rtol=1e-12)
    np.testing.assert_allclose(g.spmv(x, layout="csr"), want_y, rtol=1e-12)
    g.close()
    assert ocgraph.remove_grid(path) is True and ocgraph.remove_grid(path) is False
    with open_with(path, backend) as g, pytest.raises(ocgraph.InvalidArgumentError, match="layout grid"):
        g.wcc(layout="grid")


def test_layout_errors(tmp_path):
    g = ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=3)
    with pytest.raises(ocgraph.InvalidArgumentError, match="layout grid"):
        g.pagerank(layout="grid")
    with pytest.raises(ocgraph.InvalidArgumentError, match="unknown layout"):
        g.wcc(layout="cells")
    # auto falls back to the adjacency lists.
    np.testing.assert_array_equal(g.wcc(), [0, 0, 0])
    g.close()
    with pytest.raises(ocgraph.InvalidArgumentError, match="compression"):
        ocgraph.build_grid(tmp_path / "g", compress="zip")
    for bad in (None, 1):
        with pytest.raises(TypeError, match="compress must be"):
            ocgraph.build_grid(tmp_path / "g", compress=bad)
    with ocgraph.open(tmp_path / "g") as g, pytest.raises(ocgraph.InvalidArgumentError, match="layout grid"):
        g.pagerank(layout="grid")  # nothing was built
    # A shape whose P x P cells could not be counted is refused before any allocation.
    for bad in (0, -1, 100_000, 2**32):
        with pytest.raises(
            ocgraph.InvalidArgumentError, match=f"cells_per_side must be an integer from 1 to 1024, got {bad}"
        ):
            ocgraph.build_grid(tmp_path / "g", cells_per_side=bad)
    h = ocgraph.open(tmp_path / "g", writable=True)
    h.add_edges([2], [0])
    with pytest.raises(ocgraph.InvalidArgumentError, match="the graph has no grid"):
        h.pagerank(layout="grid")
    h.close()


def test_a_writable_graph_reads_its_grid_while_it_has_no_updates(tmp_path):
    rng = np.random.default_rng(5)
    n = 300
    src, dst, _ = random_edges(rng, n, 900, False)
    path = tmp_path / "g"
    ocgraph.from_edges(src, dst, path, num_vertices=n, directed=True, dedup=True).close()
    ocgraph.build_grid(path, cells_per_side=3)
    with ocgraph.open(path, writable=True, durability="none") as g:

        def check() -> None:
            h = g.to_networkx()
            want = nx.pagerank(h, tol=1e-10, max_iter=500)
            got = g.pagerank(tol=1e-10, max_iter=500, layout="grid")
            np.testing.assert_allclose(got, [want[v] for v in range(n)], rtol=1e-6, atol=1e-12)
            labels = g.wcc(layout="grid")
            for c in nx.weakly_connected_components(h):
                assert set(labels[list(c)]) == {min(c)}

        check()  # opened writable, no update yet
        g.add_edges([0, 5], [n - 1, 7])
        with pytest.raises(ocgraph.InvalidArgumentError, match="updates since its grid was built"):
            g.wcc(layout="grid")
        np.testing.assert_array_equal(g.wcc(layout="auto"), g.wcc(layout="csr"))
        g.compact()  # rebuilds the grid of the new base
        check()


def test_a_writable_multigraph_says_why_its_grid_does_not_serve(tmp_path):
    """A writable handle reads a base's repeated edges once each, so the grid (which holds them
    all) does not serve it: the refusal says so (it claimed updates that did not exist), and
    `compact` stores the graph without the repeats, with a grid that serves it."""
    path = str(tmp_path / "mg")
    ocgraph.from_edges([0, 0, 1], [1, 1, 2], path).close()
    ocgraph.build_grid(path)
    with ocgraph.open(path, writable=True) as g:
        with pytest.raises(ocgraph.InvalidArgumentError, match="holds repeated edges") as e:
            g.pagerank(layout="grid")
        assert "updates since" not in str(e.value)
        g.compact()
        want = nx.pagerank(nx.DiGraph([(0, 1), (1, 2)]), tol=1e-12)
        np.testing.assert_allclose(
            g.pagerank(layout="grid", tol=1e-12), [want[v] for v in range(3)], rtol=1e-6
        )


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
def test_cli_builds_the_grid_and_auto_chooses_it(tmp_path):
    path = tmp_path / "k"
    run = lambda *a: subprocess.run([str(OCGRAPH_BIN), *a], capture_output=True, text=True, check=True)  # noqa: E731
    run("generate", "kronecker", "--scale", "10", "--quiet", str(path))
    pr = ("run", "pagerank", str(path), "--tol", "0", "--max-iter", "10", "--stats")
    csr = run(*pr, "--out", str(tmp_path / "a.npy"))
    assert "layout: csr (auto: the graph has no grid" in csr.stderr
    built = run("layout", "grid", str(path), "--compress", "lz4", "--quiet")
    assert "1 x 1 cells" in built.stderr
    run("check", str(path))
    grid = run(*pr, "--verify", "--out", str(tmp_path / "b.npy"))
    assert "layout: grid (auto" in grid.stderr and "verification: PASS" in grid.stdout
    np.testing.assert_allclose(np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy"), rtol=1e-12)
    bfs = run("run", "bfs", str(path), "--stats")
    assert "layout: csr (auto: this kernel follows adjacency lists)" in bfs.stderr
    run("layout", "remove-grid", str(path))
    with pytest.raises(subprocess.CalledProcessError) as e:
        run("run", "wcc", str(path), "--layout", "grid")
    assert "ocgraph layout grid" in e.value.stderr


@pytest.mark.parametrize(("directed", "weighted"), [(d, w) for d in (False, True) for w in (False, True)])
def test_compressed_adjacency_matches_networkx(tmp_path, directed, weighted):
    rng = np.random.default_rng(11 + 2 * directed + weighted)
    n = 3000
    src, dst, w = random_edges(rng, n, 20000, weighted)
    path = tmp_path / "g"
    g = ocgraph.from_edges(src, dst, path, num_vertices=n, weights=w, directed=directed, dedup=True)
    h = g.to_networkx()
    g.close()
    sizes = ocgraph.compress(path, block_size="4KiB")
    assert sizes["block_size"] == 4096
    assert 0 < sizes["stored_bytes"] < sizes["plain_bytes"]
    # A pool of 64 KiB: a small part of the graph, read from the compressed copies.
    g = open_with(path, "pool")
    depth = g.bfs(0)
    want = nx.single_source_shortest_path_length(h, 0)
    np.testing.assert_array_equal(depth, [want.get(v, -1) for v in range(n)])
    dist = g.sssp(0)
    want = nx.single_source_dijkstra_path_length(h, 0, weight="weight" if weighted else None)
    np.testing.assert_allclose(dist, [want.get(v, np.inf) for v in range(n)], rtol=1e-9)
    want = nx.pagerank(h, tol=1e-10, max_iter=500, weight="weight" if weighted else None)
    got = g.pagerank(tol=1e-10, max_iter=500, layout="csr")
    np.testing.assert_allclose(got, [want[v] for v in range(n)], rtol=1e-6, atol=1e-12)
    labels = g.wcc(layout="csr")
    for c in nx.weakly_connected_components(h) if directed else nx.connected_components(h):
        assert set(labels[list(c)]) == {min(c)}
    g.close()
    assert ocgraph.remove_compressed(path)
    assert not ocgraph.remove_compressed(path)
    assert not (path / "out.neighbors.lz4").exists()


def test_compress_errors(tmp_path):
    g = ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=3)
    g.close()
    with pytest.raises(ocgraph.InvalidArgumentError, match="multiple of 4096"):
        ocgraph.compress(tmp_path / "g", block_size=5000)
    ocgraph.pack(tmp_path / "g", tmp_path / "p").close()
    with pytest.raises(ocgraph.InvalidArgumentError, match="packed"):
        ocgraph.compress(tmp_path / "p")


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
def test_cli_compresses_checks_and_refuses_a_corrupted_copy(tmp_path):
    path = tmp_path / "k"

    def run(*a, check=True):
        return subprocess.run([str(OCGRAPH_BIN), *a], capture_output=True, text=True, check=check)

    run("generate", "kronecker", "--scale", "10", "--quiet", str(path))
    plain = run("run", "bfs", str(path), "--source", "0", "--backend", "pool", "--memory", "64KiB", "--stats")
    run("layout", "compress", str(path), "--block-size", "8KiB", "--quiet")
    assert "compressed LZ4 blocks of 8.0 KiB" in run("info", str(path)).stdout
    run("check", str(path))
    comp = run("run", "bfs", str(path), "--source", "0", "--backend", "pool", "--memory", "64KiB", "--stats")

    # The same BFS summary (reached vertices, depth; not the timing) from the compressed copies.
    def summary(out):
        return [ln.split(";")[0] for ln in out.stdout.splitlines() if ln.startswith("bfs:")]

    assert summary(plain) and summary(plain) == summary(comp)
    # Fewer bytes read from the copies.
    stats = [ln for r in (plain, comp) for ln in r.stderr.splitlines() if ln.startswith("{")]
    read = [json.loads(ln)["bytes_read"] for ln in stats]
    assert len(read) == 2 and read[1] < read[0]
    copy = path / "out.neighbors.lz4"
    data = bytearray(copy.read_bytes())
    data[-5000] ^= 0xFF
    copy.write_bytes(bytes(data))
    bad = run("check", str(path), check=False)
    assert bad.returncode == 1 and "out.neighbors.lz4" in bad.stderr
    run("layout", "remove-compress", str(path))
    run("check", str(path))


@pytest.mark.parametrize(("directed", "weighted"), [(d, w) for d in (False, True) for w in (False, True)])
def test_packed_copies_match_networkx(tmp_path, directed, weighted):
    rng = np.random.default_rng(31 + 2 * directed + weighted)
    n = 600
    src, dst, w = random_edges(rng, n, 2500, weighted)
    path = tmp_path / "g"
    g = ocgraph.from_edges(
        src, dst, path, num_vertices=n, weights=w, directed=directed, dedup=True, drop_self_loops=True
    )
    h = g.to_networkx()
    g.close()
    with pytest.raises(ocgraph.InvalidArgumentError, match="no packed copy"):
        ocgraph.open(path).bfs(0, layout="packed")
    r = ocgraph.pack_lists(path)
    assert r["arcs"] == (2 if directed else 1) * g_arcs(h, directed)
    sides = 2 if directed else 1
    assert 0 < r["packed_bytes"] and r["plain_bytes"] == 4 * r["arcs"] + sides * 8 * (h.number_of_nodes() + 1)
    for backend in ("mmap", "pool"):
        g = open_with(path, backend)
        want_bfs = nx.single_source_shortest_path_length(h, 0)
        want_sssp = nx.single_source_dijkstra_path_length(h, 0, weight="weight" if weighted else None)
        for layout in ("csr", "packed", "auto"):
            depth = g.bfs(0, layout=layout)
            assert [depth[v] for v in range(n)] == [want_bfs.get(v, -1) for v in range(n)]
            dist = g.sssp(0, layout=layout)
            np.testing.assert_allclose(dist, [want_sssp.get(v, np.inf) for v in range(n)], rtol=1e-6)
            comps = nx.weakly_connected_components(h) if directed else nx.connected_components(h)
            want_wcc = np.empty(n, dtype=np.uint32)
            for c in comps:
                want_wcc[list(c)] = min(c)
            np.testing.assert_array_equal(g.wcc(layout=layout), want_wcc)
        g.close()
    assert ocgraph.remove_packed_lists(path) is True
    assert ocgraph.remove_packed_lists(path) is False
    with pytest.raises(ocgraph.InvalidArgumentError, match="no packed copy"):
        ocgraph.open(path).bfs(0, layout="packed")


def g_arcs(h, directed: bool) -> int:
    """Arcs of the out-lists of networkx graph ``h`` as ocgraph stores it."""
    return h.number_of_edges() if directed else 2 * h.number_of_edges()


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
def test_cli_packs_lists_and_auto_reads_them_under_a_small_pool(tmp_path):
    path = tmp_path / "k"
    run = lambda *a: subprocess.run([str(OCGRAPH_BIN), *a], capture_output=True, text=True, check=True)  # noqa: E731
    run("generate", "kronecker", "--scale", "12", "--quiet", str(path))
    run("layout", "pack", str(path), "--quiet")
    run("check", str(path))
    info = json.loads(run("info", str(path), "--json").stdout)
    assert info["packed_copy"] is True and info["packed"] is False
    bfs = ("run", "bfs", str(path), "--source", "0", "--stats", "--backend", "pool")
    small = run(*bfs, "--memory", "64KiB", "--out", str(tmp_path / "a.npy"))
    assert "layout: packed (auto" in small.stderr
    large = run(*bfs, "--memory", "64MiB", "--out", str(tmp_path / "b.npy"))
    assert "layout: csr (auto" in large.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy"))
    f = path / "out.packed"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0x5A
    f.write_bytes(bytes(data))
    with pytest.raises(subprocess.CalledProcessError) as e:
        run("check", str(path))
    assert "out.packed" in e.value.stderr
    # A kernel reading lists of the copy that do not decode fails naming it.
    f.write_bytes(b"\xff" * len(data))
    offsets = np.fromfile(path / "out.offsets", dtype=np.uint64)[: info["vertices"] + 1]
    source = str(int(np.argmax(np.diff(offsets))))
    for algo in ("bfs", "k-hop"):
        with pytest.raises(subprocess.CalledProcessError) as e:
            run("run", algo, str(path), "--source", source, "--layout", "packed")
        assert "out.packed" in e.value.stderr.splitlines()[-1]


@pytest.mark.parametrize("directed", [False, True])
def test_hub_index_matches_networkx(tmp_path, directed):
    rng = np.random.default_rng(53 + directed)
    n = 700
    # Skewed sources, so that some vertices are hubs and most lists hold one.
    src = (rng.random(3000) ** 3 * n).astype(np.int64)
    dst = rng.integers(0, n, 3000)
    path = tmp_path / "g"
    g = ocgraph.from_edges(
        src, dst, path, num_vertices=n, directed=directed, dedup=True, drop_self_loops=True
    )
    h = g.to_networkx()
    g.close()
    with pytest.raises(ocgraph.InvalidArgumentError, match="no hub index"):
        ocgraph.open(path).bfs(0, layout="hubs")
    r = ocgraph.index_hubs(path)
    assert r["bytes"] == 12 * n
    out_degree = dict(h.out_degree()) if directed else dict(h.degree())
    preds = h.predecessors if directed else h.neighbors
    assert r["more"] == sum(1 for v in range(n) if len(list(preds(v))) > 3)
    comps = nx.weakly_connected_components(h) if directed else nx.connected_components(h)
    want_wcc = np.empty(n, dtype=np.uint32)
    for c in comps:
        want_wcc[list(c)] = min(c)
    hub = max(range(n), key=lambda v: out_degree[v])
    for backend in ("mmap", "pool"):
        g = open_with(path, backend)
        for source in (hub, 0, n - 1):
            want = nx.single_source_shortest_path_length(h, source)
            for layout in ("hubs", "auto", "csr"):
                depth, parent = g.bfs(source, parents=True, layout=layout)
                assert [depth[v] for v in range(n)] == [want.get(v, -1) for v in range(n)]
                # Every parent is an in-neighbour one level up.
                for v in range(n):
                    if depth[v] > 0:
                        assert depth[parent[v]] == depth[v] - 1 and h.has_edge(parent[v], v)
        for layout in ("hubs", "auto"):
            np.testing.assert_array_equal(g.wcc(layout=layout), want_wcc)
        with pytest.raises(ocgraph.InvalidArgumentError, match="hub index"):
            g.sssp(0, layout="hubs")
        with pytest.raises(ocgraph.InvalidArgumentError, match="hub index"):
            g.pagerank(layout="hubs")
        g.close()
    assert ocgraph.remove_hubs(path) is True
    assert ocgraph.remove_hubs(path) is False
    with pytest.raises(ocgraph.InvalidArgumentError, match="no hub index"):
        ocgraph.open(path).wcc(layout="hubs")


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
def test_cli_indexes_hubs_auto_reads_them_and_a_corrupted_index_is_named(tmp_path):
    path = tmp_path / "k"
    run = lambda *a: subprocess.run([str(OCGRAPH_BIN), *a], capture_output=True, text=True, check=True)  # noqa: E731
    run("generate", "kronecker", "--scale", "12", "--quiet", str(path))
    base = ("run", "bfs", str(path), "--source", "0", "--stats", "--backend", "pool", "--memory", "64KiB")
    run(*base, "--out", str(tmp_path / "a.npy"))
    run("layout", "hubs", str(path), "--quiet")
    run("check", str(path))
    assert json.loads(run("info", str(path), "--json").stdout)["hub_index"] is True
    hubs = run(*base, "--out", str(tmp_path / "b.npy"))
    assert "layout: hubs + csr (auto: the graph has a hub index" in hubs.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy"))
    for layout in ("csr", "hubs"):
        run("run", "wcc", str(path), "--layout", layout, "--out", str(tmp_path / f"{layout}.npy"))
    np.testing.assert_array_equal(np.load(tmp_path / "csr.npy"), np.load(tmp_path / "hubs.npy"))
    with pytest.raises(subprocess.CalledProcessError) as e:
        run("run", "pagerank", str(path), "--layout", "hubs")
    assert "only bfs and wcc" in e.value.stderr
    f = path / "hubs.u32"
    data = bytearray(f.read_bytes())
    data[12 * 7 : 12 * 7 + 4] = (1 << 30).to_bytes(4, "little")
    f.write_bytes(bytes(data))
    for cmd in (("check", str(path)), ("run", "wcc", str(path))):
        with pytest.raises(subprocess.CalledProcessError) as e:
            run(*cmd)
        assert "hubs.u32" in e.value.stderr.splitlines()[-1]
    run("layout", "remove-hubs", str(path))
    run("check", str(path))


@pytest.mark.skipif(not OCGRAPH_BIN.exists(), reason="the CLI is not built (make cli)")
@pytest.mark.parametrize("directed", [False, True])
def test_check_refuses_every_copy_that_answers_unlike_the_lists(tmp_path, directed):
    """A copy of the lists (packed, grid, hub index) written wrong carries a checksum that
    matches its wrong bytes (simulated: a flipped bit, the manifest's checksum rewritten).
    Whenever `ocgraph check` passes such a graph, every kernel reading the copy answers as it
    does from the plain lists; the content checks (a copy that decodes but differs) refuse some
    of the flips that the structure checks let through, for every copy."""
    from conftest import restamp

    rng = np.random.default_rng(71 + directed)
    n = 700
    src = (rng.random(3000) ** 3 * n).astype(np.int64)  # skewed: hubs, and vertices with more
    dst = rng.integers(0, n, 3000)
    w = rng.integers(1, 9, 3000).astype(np.float32)
    path = tmp_path / "g"
    ocgraph.from_edges(src, dst, path, num_vertices=n, weights=w, directed=directed, dedup=True).close()
    ocgraph.pack_lists(path)
    ocgraph.build_grid(path, cells_per_side=5, compress="runs")
    ocgraph.index_hubs(path)
    x = rng.random(n)

    def answers(g, layout: str) -> list:
        if layout == "grid":
            return [g.pagerank(tol=1e-10, layout="grid"), g.spmv(x, layout="grid"), g.wcc(layout="grid")]
        depth, parent = g.bfs(0, parents=True, layout=layout)
        # Parents may differ between layouts; each must be an in-neighbour one level up.
        reached = np.flatnonzero(depth > 0)
        is_tree = all(depth[parent[v]] == depth[v] - 1 and h.has_edge(parent[v], v) for v in reached)
        return [depth, g.wcc(layout=layout), is_tree]

    with ocgraph.open(path) as g:
        h = g.to_networkx()
        want = {layout: answers(g, "csr") for layout in ("packed", "grid", "hubs")}
        want["grid"] = [g.pagerank(tol=1e-10), g.spmv(x), g.wcc()]
    files = {"out.packed": "packed", "grid.edges": "grid", "grid.weights": "grid", "hubs.u32": "hubs"}
    if directed:
        files["in.packed"] = "packed"
    for name, layout in files.items():
        size = (path / name).stat().st_size
        refused_as_written_wrong = 0
        for at in range(7, size, max(1, size // 30)):
            damaged = tmp_path / "d"
            shutil.rmtree(damaged, ignore_errors=True)
            shutil.copytree(path, damaged)
            data = bytearray((damaged / name).read_bytes())
            data[at] ^= 0x01
            (damaged / name).write_bytes(bytes(data))
            restamp(damaged, name)
            check = subprocess.run([str(OCGRAPH_BIN), "check", str(damaged)], capture_output=True, text=True)
            if check.returncode != 0:
                assert name in check.stderr, check.stderr
                if "written wrong" in check.stderr:
                    assert "ocgraph layout remove-" in check.stderr, check.stderr  # the way out
                    refused_as_written_wrong += 1
                continue
            with ocgraph.open(damaged) as g:
                got = answers(g, layout)
            for a, b in zip(got, want[layout]):
                np.testing.assert_allclose(a, b, rtol=1e-9, err_msg=f"{name} byte {at} passes check")
        assert refused_as_written_wrong > 0, name
