"""Pattern mining against independent implementations: k-cliques against networkx's
``enumerate_all_cliques`` and python-igraph's ``cliques``; motif censuses against igraph's
``motifs_randesu`` and networkx's ``triadic_census``; pattern matches against networkx's
``GraphMatcher`` (monomorphisms for edge-induced, isomorphisms for vertex-induced, with a label
``node_match``); watched patterns against the difference of static matches after every batch.
Random graphs keep duplicates and self-loops (the miners use the simple undirected view)."""

from __future__ import annotations

import itertools
import math
import os
import signal
import threading

import igraph as ig
import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from networkx.algorithms import isomorphism

import ocgraph
from conftest import DATA, open_with, random_edges


def simple_view(g: ocgraph.Graph) -> nx.Graph:
    """The undirected simple graph underlying ``g`` (networkx)."""
    h = nx.Graph(g.to_networkx().to_undirected())
    h.remove_edges_from(list(nx.selfloop_edges(h)))
    return h


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """Random graphs with duplicates and self-loops, directed and not: (path, simple view)."""
    out = []
    rng = np.random.default_rng(40)
    base = tmp_path_factory.mktemp("mining")
    for i in range(6):
        n = int(rng.integers(8, 60))
        src, dst, _ = random_edges(rng, n, int(rng.integers(n, 6 * n)))
        g = ocgraph.from_edges(src, dst, base / f"g{i}", num_vertices=n, directed=i % 2 == 0)
        out.append((base / f"g{i}", simple_view(g)))
        g.close()
    return out


def key(row, pattern_edges) -> tuple:
    """A match's identity: its vertex set and its edge images."""
    es = sorted((min(int(row[a]), int(row[b])), max(int(row[a]), int(row[b]))) for a, b in pattern_edges)
    return tuple(sorted(int(x) for x in row)), tuple(es)


@pytest.mark.parametrize("backend", ["mmap", "pool"])
def test_cliques_against_networkx(graphs, backend):
    for path, h in graphs:
        by_size: dict[int, set] = {}
        for c in nx.enumerate_all_cliques(h):
            by_size.setdefault(len(c), set()).add(tuple(sorted(c)))
        with open_with(path, backend) as g:
            for k in range(3, 9):
                want = by_size.get(k, set())
                assert g.count_cliques(k) == len(want)
                rows = g.list_cliques(k)
                assert rows.shape == (len(want), k) and rows.dtype == np.uint32
                assert {tuple(r) for r in rows.tolist()} == want


@pytest.fixture(scope="module")
def medium(tmp_path_factory):
    """A skewed random graph of 400 vertices (dense enough for 6-cliques) and its igraph twin."""
    rng = np.random.default_rng(7)
    n = 400
    src = (rng.random(6000) ** 2 * n).astype(np.int64)
    dst = rng.integers(0, n, 6000)
    g = ocgraph.from_edges(src, dst, tmp_path_factory.mktemp("medium") / "g", num_vertices=n, directed=False)
    h = ig.Graph(n=n, edges=list(zip(src.tolist(), dst.tolist()))).simplify()
    return g, h, {size: igraph_census(h, size).tolist() for size in (3, 4)}


def test_clique_counts_against_igraph(medium):
    g, h, _ = medium
    for k in (3, 4, 5, 6):
        assert g.count_cliques(k) == len(h.cliques(k, k))


def igraph_census(h: ig.Graph, size: int) -> np.ndarray:
    """igraph's induced motif counts, mapped to ``MOTIF_NAMES[(size, False)]`` by degree sequence."""
    by_degrees = {
        (1, 1, 2): "wedge", (2, 2, 2): "triangle",
        (1, 1, 1, 3): "3-star", (1, 1, 2, 2): "4-path", (1, 2, 2, 3): "tailed-triangle",
        (2, 2, 2, 2): "4-cycle", (2, 2, 3, 3): "diamond", (3, 3, 3, 3): "4-clique",
    }  # fmt: skip
    names = ocgraph.MOTIF_NAMES[(size, False)]
    out = np.zeros(len(names), dtype=np.int64)
    for cls, count in enumerate(h.motifs_randesu(size=size)):
        degrees = tuple(sorted(ig.Graph.Isoclass(size, cls).degree()))
        if degrees in by_degrees:
            out[names.index(by_degrees[degrees])] = int(count)
    return out


@pytest.mark.parametrize("backend", ["mmap", "pool"])
def test_motifs_against_igraph(graphs, medium, backend):
    g, _, census = medium
    for size in (3, 4):
        assert g.motifs(size).tolist() == census[size]
    for path, s in graphs:
        h = ig.Graph.from_networkx(s)
        with open_with(path, backend) as g:
            for size in (3, 4):
                assert g.motifs(size).tolist() == igraph_census(h, size).tolist()


def test_triad_census_against_networkx(graphs):
    for path, _ in graphs:
        with ocgraph.open(path) as g:
            d = g.to_networkx()
            d = nx.DiGraph(d) if g.directed else nx.DiGraph(d.to_directed())
            d.remove_edges_from(list(nx.selfloop_edges(d)))
            want = nx.triadic_census(d)
            got = g.motifs(3, directed=True)
            assert dict(zip(ocgraph.MOTIF_NAMES[(3, True)], got.tolist())) == want


def test_triad_census_of_hubs_and_mutual_arcs_against_networkx(tmp_path):
    # Stars (out, in, mutual) and K_{2,n} (undirected; directed with the hubs joined), whose
    # hub's neighbour pairs are counted from its dyad counts, and random directed graphs with
    # mutual pairs, self-loops and repeated arcs, each also through a small buffer pool.
    rng = np.random.default_rng(5)
    leaves = np.arange(1, 301)
    hubs = np.r_[np.zeros(300, int), np.ones(300, int)]
    cases = {
        "out-star": (np.zeros(300, int), leaves, True),
        "in-star": (leaves, np.zeros(300, int), True),
        "mutual star": (np.r_[np.zeros(300, int), leaves], np.r_[leaves, np.zeros(300, int)], True),
        "K2n": (hubs, np.r_[leaves + 1, leaves + 1], False),
        "K2n joined": (np.r_[0, hubs], np.r_[1, leaves + 1, leaves + 1], True),
    }
    for i in range(4):
        n, m = 60, 200
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        back = rng.random(m) < 0.4
        src, dst = np.r_[src, dst[back], src[:20]], np.r_[dst, src[back], dst[:20]]
        cases[f"random {i}"] = (np.r_[src, 3, 7], np.r_[dst, 3, 7], True)
    for name, (src, dst, directed) in cases.items():
        path = tmp_path / name.replace(" ", "_")
        n = int(max(src.max(), dst.max())) + 4  # and a few isolated vertices
        ocgraph.from_edges(src, dst, path, num_vertices=n, directed=directed).close()
        d = nx.DiGraph()
        d.add_nodes_from(range(n))
        d.add_edges_from((int(a), int(b)) for a, b in zip(src, dst) if a != b)
        if not directed:
            d.add_edges_from((int(b), int(a)) for a, b in zip(src, dst) if a != b)
        want = nx.triadic_census(d)
        for kw in ({}, {"backend": "pool", "memory": "16KiB"}):
            with ocgraph.open(path, **kw) as g:
                got = g.motifs(3, directed=True)
            assert dict(zip(ocgraph.MOTIF_NAMES[(3, True)], got.tolist())) == want, (name, kw)


def test_triad_census_reads_each_pairs_lists_once(tmp_path):
    # Through a pool of three frames, the census reads each vertex's out- and in-lists a few
    # times in range scans (degrees, the DAG, the dyads: a small multiple of n + m page
    # requests); looking a triad's arcs up in the graph's lists for every third vertex read
    # them again and again (over 400,000 requests here, and seconds of misses).
    rng = np.random.default_rng(1)
    n, m = 1500, 6000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n).close()
    with ocgraph.open(tmp_path / "g", backend="pool", memory="12KiB") as g:
        g.reset_io_stats()
        got = g.motifs(3, directed=True)
        requests = g.io_stats()["page_requests"]
    d = nx.DiGraph()
    d.add_nodes_from(range(n))
    d.add_edges_from((int(a), int(b)) for a, b in zip(src, dst) if a != b)
    assert dict(zip(ocgraph.MOTIF_NAMES[(3, True)], got.tolist())) == nx.triadic_census(d)
    assert requests <= 5 * (n + m), requests


def test_astro_against_scipy_and_igraph(tmp_path):
    """ca-AstroPh: the whole graph's 3-census against scipy (degrees, trace of A^3), and the
    4-census, 4-/5-cliques and 4-clique matches of the subgraph on its first 1000 vertices
    (first-seen order) against igraph (igraph's census of the whole graph takes minutes)."""
    with ocgraph.import_edges(
        DATA / "ca-AstroPh.txt.gz", tmp_path / "astro", undirected=True, dedup=True, relabel="first-seen"
    ) as g:
        a = g.to_scipy().tocsr()
        a = ((a + a.T) > 0).astype(np.int64)
        a.setdiag(0)
        a.eliminate_zeros()
        deg = np.asarray(a.sum(axis=1)).ravel()
        triangles = int((a @ a).multiply(a).sum()) // 6
        wedges = int((deg * (deg - 1) // 2).sum()) - 3 * triangles
        assert g.motifs(3).tolist() == [wedges, triangles]
        assert g.count_cliques(3) == triangles
        sub = a[:1000, :1000].tocoo()
    src, dst = sub.row[sub.row < sub.col], sub.col[sub.row < sub.col]
    with ocgraph.from_edges(src, dst, tmp_path / "sub", num_vertices=1000, directed=False) as g:
        h = ig.Graph(n=1000, edges=list(zip(src.tolist(), dst.tolist())))
        assert g.motifs(4).tolist() == igraph_census(h, 4).tolist()
        for k in (4, 5):
            assert g.count_cliques(k) == len(h.cliques(k, k))
        assert g.count_matches("4-clique") == g.count_cliques(4)


PATTERNS = [
    [(0, 1), (1, 2)],
    [(0, 1), (1, 2), (2, 0)],
    [(0, 1), (1, 2), (2, 3), (3, 0)],
    [(0, 1), (1, 2), (2, 0), (2, 3)],
    [(0, 1), (0, 2), (0, 3)],
    [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)],
]


def nx_matches(h: nx.Graph, edges, induced: bool, labels=None, plabels=None) -> set:
    p = nx.Graph(edges)
    nm = None
    if labels is not None:
        nx.set_node_attributes(p, {a: plabels[a] for a in p}, "l")
        h = h.copy()
        nx.set_node_attributes(h, {v: int(labels[v]) for v in h}, "l")
        nm = isomorphism.categorical_node_match("l", None)
    gm = isomorphism.GraphMatcher(h, p, node_match=nm)
    it = gm.subgraph_isomorphisms_iter() if induced else gm.subgraph_monomorphisms_iter()
    out = set()
    for m in it:
        inv = {b: a for a, b in m.items()}
        out.add(key([inv[a] for a in range(len(p))], edges))
    return out


@pytest.mark.parametrize("induced", [False, True])
def test_matches_against_networkx(graphs, induced):
    for path, h in graphs[:3]:
        with open_with(path, "pool") as g:
            for edges in PATTERNS:
                want = nx_matches(h, edges, induced)
                rows = g.match(edges, induced=induced)
                got = [key(r, edges) for r in rows.tolist()]
                assert len(got) == len(set(got)), "each match once"
                assert set(got) == want
                assert g.count_matches(edges, induced=induced) == len(want)


def hub_graph(rng, path, n: int):
    """An undirected graph at ``path``: ``n`` vertices, 40 random edges, and two hubs joined to
    the same 14 rim vertices. Returns ``path``."""
    src, dst, _ = random_edges(rng, n, 40)
    hubs = rng.choice(n, 2, replace=False)
    rim = rng.choice(n, 14, replace=False)
    src = np.concatenate([src, np.repeat(hubs, len(rim))])
    dst = np.concatenate([dst, np.tile(rim, 2)])
    ocgraph.from_edges(src, dst, path, num_vertices=n, directed=False).close()
    return path


def test_patterns_with_tied_vertices_at_hubs_against_networkx(tmp_path):
    """Patterns whose matching order ties two adjacent vertices (the house, 5- and 6-cycles,
    K_{2,3}, a 5-cycle with a pendant) on graphs with hubs: the search places either vertex
    first, by the lengths of the lists at hand, so hubs and rim vertices take both branches.
    Every match once, as networkx finds them, edge- and vertex-induced, with labels too."""
    patterns = [
        [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)],
        [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)],
        [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)],
        [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)],
        [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (2, 5)],
    ]
    rng = np.random.default_rng(5)
    for i in range(2):
        n = 30
        path = hub_graph(rng, tmp_path / f"hubs{i}", n)
        with ocgraph.open(path) as g:
            h = simple_view(g)
            labels = rng.integers(0, 2, n)
            for edges in patterns:
                for induced in (False, True):
                    for lab, pl in ((None, None), (labels, [int(x) for x in rng.integers(0, 2, 6)])):
                        pl = pl and pl[: len(nx.Graph(edges))]
                        want = nx_matches(h, edges, induced, lab, pl)
                        rows = g.match(edges, induced=induced, labels=lab, pattern_labels=pl)
                        got = [key(r, edges) for r in rows.tolist()]
                        assert len(got) == len(set(got)), "each match once"
                        assert set(got) == want
                        count = g.count_matches(edges, induced=induced, labels=lab, pattern_labels=pl)
                        assert count == len(want)


def test_searches_through_pools_of_a_few_frames(tmp_path):
    """Pools of two and four frames run pattern searches (which keep a list per pattern vertex)
    and kernels on a weighted directed graph with a pending batch, without waiting for frames:
    the answers of the memory-mapped graph."""
    n = 513  # the lists fill just over one 4 KiB page: under the pool, over half of it
    src = np.arange(n)
    ocgraph.from_edges(src, (src + 1) % n, tmp_path / "cycle", directed=False).close()
    with ocgraph.open(tmp_path / "cycle", backend="pool", memory="8KiB") as g:
        assert g.count_matches("triangle", threads=1) == 0
        assert g.count_matches("4-path", threads=1) == n
    rng = np.random.default_rng(0)
    s, d = (rng.random(1700) ** 3 * 256).astype(int), rng.integers(0, 256, 1700)
    path = tmp_path / "skewed"
    ocgraph.from_edges(s, d, path, num_vertices=256, directed=False, dedup=True, drop_self_loops=True).close()
    with ocgraph.open(path) as g:
        want = g.count_matches("4-cycle", induced=True)
    with ocgraph.open(path, backend="pool", memory="16KiB") as g:
        assert g.count_matches("4-cycle", induced=True, threads=2) == want
    path = tmp_path / "directed"
    ocgraph.from_edges([0, 1], [1, 2], path, directed=True, weights=[1.0, 2.0]).close()
    with ocgraph.open(path, writable=True) as w:
        w.add_edges([2], [0])  # pending in the log: the 3-cycle 0 -> 1 -> 2 -> 0
    with ocgraph.open(path, backend="pool", memory="8KiB") as g:
        assert g.triangle_count(threads=1) == 1
        assert g.count_matches("wedge", threads=1) == 3
        census = g.motifs(3, directed=True, threads=1)
    h = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    assert dict(zip(ocgraph.MOTIF_NAMES[(3, True)], census.tolist())) == nx.triadic_census(h)


def test_labelled_matches_against_networkx(graphs):
    rng = np.random.default_rng(3)
    for path, h in graphs[:4]:
        with ocgraph.open(path) as g:
            labels = rng.integers(0, 2, g.num_vertices)
            for edges, pl in [
                (PATTERNS[1], [0, 0, 1]),
                (PATTERNS[2], [0, 1, 0, 1]),
                (PATTERNS[3], [1, 0, 0, 1]),
            ]:
                for induced in (False, True):
                    want = nx_matches(h, edges, induced, labels, pl)
                    rows = g.match(edges, induced=induced, labels=labels, pattern_labels=pl)
                    assert {key(r, edges) for r in rows.tolist()} == want
                    assert len(rows) == len(want)


def test_a_networkx_graph_is_a_pattern(graphs, tmp_path):
    """A networkx graph as the pattern: its nodes in ``nodes`` order are the pattern vertices,
    a ``label`` node attribute labels them (missing: a wildcard), and a node without an edge is
    refused."""
    rng = np.random.default_rng(7)
    path, h = graphs[2]
    house = nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("a", "e"), ("b", "e")])
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)]  # the same, numbered in node order
    with ocgraph.open(path) as g:
        for pattern in (house, nx.MultiGraph(house), nx.cycle_graph(4)):
            numbered = edges if len(pattern) == 5 else PATTERNS[2]
            for induced in (False, True):
                rows = g.match(pattern, induced=induced)
                assert {key(r, numbered) for r in rows.tolist()} == nx_matches(h, numbered, induced)
                assert len(rows) == g.count_matches(numbered, induced=induced)
        labels = rng.integers(0, 2, g.num_vertices)
        tri = nx.Graph([("x", "y"), ("y", "z"), ("z", "x")])
        nx.set_node_attributes(tri, {"x": 0, "z": 1}, "label")  # y: a wildcard
        want = g.match([(0, 1), (1, 2), (2, 0)], labels=labels, pattern_labels=[0, None, 1])
        assert sorted(map(tuple, g.match(tri, labels=labels).tolist())) == sorted(map(tuple, want.tolist()))
        # pattern_labels as a mapping: node -> label for a graph, vertex -> label otherwise.
        by_node = g.match(tri, labels=labels, pattern_labels={"x": 0, "z": 1})
        by_vertex = g.match([(0, 1), (1, 2), (2, 0)], labels=labels, pattern_labels={0: 0, 2: 1})
        assert by_node.tolist() == by_vertex.tolist() == want.tolist()
        # A mapping naming what is not a pattern vertex (or node) is refused, not ignored.
        for pattern, stray in ((tri, {"w": 0}), ([(0, 1), (1, 2), (2, 0)], {5: 1}), ("triangle", {"a": 1})):
            with pytest.raises(ocgraph.InvalidArgumentError, match="pattern_labels names"):
                g.match(pattern, labels=labels, pattern_labels=stray)
        lonely = nx.Graph([(0, 1)])
        lonely.add_node("q")
        with pytest.raises(ocgraph.InvalidArgumentError, match="'q' has no edge"):
            g.match(lonely)
        # So is a gap in an edge list's numbering, by the vertex's number.
        with pytest.raises(ocgraph.InvalidArgumentError, match="pattern vertex 1 has no edge"):
            g.count_matches([(0, 2), (2, 3)])
        # A directed pattern graph is refused: matched as undirected, a directed 3-cycle matched
        # every triangle.
        for directed in (nx.DiGraph([(0, 1), (1, 2), (2, 0)]), nx.MultiDiGraph([(0, 1), (1, 0)])):
            with pytest.raises(ocgraph.InvalidArgumentError, match="directed pattern graph"):
                g.count_matches(directed)
        for size in (0, 9):
            with pytest.raises(ocgraph.InvalidArgumentError, match=f"2 to 8 vertices, this one has {size}"):
                g.match(nx.path_graph(size))
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "w", directed=False).close()
    with ocgraph.open(tmp_path / "w", writable=True) as g:
        w = g.watch(nx.path_graph(["p", "q", "r"]))
        g.add_edges([2], [0])
        assert len(w.changes().added) == 2  # the two new wedges through the edge 2-0
        with pytest.raises(ocgraph.InvalidArgumentError, match="pattern_labels names 'z'"):
            g.watch(nx.path_graph(["p", "q", "r"]), pattern_labels={"z": 1})
        # A labelled pattern on a graph without labels names the graph and the way to label it;
        # wildcards only are the unlabelled pattern.
        for call in (g.match, g.count_matches):
            with pytest.raises(ocgraph.InvalidArgumentError, match=r"graph .*w has no labels: set them"):
                call("wedge", pattern_labels=[0, None, None])
        assert g.count_matches("wedge", pattern_labels=[None, None, None]) == g.count_matches("wedge")
    # A Watch built directly checks its arguments as `watch` does.
    bad_labels = ([2**32, None, None], [-5, None, None])
    for args in [(None, [(0, -1)])] + [("triangle", None, labels) for labels in bad_labels]:
        with pytest.raises(ocgraph.InvalidArgumentError):
            ocgraph.Watch(*args)


def test_named_patterns_take_pattern_labels_in_their_vertex_order(graphs, tmp_path):
    named = {"wedge": [(0, 1), (1, 2)], "tailed-triangle": [(0, 1), (0, 2), (1, 2), (2, 3)], "triangle": None}
    rng = np.random.default_rng(5)
    path, h = graphs[1]
    with ocgraph.open(path) as g:
        labels = rng.integers(0, 2, g.num_vertices)
        for name, edges in named.items():
            edges = edges or [(0, 1), (0, 2), (1, 2)]
            pl = rng.integers(0, 2, max(max(e) for e in edges) + 1).tolist()
            for induced in (False, True):
                want = nx_matches(h, edges, induced, labels, pl)
                rows = g.match(name, induced=induced, labels=labels, pattern_labels=pl)
                assert {key(r, edges) for r in rows.tolist()} == want
                assert g.count_matches(name, induced=induced, labels=labels, pattern_labels=pl) == len(want)
        # Names that are no pattern are refused by name, with or without pattern labels (a
        # superscript digit raised ValueError; a huge K with a mapping built a list of K labels).
        for name in ("\u00b2-clique", "99999999999-clique", "9-clique", "1-path"):
            with pytest.raises(ocgraph.InvalidArgumentError, match=r"unknown pattern.*K from 3 to 8"):
                g.count_matches(name, labels=labels, pattern_labels={0: 1})
    # A watch sees this handle's batches only: a read-only one is refused, as maintain() is.
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "w", directed=False).close()
    with ocgraph.open(tmp_path / "w") as g, pytest.raises(ocgraph.InvalidArgumentError, match="read-only"):
        g.watch("triangle")
    with ocgraph.open(tmp_path / "w", writable=True) as g:
        w = g.watch("wedge", labels=[1, 2, 1], pattern_labels=[2, 1, 2])  # centre labelled 1
        g.add_vertices(1)
        g.set_vertex_labels([3], [2])
        g.add_edges([2], [3])
        added = w.changes().added.tolist()
        assert len(added) == 1 and sorted(added[0]) == [1, 2, 3] and added[0][1] == 2


def test_mining_errors(graphs):
    with ocgraph.open(graphs[0][0]) as g:
        for bad in ("blob", [(0, 0)], [(0, 1), (2, 3)], [(0, 9)]):
            with pytest.raises(ocgraph.InvalidArgumentError):
                g.count_matches(bad)
        for k in (-1, 1, 17):  # every size out of range is told the range the miner takes
            for call in (g.count_cliques, g.list_cliques):
                with pytest.raises(ocgraph.InvalidArgumentError, match=f"from 2 to 16, got {k}$"):
                    call(k)
        with pytest.raises(ocgraph.InvalidArgumentError):
            g.motifs(5)
        with pytest.raises(ocgraph.InvalidArgumentError):
            g.match(PATTERNS[1], pattern_labels=[0, 0, 1])  # labelled pattern, no labels
        n = g.num_vertices
        for count in (n - 1, n + 2):
            with pytest.raises(ocgraph.InvalidArgumentError, match=f"{count} labels given"):
                g.match(PATTERNS[1], labels=np.zeros(count, dtype=np.uint32), pattern_labels=[0, 0, 1])
        with pytest.raises(ocgraph.InvalidArgumentError, match="4 labels were given"):
            g.match(PATTERNS[1], labels=np.zeros(n, dtype=np.uint32), pattern_labels=[0, 0, 1, 1])
        # Without labels= too: the count is wrong before the graph lacks labels.
        with pytest.raises(ocgraph.InvalidArgumentError, match="3 vertices but 4 labels were given"):
            g.match(PATTERNS[1], pattern_labels=[0, 0, 1, 1])
        with pytest.raises(ocgraph.InvalidArgumentError, match="3 vertices but 2 labels were given"):
            g.count_matches("triangle", pattern_labels=[0, 1])
        # A pattern of wildcards only is the unlabelled pattern, on a graph without labels too.
        tri = [(0, 1), (1, 2), (2, 0)]
        assert g.count_matches(tri, pattern_labels=[None, -1, None]) == g.count_matches("triangle")
        # Floats are refused, not truncated to the neighbouring integer.
        with pytest.raises(ocgraph.InvalidArgumentError, match="pairs of integers"):
            g.count_matches([(0, 1.5), (1, 2)])
        with pytest.raises(ocgraph.InvalidArgumentError, match="must be integers"):
            g.match(PATTERNS[1], labels=np.full(n, 1.9), pattern_labels=[1, 1, 1])
        with pytest.raises(ocgraph.InvalidArgumentError, match=r"pattern label 0\.5"):
            g.match(PATTERNS[1], labels=np.zeros(n, dtype=np.uint32), pattern_labels=[0.5, 0, 0])


@pytest.mark.parametrize(
    "pattern,induced", [("triangle", False), ("4-clique", False), ("4-cycle", True), (PATTERNS[3], False)]
)
def test_watch_reports_exactly_the_changes(tmp_path, pattern, induced):
    rng = np.random.default_rng(sum(map(ord, str(pattern))) + induced)
    n = 30
    src, dst, _ = random_edges(rng, n, 120)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n, directed=False, dedup=True).close()
    with ocgraph.open(tmp_path / "g", writable=True, durability="none") as g:
        w = g.watch(pattern, induced=induced)
        k = w.k
        pattern_edges = pattern_edges_of(pattern, k)

        def current() -> set:
            return {key(r, pattern_edges) for r in g.match(pattern, induced=induced).tolist()}

        before = current()
        for step in range(12):
            m = int(rng.integers(1, 8))
            s, d = rng.integers(0, n, m), rng.integers(0, n, m)
            if step == 6:
                g.compact()  # the watch keeps reading the graph as it was at its start
            if step % 3 == 2:
                g.remove_edges(s, d)
            elif step % 5 == 4:
                g.remove_vertices(s[:1])
            else:
                g.add_edges(s, d)
            added, removed = w.changes()
            assert added.shape[1] == k and removed.shape[1] == k
            a = [key(r, pattern_edges) for r in added.tolist()]
            r = [key(x, pattern_edges) for x in removed.tolist()]
            assert len(a) == len(set(a)) and len(r) == len(set(r)), "no duplicates"
            after = current()
            assert set(a) == after - before
            assert set(r) == before - after
            before = after
        g.unwatch(w)
        g.add_edges([0], [1])
        assert all(len(x) == 0 for x in w.changes())


def test_a_closed_graphs_watch_keeps_the_changes_before_the_close(tmp_path):
    # Hand-checked: the triangle closed before the close is reported once, after the close.
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "h", num_vertices=4, directed=False).close()
    g = ocgraph.open(tmp_path / "h", writable=True, durability="none")
    w = g.watch("triangle")
    assert repr(w) == "<ocgraph.Watch of a 3-vertex, 3-edge pattern, edge-induced>"
    g.add_edges([0], [2])
    g.close()
    added, removed = w.changes()
    assert added.tolist() == [[0, 1, 2]] and removed.size == 0
    assert all(len(x) == 0 for x in w.changes())
    with ocgraph.open(tmp_path / "h", writable=True, durability="none") as g:
        g.remove_edges([0], [2])
    assert all(len(x) == 0 for x in w.changes())


def test_watch_changes_net_the_batches_since_the_last_call(tmp_path):
    # Hand-checked: a triangle that appears and disappears between two calls is not reported,
    # nor one that disappears and comes back.
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "h", num_vertices=4, directed=False).close()
    with ocgraph.open(tmp_path / "h", writable=True, durability="none") as g:
        w = g.watch("triangle")
        g.add_edges([0], [2])
        g.remove_edges([0], [2])
        assert all(len(x) == 0 for x in w.changes())
        g.add_edges([0], [2])
        assert w.changes().added.tolist() == [[0, 1, 2]]
        g.remove_edges([2], [0])
        g.add_edges([0], [2])
        assert all(len(x) == 0 for x in w.changes())
    # Hand-checked: an unlabelled pattern watched with labels given: a match that went and came
    # back while one of its vertices was relabelled is no modification (its labels do not count).
    with ocgraph.open(tmp_path / "h", writable=True, durability="none") as g:
        for pattern, labels in (("wedge", None), ([(0, 1)], None), ("wedge", [None, None, None])):
            w = g.watch(pattern, pattern_labels=labels, labels=np.zeros(g.num_vertices, dtype=np.uint32))
            g.set_vertex_labels([1], [5])
            g.remove_edges([0], [1])
            g.add_edges([0], [1])
            assert all(len(x) == 0 for x in w.changes()), pattern
    # Random streams, changes taken after every 1 to 4 batches.
    rng = np.random.default_rng(11)
    n = 25
    src, dst, _ = random_edges(rng, n, 90)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n, directed=False, dedup=True).close()
    with ocgraph.open(tmp_path / "g", writable=True, durability="none") as g:
        w = g.watch("4-cycle", induced=True)
        edges = pattern_edges_of("4-cycle", 4)

        def current() -> set:
            return {key(r, edges) for r in g.match("4-cycle", induced=True).tolist()}

        before = current()
        for _ in range(10):
            for _ in range(int(rng.integers(1, 5))):
                s, d = rng.integers(0, n, 3), rng.integers(0, n, 3)
                (g.add_edges if rng.random() < 0.5 else g.remove_edges)(s, d)
            added, removed = w.changes()
            for rows in (added, removed):
                assert rows.tolist() == sorted(rows.tolist()), "rows in increasing order"
            a = [key(r, edges) for r in added.tolist()]
            r = [key(x, edges) for x in removed.tolist()]
            assert len(a) == len(set(a)) and len(r) == len(set(r))
            after = current()
            assert set(a) == after - before
            assert set(r) == before - after
            before = after


def test_a_batch_of_another_thread_never_lands_inside_a_watched_batch(tmp_path, monkeypatch):
    """remove_vertices reads the removed vertices' edges before its batch: another thread's
    batch adding edges there in between was removed unreported, and the watch reported a
    triangle that never existed. The watched batches are ordered now (forced interleaving)."""
    ocgraph.from_edges([1], [2], tmp_path / "g", num_vertices=3, directed=False).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    w = g.watch("triangle")
    read_edges = ocgraph._mine.incident_pairs
    other = threading.Thread(target=lambda: g.add_edges([0, 0], [1, 2]))

    def interleaved(graph, ids):
        pairs = read_edges(graph, ids)
        if not other.is_alive() and other.ident is None:
            other.start()
            other.join(timeout=0.5)  # it waits for this batch (or lands here, as it did)
        return pairs

    monkeypatch.setattr(ocgraph._mine, "incident_pairs", interleaved)
    g.remove_vertices([0])
    other.join()
    monkeypatch.undo()
    now = {tuple(r) for r in g.match("triangle").tolist()}
    added, removed = w.changes()
    assert {tuple(r) for r in added.tolist()} == now and removed.tolist() == []
    g.remove_vertices([0])
    assert g.match("triangle").tolist() == []
    added, removed = w.changes()
    assert added.tolist() == [] and {tuple(r) for r in removed.tolist()} == now
    g.close()


def test_a_refused_batch_never_reaches_the_watches_while_another_thread_commits(tmp_path):
    """A refused batch counted as committed when the graph's sequence moved meanwhile: weight
    and vertex additions ran outside the watch lock, so another thread's committed in between,
    and a labelled watch took the refused labels (3 of 3 runs). Every batch takes the lock now."""
    n = 10
    edges = ([0, 1, 2, 3], [1, 2, 0, 4])
    ocgraph.from_edges(*edges, tmp_path / "g", num_vertices=n, directed=False, weights=[1.0] * 4).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    g.set_vertex_labels(list(range(n)), [0] * n)
    w = g.watch("triangle", pattern_labels=[7, None, None])
    stop = threading.Event()

    def refused() -> None:
        for _ in range(4000):
            with pytest.raises(ocgraph.VertexError):
                g.set_vertex_labels([1, 10**6], [7, 7])  # no vertex 10**6

    def committing() -> None:
        i = 0
        while not stop.is_set():
            g.set_edge_weights([3], [4], [1.0 + i % 5]) if i % 2 else g.add_vertices(1)
            i += 1

    threads = [threading.Thread(target=refused), threading.Thread(target=committing)]
    threads[1].start()
    threads[0].start()
    threads[0].join()
    stop.set()
    threads[1].join()
    assert g.match("triangle", pattern_labels=[7, None, None]).tolist() == []
    assert all(len(x) == 0 for x in w.changes())
    g.close()


def test_an_update_of_a_closed_watched_graph_raises_and_frees_the_lock(tmp_path):
    """The snapshot before a watched batch raised on a closed graph with the watch lock held:
    every later update, from any thread, waited forever."""
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=4, directed=False).close()
    g = ocgraph.open(tmp_path / "g", writable=True)
    g.watch("triangle")
    g.close()
    errors = []

    def late_update() -> None:
        try:
            g.add_edges([0], [2])
        except ocgraph.InvalidArgumentError as e:
            errors.append(str(e))

    late_update()  # in this thread, which stays alive (a new thread may reuse an ended one's id)
    t = threading.Thread(target=late_update, daemon=True)
    t.start()
    t.join(timeout=20)
    assert not t.is_alive(), "the update waits for a lock never released"
    assert errors == ["operation on a closed graph"] * 2


def test_a_watch_does_not_change_the_error_of_a_bad_original_id(tmp_path):
    """With a watch, original ids were looked up before the batch's own check: a float id
    raised TypeError where the same call without a watch raises InvalidArgumentError."""
    ocgraph.from_pandas(pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"]}), tmp_path / "g").close()
    for watched in (False, True):
        with ocgraph.open(tmp_path / "g", writable=True) as g:
            if watched:
                g.watch("wedge")
            with pytest.raises(ocgraph.InvalidArgumentError, match=r"an original id is .*, got 1\.5"):
                g.remove_edges([1.5], ["b"], ids="original")
            with pytest.raises(ocgraph.InvalidArgumentError, match=r"an original id is .*, got None"):
                g.remove_vertices([None], ids="original")
            assert g.num_edges == 2


def test_a_ctrl_c_while_the_watches_take_a_batch_waits_until_all_have_it(tmp_path, monkeypatch):
    """A SIGINT that came while the first watch took a batch ended the loop over the watches:
    the later ones never got it (a 2-clique watch reported none of 19,000 new edges). The
    interrupt is raised once every watch has the batch (the signal sent from the first)."""
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=4, directed=False).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    first, second = g.watch("wedge"), g.watch("2-clique")
    update = type(first)._update

    def interrupted_here(self, *args):
        update(self, *args)
        if self is first:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(type(first), "_update", interrupted_here)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a script
    try:
        with pytest.raises(KeyboardInterrupt):
            g.add_edges([2], [3])
    finally:
        signal.signal(signal.SIGINT, previous)
    monkeypatch.undo()
    assert [sorted(r) for r in second.changes().added.tolist()] == [[2, 3]]
    assert [sorted(r) for r in first.changes().added.tolist()] == [[1, 2, 3]]
    g.close()


@pytest.mark.parametrize("native", ["_add_edges", "_remove_edges", "_remove_vertices", "_set_vertex_labels"])
def test_a_batch_interrupted_as_it_returns_still_reaches_the_watches(tmp_path, monkeypatch, native):
    """A KeyboardInterrupt raised as the native update returned (the batch committed) skipped
    the watches' update: the batch's matches were never reported, and the watch stayed out of
    step with the graph. The watches now get every committed batch (the interrupt forced)."""
    ocgraph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], tmp_path / "g", directed=False).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    labelled = native == "_set_vertex_labels"
    w = g.watch("triangle", labels=[1] * 4, pattern_labels=[1, 2, 2]) if labelled else g.watch("triangle")
    if native != "_add_edges":
        g.add_edges([0], [2])
    before = {tuple(r) for r in g.match("triangle").tolist()}
    w.changes()
    call = getattr(ocgraph._ocgraph, native)

    def interrupted(*args):
        call(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(ocgraph._ocgraph, native, interrupted)
    with pytest.raises(KeyboardInterrupt):
        {
            "_add_edges": lambda: g.add_edges([0], [2]),
            "_remove_edges": lambda: g.remove_edges([2], [0]),
            "_remove_vertices": lambda: g.remove_vertices([1]),
            "_set_vertex_labels": lambda: g.set_vertex_labels([2, 3], [2, 2]),
        }[native]()
    monkeypatch.undo()
    if labelled:
        # Vertex 0 labelled 1 with neighbours 2 and 3 labelled 2, which close triangles (0, 1, 2)
        # and (0, 2, 3) only where (0, 2, 3) has both 2s: one match, (0, 2, 3) in pattern order.
        assert w.changes().added.tolist() == [[0, 2, 3]]
        return g.close()
    after = {tuple(r) for r in g.match("triangle").tolist()}
    assert after != before
    added, removed = w.changes()
    assert {tuple(r) for r in added.tolist()} == after - before
    assert {tuple(r) for r in removed.tolist()} == before - after
    # A refused batch commits nothing and reports nothing.
    with pytest.raises(ocgraph.VertexError):
        g.add_edges([0], [99])
    assert all(len(x) == 0 for x in w.changes())
    g.close()


def test_a_watch_added_during_another_threads_batch_sees_that_batch(tmp_path, monkeypatch):
    """A batch of a graph nothing watched yet, committing after a watch was added and had
    taken its first batch, was missing from the watch for good (the triangle it closed with
    a later edge was never reported). Adding a watch now waits for such batches (forced
    interleaving)."""
    ocgraph.from_edges([3], [4], tmp_path / "g", num_vertices=5, directed=False).close()
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    native_add = ocgraph._ocgraph._add_edges
    started, go = threading.Event(), threading.Event()

    def paused_first(graph, *args):
        if not started.is_set():
            started.set()
            go.wait(timeout=10)
        return native_add(graph, *args)

    monkeypatch.setattr(ocgraph._ocgraph, "_add_edges", paused_first)
    first = threading.Thread(target=lambda: g.add_edges([0, 1], [1, 2]))
    first.start()
    assert started.wait(timeout=10)
    box = {}

    def watch_then_close_the_triangle():
        box["w"] = g.watch("triangle")
        g.add_edges([0], [2])

    second = threading.Thread(target=watch_then_close_the_triangle)
    second.start()
    second.join(timeout=0.5)  # it waits for the first batch now (it used to finish here)
    go.set()
    first.join()
    second.join()
    monkeypatch.undo()
    assert g.match("triangle").tolist() == [[0, 1, 2]]
    added, removed = box["w"].changes()
    assert added.tolist() == [[0, 1, 2]] and removed.tolist() == []
    g.add_edges([4, 4], [0, 1])  # 0-1-4: a triangle on the batch the watch once missed
    added, _ = box["w"].changes()
    assert added.tolist() == [[0, 1, 4]]
    g.close()


def test_threads_updating_a_watched_graph_with_a_maintained_result(tmp_path):
    # Three threads update one graph that a watch and a maintained result follow, while a fourth
    # reads them: no deadlock (their locks are taken with the GIL released), and the changes
    # net to the difference of the matches before and after.
    rng = np.random.default_rng(5)
    n = 150
    src, dst, _ = random_edges(rng, n, 250)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n, directed=False, dedup=True).close()
    with ocgraph.open(tmp_path / "g", writable=True, durability="none") as g:
        w = g.watch("triangle")
        m = g.maintain("wcc")
        edges = pattern_edges_of("triangle", 3)
        before = {key(r, edges) for r in g.match("triangle").tolist()}
        calls = []  # (added, removed) of each changes() call, in order

        def writer(seed: int) -> None:
            r = np.random.default_rng(seed)
            for i in range(60):
                s, d = r.integers(0, n, 4), r.integers(0, n, 4)
                (g.add_edges if i % 3 else g.remove_edges)(s, d, durable=False)

        def reader() -> None:
            for _ in range(40):
                m.result()
                m.changes()
                calls.append(w.changes())

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
        threads.append(threading.Thread(target=reader))
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "deadlock"
        calls.append(w.changes())
        state = set(before)
        for a, rm in calls:  # each call's changes apply to the state the previous one left
            ka, kr = {key(x, edges) for x in a.tolist()}, {key(x, edges) for x in rm.tolist()}
            assert kr <= state and not (ka & state), "removed matches were there, added ones were not"
            state = (state - kr) | ka
        assert state == {key(r, edges) for r in g.match("triangle").tolist()}
        src2, dst2 = g.to_pandas(original_ids=False).values.T
        labels = np.array(ocgraph_wcc_reference(n, src2, dst2))
        assert m.result().tolist() == labels.tolist()


def ocgraph_wcc_reference(n, src, dst):
    """Smallest vertex id of each vertex's component (networkx)."""
    h = nx.Graph()
    h.add_nodes_from(range(n))
    h.add_edges_from(zip(src.tolist(), dst.tolist()))
    label = [0] * n
    for comp in nx.connected_components(h):
        low = min(comp)
        for v in comp:
            label[v] = low
    return label


def pattern_edges_of(pattern, k):
    """The edges of a named or listed pattern (for match identities)."""
    if not isinstance(pattern, str):
        return pattern
    if pattern == "triangle" or pattern.endswith("clique"):
        return list(itertools.combinations(range(k), 2))
    if pattern.endswith("cycle"):
        return [(i, (i + 1) % k) for i in range(k)]
    raise ValueError(pattern)


def test_calls_reading_the_graph_twice_read_one_snapshot(tmp_path, monkeypatch):
    """Another thread's batch committing between two native reads of one call: a labelled
    watch read its labels before waiting for that batch (and missed its label change for
    good), a labelled match read labels and matches from two snapshots (an error, or matches
    no committed state had), and ``spmv()`` and a personalized ``pagerank()`` sized their
    vector from an older one (forced interleavings)."""
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=3, directed=False).close()
    ocgraph.set_labels(tmp_path / "g", [1, 0, 1])
    g = ocgraph.open(tmp_path / "g", writable=True, durability="none")
    native = ocgraph._ocgraph._set_vertex_labels
    started, go = threading.Event(), threading.Event()

    def paused(graph, *args):
        started.set()
        go.wait(timeout=10)
        return native(graph, *args)

    monkeypatch.setattr(ocgraph._ocgraph, "_set_vertex_labels", paused)
    relabel = threading.Thread(target=lambda: g.set_vertex_labels([1], [1]))
    relabel.start()
    assert started.wait(timeout=10)
    box = {}
    adding = threading.Thread(target=lambda: box.setdefault("w", g.watch([(0, 1)], pattern_labels=[1, 1])))
    adding.start()
    adding.join(timeout=0.3)
    go.set()
    relabel.join()
    adding.join()
    monkeypatch.undo()
    assert g.vertex_labels().tolist() == [1, 1, 1]
    g.remove_edges([0], [1])
    _, removed = box["w"].changes()
    assert sorted(removed.ravel().tolist()) == [0, 1]

    # A vertex added between the labels' read and the match's, and before the product's.
    g.add_edges([0], [1])
    for name in ("_vertex_labels", "_spmv", "_pagerank"):
        real = getattr(ocgraph._ocgraph, name)
        added = []

        def racing(graph, *args, real=real, added=added, labels_first=name == "_vertex_labels"):
            out = real(graph, *args) if labels_first else None
            if not added:
                added.append(g.add_vertices(1))
            return out if labels_first else real(graph, *args)

        monkeypatch.setattr(ocgraph._ocgraph, name, racing)
        n = g.num_vertices
        if name == "_vertex_labels":
            assert g.count_matches([(0, 1), (1, 2)], pattern_labels=[1, 1, 1]) == 1
        elif name == "_spmv":
            assert g.spmv().shape == (n,)
        else:
            assert g.pagerank(personalization=np.ones(n)).shape == (n,)
        monkeypatch.undo()
        assert g.num_vertices == n + 1
    g.close()


def label_keeping_automorphisms(edges, pl) -> int:
    """The automorphisms of the pattern ``edges`` that keep each position's label ``pl``."""
    k = max(max(e) for e in edges) + 1
    es = {frozenset(e) for e in edges}
    return sum(
        {frozenset((p[a], p[b])) for a, b in edges} == es and all(pl[p[i]] == pl[i] for i in range(k))
        for p in itertools.permutations(range(k))
    )


def labelled_embeddings(h: nx.Graph, labels, edges, pl, induced: bool) -> int:
    """Embeddings of the pattern ``edges`` labelled ``pl`` (``None``: any label) in ``h``."""
    gm = isomorphism.GraphMatcher(
        nx.Graph(h), nx.Graph(edges), node_match=lambda d, p: p["l"] is None or d["l"] == p["l"]
    )
    nx.set_node_attributes(gm.G1, {v: int(labels[v]) for v in gm.G1}, "l")
    nx.set_node_attributes(gm.G2, {i: x for i, x in enumerate(pl)}, "l")
    gm.G1.remove_edges_from(nx.selfloop_edges(gm.G1))
    it = gm.subgraph_isomorphisms_iter() if induced else gm.subgraph_monomorphisms_iter()
    return sum(1 for _ in it)


def test_twins_of_several_labels_are_counted_as_networkx_finds_them(tmp_path):
    """Stars, K_{2,3} and the diamond whose interchangeable vertices (a star's leaves) carry
    different labels or wildcards: counted label by label (docs/mining.md, "Patterns"), listed
    by enumeration; both equal networkx's embeddings over the label-keeping automorphisms, on
    graphs with hubs, edge- and vertex-induced. At a hub of 3,000 leaves the counts are the
    products of binomials they must be."""
    rng = np.random.default_rng(11)
    patterns = [
        [(0, 1), (0, 2), (0, 3)],
        [(0, 1), (0, 2), (0, 3), (0, 4)],
        [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)],
        [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3)],
    ]
    n = 30
    with ocgraph.open(hub_graph(rng, tmp_path / "g", n)) as g:
        h = simple_view(g)
        labels = rng.integers(0, 3, n)
        for edges in patterns:
            k = max(max(e) for e in edges) + 1
            for _ in range(4):
                pl = [None if rng.random() < 0.3 else int(x) for x in rng.integers(0, 3, k)]
                for induced in (False, True):
                    want = labelled_embeddings(h, labels, edges, pl, induced) // label_keeping_automorphisms(
                        edges, pl
                    )
                    count = g.count_matches(edges, induced=induced, labels=labels, pattern_labels=pl)
                    rows = g.match(edges, induced=induced, labels=labels, pattern_labels=pl)
                    assert (count, len(rows)) == (want, want), (edges, pl, induced)
    leaves = 3000
    ocgraph.from_edges(
        np.zeros(leaves, int), np.arange(1, leaves + 1), tmp_path / "star", directed=False
    ).close()
    with ocgraph.open(tmp_path / "star") as g:
        labels = np.arange(leaves + 1) % 3
        by_label = [int(np.sum(labels[1:] == x)) for x in range(3)]
        c = math.comb
        cases = [
            ([0, 0, 0, None, None], c(by_label[0], 2) * c(leaves - 2, 2)),
            ([0, 1, 2, None, 0], by_label[1] * by_label[2] * by_label[0] * (leaves - 3)),
            ([None, 1, 1, 2, None], c(by_label[1], 2) * by_label[2] * (leaves - 3)),
        ]
        for pl, want in cases:
            assert g.count_matches("5-star", labels=labels, pattern_labels=pl) == want, pl


def test_wildcard_patterns_count_each_placement_of_the_labelled_positions(graphs):
    # docs/mining.md: with wildcards, a subgraph is reported once per way its vertices fill the
    # labelled and wildcard positions (a wildcard its own label), i.e. embeddings respecting
    # the labels over the automorphisms that keep each position's label.
    rng = np.random.default_rng(9)
    for path, h in graphs[1::2]:  # the undirected ones
        with ocgraph.open(path) as g:
            labels = rng.integers(0, 2, g.num_vertices)
            for edges, pl in [
                ([(0, 1), (1, 2), (2, 0)], [0, None, None]),
                ([(0, 1), (1, 2), (2, 0)], [0, None, 1]),
                ([(0, 1), (1, 2), (2, 3)], [1, None, None, 1]),
            ]:
                embeddings = labelled_embeddings(h, labels, edges, pl, induced=False)
                want = embeddings // label_keeping_automorphisms(edges, pl)
                assert g.count_matches(edges, labels=labels, pattern_labels=pl) == want
                assert len(g.match(edges, labels=labels, pattern_labels=pl)) == want
                # Wildcards as an Arrow array's nulls and a nullable Series' NA.
                for given in (pa.array(pl, pa.int64()), pd.array(pl, dtype="Int64")):
                    assert g.count_matches(edges, labels=labels, pattern_labels=given) == want
    # A bool is not a label (as in the data's labels).
    with ocgraph.open(graphs[1][0]) as g, pytest.raises(ocgraph.InvalidArgumentError, match="label False"):
        g.count_matches("triangle", labels=np.zeros(g.num_vertices, int), pattern_labels=[False, None, None])
    # A named pattern's all-wildcard labels must still have its vertex count.
    with (
        ocgraph.open(graphs[0][0]) as g,
        pytest.raises(ocgraph.InvalidArgumentError, match="3 vertices but 1"),
    ):
        g.count_matches("triangle", pattern_labels=[None])
