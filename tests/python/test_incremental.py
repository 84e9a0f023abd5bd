"""Maintained results (Graph.maintain): after every update call, BFS, SSSP, WCC and PageRank
equal networkx on the same mutated graph; changes() reports what changed; results are saved on
close and reused on reopen only when the graph has not changed since."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import ocgraph
from conftest import BACKENDS, POOL_OPTS, restamp

TOL = 1e-9


def open_writable(path, backend: str, **kw) -> ocgraph.Graph:
    opts = dict(POOL_OPTS) if backend == "pool" else {"backend": "mmap"}
    return ocgraph.open(path, writable=True, **opts, **kw)


def make_graph(tmp_path, rng, n: int, m: int, directed: bool, weighted: bool):
    """A random simple graph at ``tmp_path / "g"`` and the same graph in networkx."""
    h = nx.DiGraph() if directed else nx.Graph()
    h.add_nodes_from(range(n))
    for u, v in zip(rng.integers(0, n, m).tolist(), rng.integers(0, n, m).tolist()):
        h.add_edge(u, v, weight=float(rng.integers(1, 6)) if weighted else 1.0)
    src = np.array([u for u, _ in h.edges()], dtype=np.int64)
    dst = np.array([v for _, v in h.edges()], dtype=np.int64)
    w = np.array([d["weight"] for _, _, d in h.edges(data=True)], dtype=np.float32) if weighted else None
    path = tmp_path / "g"
    ocgraph.from_edges(src, dst, path, num_vertices=n, weights=w, directed=directed).close()
    return path, h


def check(ms: dict, h: nx.Graph, weighted: bool) -> None:
    n = h.number_of_nodes()
    hops = nx.single_source_shortest_path_length(h, 0)
    assert ms["bfs"].result().tolist() == [hops.get(v, -1) for v in range(n)]
    dist = nx.single_source_dijkstra_path_length(h, 0, weight="weight")
    got = ms["sssp"].result()
    assert got.tolist() == pytest.approx([dist.get(v, np.inf) for v in range(n)])
    labels = ms["wcc"].result()
    comps = nx.weakly_connected_components(h) if h.is_directed() else nx.connected_components(h)
    for comp in comps:
        assert {int(labels[v]) for v in comp} == {min(comp)}
    ref = nx.pagerank(h, tol=TOL, max_iter=1000, weight="weight" if weighted else None)
    pr = ms["pagerank"].result()
    assert pr.sum() == pytest.approx(1.0)
    assert np.abs(pr - np.array([ref[v] for v in range(n)])).sum() < 1e-5


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("directed", "weighted"), [(True, False), (False, True)])
@pytest.mark.parametrize("background", [False, True])
def test_maintained_results_match_networkx(tmp_path, backend, directed, weighted, background):
    rng = np.random.default_rng(7)
    n = 50
    path, h = make_graph(tmp_path, rng, n, 70, directed, weighted)
    g = open_writable(path, backend, durability="none")
    kw = {"background": background}
    ms = {
        "bfs": g.maintain("bfs", source=0, **kw),
        "sssp": g.maintain("sssp", source=0, **kw),
        "wcc": g.maintain("wcc", **kw),
        "pagerank": g.maintain("pagerank", damping=0.85, tol=TOL, **kw),
    }
    check(ms, h, weighted)
    for step in range(30):
        n = g.num_vertices
        op = step % 5
        if op in (0, 1):
            k = int(rng.integers(1, 6))
            src, dst = rng.integers(0, n, k), rng.integers(0, n, k)
            w = rng.integers(1, 6, k).astype(np.float32) if weighted else None
            g.add_edges(src, dst, w)
            ws = w.tolist() if weighted else [1.0] * k
            for u, v, x in zip(src.tolist(), dst.tolist(), ws):
                h.add_edge(u, v, weight=x)
        elif op == 2:
            edges = list(h.edges())
            pick = [edges[i] for i in rng.choice(len(edges), size=min(len(edges), 4), replace=False)]
            g.remove_edges([u for u, _ in pick], [v for _, v in pick])
            h.remove_edges_from(pick)
        elif op == 3 and weighted:
            edges = list(h.edges())
            pick = [edges[i] for i in rng.choice(len(edges), size=min(len(edges), 4), replace=False)]
            w = rng.integers(1, 6, len(pick)).astype(np.float32)
            g.set_edge_weights([u for u, _ in pick], [v for _, v in pick], w)
            for (u, v), x in zip(pick, w.tolist()):
                h[u][v]["weight"] = x
        elif step % 10 == 4:
            ids = g.add_vertices(2)
            h.add_nodes_from(ids.tolist())
            g.add_edges(ids, [0, 1])
            h.add_edge(int(ids[0]), 0, weight=1.0)
            h.add_edge(int(ids[1]), 1, weight=1.0)
        else:
            victim = int(rng.integers(1, n))
            g.remove_vertices([victim])
            h.remove_edges_from(list(h.edges(victim)))
            if directed:
                h.remove_edges_from(list(h.in_edges(victim)))
        if background and step % 3 != 2:
            # Batches queue up; the next check's reads wait for them.
            continue
        check(ms, h, weighted)
    g.close()


def test_changes_report_old_and_new_values(tmp_path):
    g = ocgraph.from_edges([0, 1, 3], [1, 2, 4], tmp_path / "g", num_vertices=5, directed=False)
    g.close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    bfs = g.maintain("bfs", source=0)
    wcc = g.maintain("wcc")
    vs, old, new = bfs.changes()
    assert len(vs) == 0
    g.add_edges([2], [3])
    vs, old, new = bfs.changes()
    assert (vs.tolist(), old.tolist(), new.tolist()) == ([3, 4], [-1, -1], [3, 4])
    vs, old, new = wcc.changes()
    assert (vs.tolist(), old.tolist(), new.tolist()) == ([3, 4], [3, 3], [0, 0])
    g.remove_edges([1], [2])
    assert wcc.result().tolist() == [0, 0, 2, 2, 2]
    with pytest.raises(ocgraph.InvalidArgumentError):
        g.maintain("bfs")
    with pytest.raises(ocgraph.InvalidArgumentError):
        g.maintain("closeness")
    # PageRank's parameters given to another kind are refused, not ignored.
    with pytest.raises(ocgraph.InvalidArgumentError, match='maintain\\("wcc"\\) takes no tol'):
        g.maintain("wcc", tol=1e-3)
    with pytest.raises(ocgraph.InvalidArgumentError, match="takes no damping"):
        g.maintain("bfs", source=0, damping=0.5)
    g.close()


def test_saved_results_are_reused_only_when_current(tmp_path):
    rng = np.random.default_rng(3)
    path, h = make_graph(tmp_path, rng, 60, 90, True, False)
    g = ocgraph.open(path, writable=True)
    wcc = g.maintain("wcc")
    pr = g.maintain("pagerank", tol=TOL)
    assert not wcc.loaded
    g.add_edges([0, 5], [5, 9])
    h.add_edges_from([(0, 5), (5, 9)])
    g.close()  # saves both

    g = ocgraph.open(path, writable=True)
    wcc, pr = g.maintain("wcc"), g.maintain("pagerank", tol=TOL)
    assert wcc.loaded and pr.loaded
    check_wcc = dict(enumerate(wcc.result().tolist()))
    for comp in nx.weakly_connected_components(h):
        assert {check_wcc[v] for v in comp} == {min(comp)}
    g.remove_edges([0], [5])
    h.remove_edge(0, 5)
    wcc.stop()
    pr.stop()
    # Still answered once stopped (a fact of the first computation).
    assert wcc.loaded and pr.loaded
    g.close()  # the saved results are now one batch behind

    g = ocgraph.open(path, writable=True)
    wcc = g.maintain("wcc")
    assert not wcc.loaded
    labels = wcc.result()
    for comp in nx.weakly_connected_components(h):
        assert {int(labels[v]) for v in comp} == {min(comp)}
    g.close()


def test_background_wait_returns_once_the_batch_is_in(tmp_path):
    """A path grown one edge an update call: after ``wait(seq)`` the background WCC has every
    batch up to ``seq``; ``result()`` waits for all of them."""
    path = tmp_path / "g"
    ocgraph.from_edges(np.array([], np.int64), np.array([], np.int64), path, num_vertices=300).close()
    g = ocgraph.open(path, writable=True, durability="none")
    wcc = g.maintain("wcc", background=True)
    seqs = [g.add_edges([v - 1], [v]) for v in range(1, 300)]
    wcc.wait(seqs[149])
    assert wcc.seq >= seqs[149]
    assert wcc.result().tolist() == [0] * 300
    g.remove_edges([149], [150])
    wcc.wait()
    assert wcc.result().tolist() == [0] * 150 + [150] * 150
    with pytest.raises(ocgraph.InvalidArgumentError, match="past the graph's last batch"):
        wcc.wait(g.add_edges([0], [2]) + 1)
    for huge in (2**64, 2**70, 2**200):
        with pytest.raises(ocgraph.InvalidArgumentError, match="past the graph's last batch"):
            wcc.wait(huge)
    for negative in (-1, -(2**200)):
        with pytest.raises(ocgraph.InvalidArgumentError, match="0 or more"):
            wcc.wait(negative)
    with pytest.raises(TypeError):
        wcc.wait(1.5)
    wcc.wait(np.int64(0))
    g.close()


def test_changes_survive_a_failed_batch(tmp_path):
    # A batch the result cannot take (a negative weight for SSSP) is followed by one it can:
    # the rebuilt result's changes() still report every vertex whose value differs since the
    # last call, with its value then.
    ocgraph.from_edges(
        [0, 1, 2], [1, 2, 3], tmp_path / "g", num_vertices=4, weights=[1, 1, 1], directed=True
    ).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    s = g.maintain("sssp", source=0)
    np.testing.assert_array_equal(s.result(), [0.0, 1.0, 2.0, 3.0])
    s.changes()
    g.set_edge_weights([1], [2], [-5.0])
    g.set_edge_weights([1], [2], [7.0])
    np.testing.assert_array_equal(s.result(), [0.0, 1.0, 8.0, 9.0])
    vs, old, new = s.changes()
    assert vs.tolist() == [2, 3]
    assert old.tolist() == [2.0, 3.0] and new.tolist() == [8.0, 9.0]
    g.add_edges([0], [3], weights=[0.5])
    vs, old, new = s.changes()
    assert (vs.tolist(), old.tolist(), new.tolist()) == ([3], [9.0], [0.5])
    # Nothing changed since: empty arrays of the result's dtype.
    vs, old, new = s.changes()
    assert len(vs) == 0 and old.dtype == new.dtype == np.float64
    g.close()


def test_pagerank_changes_survive_a_failed_batch(tmp_path):
    # PageRank cannot take a negative weight: the batches after it rebuild the result, and
    # changes() still reports the values from before the failed batch as the old ones.
    ocgraph.from_edges(
        [0, 1, 2, 0, 0], [1, 2, 3, 3, 2], tmp_path / "g", weights=[1.0, 1.0, 1.0, 5.0, 1.0], directed=True
    ).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    pr = g.maintain("pagerank", tol=1e-10)
    before = pr.result().copy()
    g.set_edge_weights([0], [1], [-3.0])
    g.set_edge_weights([0], [1], [1.0])
    g.add_edges([3], [0], weights=[2.0])
    after = pr.result()
    vs, old, new = pr.changes()
    changed = np.flatnonzero(before != after)
    assert vs.tolist() == changed.tolist()
    np.testing.assert_array_equal(old, before[changed])
    np.testing.assert_array_equal(new, after[changed])
    g.close()


def test_pagerank_changes_report_the_scores_the_previous_call_saw(tmp_path):
    # Each batch's pushes move the sum of the scores before later vertices are first pushed:
    # old values were normalised by that moving sum and differed from the previous result()
    # by several times the tolerance. Now each old value is exactly the previous call's
    # score, and every vertex whose score moved other than by the renormalisation is listed.
    rng = np.random.default_rng(2)
    n = 500
    src, dst = rng.integers(0, n, 1500), rng.integers(0, n, 1500)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n, directed=True, dedup=True).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    pr = g.maintain("pagerank", tol=1e-6)
    seen = pr.result().copy()
    pr.changes()
    listed = 0
    for step in range(120):
        k = int(rng.integers(1, 20))
        choice = rng.random()
        if choice < 0.5:
            g.add_edges(rng.integers(0, g.num_vertices, k), rng.integers(0, g.num_vertices, k))
        elif choice < 0.9:
            g.remove_vertices(rng.integers(0, g.num_vertices, 2))
        else:
            g.add_vertices(int(rng.integers(1, 3)))
        if step % 3 == 1:
            continue  # two batches between these calls
        now = pr.result()
        vs, old, new = pr.changes()
        before = np.zeros(len(now))
        before[: len(seen)] = seen
        np.testing.assert_array_equal(old, before[vs])
        np.testing.assert_array_equal(new, now[vs])
        # The others moved by the renormalisation alone: all by one factor.
        others = np.setdiff1d(np.flatnonzero(before > 0), vs)
        if len(others):
            ratio = now[others] / before[others]
            np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)
        listed += len(vs)
        seen = now.copy()
    assert listed > 0
    g.close()


def test_a_negative_weight_fails_a_maintained_sssp_but_not_close(tmp_path):
    ocgraph.from_edges([0, 1, 0], [1, 2, 2], tmp_path / "g", weights=[1.0, 5.0, 2.0]).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    m = g.maintain("sssp", source=0)
    g.maintain("wcc")
    np.testing.assert_array_equal(m.result(), [0.0, 1.0, 2.0])
    g.add_edges([2], [1], weights=[-1.5])  # the graph takes it; shortest paths cannot
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"sssp-source-0: .*non-negative"):
        m.result()
    with pytest.warns(RuntimeWarning, match="not saved"):
        g.close()
    assert g.closed
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        assert g.maintain("wcc").loaded, "the other result was saved"
        assert g.edge_weights(2).tolist() == [-1.5]
        with pytest.raises(ocgraph.InvalidArgumentError, match=r"sssp-source-0: .*non-negative"):
            g.maintain("sssp", source=0)


@pytest.mark.parametrize("damping", [0.0, 0.5])
def test_maintained_pagerank_follows_added_vertices_at_any_damping(tmp_path, damping):
    # Damping 0: every score is 1/n, so an added vertex changes them all (the restart took no
    # step and kept the old scores, 1/3 each and 0 for the new vertex).
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        m = g.maintain("pagerank", damping=damping, tol=1e-9)
        g.add_vertices(1)
        np.testing.assert_allclose(m.result(), g.pagerank(damping=damping, tol=1e-12), atol=1e-8)
        g.add_edges([3], [0])
        np.testing.assert_allclose(m.result(), g.pagerank(damping=damping, tol=1e-12), atol=1e-8)


def test_maintained_results_have_the_dtypes_of_the_kernels(tmp_path):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=4, weights=[1.0, 2.0]).close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        kernels = {"wcc": g.wcc, "bfs": lambda: g.bfs(0), "sssp": lambda: g.sssp(0), "pagerank": g.pagerank}
        for kind, kernel in kernels.items():
            m = g.maintain(kind, source=0) if kind in ("bfs", "sssp") else g.maintain(kind)
            assert m.result().dtype == kernel().dtype, kind


def test_damaged_lists_under_updates_are_a_format_error_naming_the_file(tmp_path):
    """A maintained PageRank reading a damaged list (its checksum matching, as damage on a graph
    too large to be checked whole on open goes unseen there: open checks the offsets' bounds,
    not every byte) ran into a slice panic, raised as an "internal error"; it is the
    `FormatError` naming the file, as for the static kernels' point reads. The flipped offset of
    vertex 1 runs past vertex 2's: the first computation reads that reversed range, which it read
    as an empty list (only a later batch's read of vertex 1's list failed); it is refused there
    now."""
    rng = np.random.default_rng(1)
    path = tmp_path / "g"
    ocgraph.from_edges(rng.integers(0, 200, 2000), rng.integers(0, 200, 2000), path, num_vertices=200).close()
    with ocgraph.open(path, writable=True, auto_compact_levels=None) as g:
        g.add_edges(rng.integers(0, 200, 50), rng.integers(0, 200, 50))
        g.freeze()
        g.add_edges(rng.integers(0, 200, 50), rng.integers(0, 200, 50))
    offsets = bytearray((path / "out.offsets").read_bytes())
    offsets[8] ^= 0x5A
    (path / "out.offsets").write_bytes(offsets)
    with pytest.raises(ocgraph.FormatError, match=r"out\.offsets: .*checksum mismatch"):
        ocgraph.open(path, writable=True, auto_compact_levels=None)
    restamp(path, "out.offsets")
    with ocgraph.open(path, writable=True, auto_compact_levels=None) as g:
        # `check` names where the lists stop being a CSR: vertex 0's range, grown past its list,
        # holds vertex 1's ids out of order.
        with pytest.raises(ocgraph.FormatError, match=r"out\.neighbors at byte \d+: .*out of order"):
            g.maintain("pagerank")
