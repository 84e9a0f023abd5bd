"""Online queries (ocgraph.workload + Graph.query) against networkx on small random graphs:
answers are identical with every prefetcher and 1 or 3 clients, on mmap and a tiny pool."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest

import ocgraph
from conftest import BACKENDS, open_with, random_edges

MODES = ["none", "neighbourhood", "sequential", "omniscient"]


@pytest.fixture(scope="module", params=[True, False], ids=["directed", "undirected"])
def graph(request, tmp_path_factory):
    """A random simple graph with a hub whose list spans pages: (path, networkx graph)."""
    directed = request.param
    rng = np.random.default_rng(11 if directed else 12)
    n = 3000
    src, dst, _ = random_edges(rng, n, 9000)
    hub = np.full(2500, 7)
    src, dst = np.concatenate([src, hub]), np.concatenate([dst, rng.integers(0, n, size=2500)])
    path = tmp_path_factory.mktemp("q") / "g"
    g = ocgraph.from_edges(
        src, dst, path, num_vertices=n, directed=directed, dedup=True, drop_self_loops=True
    )
    h = g.to_networkx()
    g.close()
    return path, h


def workloads(g, tmp_path):
    out = {}
    for kind, count, extra in [
        ("edge-queries", 300, {"alpha": 0.3, "queue": 50}),
        ("fof", 40, {}),
        ("shortest-path", 20, {}),
    ]:
        f = tmp_path / f"{kind}.bin"
        assert ocgraph.workload(g, kind, f, count, seed=4, **extra) == count
        out[kind] = f
    return out


def reference(h: nx.Graph, kind: str, q: list[int]):
    if kind == "edge-queries":
        return sorted(h.successors(q[0]) if h.is_directed() else h.neighbors(q[0]))
    if kind == "fof":
        d = nx.single_source_shortest_path_length(h, q[0], cutoff=2)
        return sorted(v for v, k in d.items() if k == 2)
    try:
        return nx.shortest_path_length(h, q[0], q[1])
    except nx.NetworkXNoPath:
        return None


def queries_of(path, kind):
    """The queries of a workload file, parsed independently (64-byte header, u32 payload)."""
    b = path.read_bytes()
    assert b[:8] == b"OCGQRY01"
    count = int.from_bytes(b[16:24], "little")
    arity = int.from_bytes(b[56:60], "little")
    v = np.frombuffer(b[64:], dtype="<u4")
    assert len(v) == count * arity
    return v.reshape(count, arity).tolist()


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "packed"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_answers_match_networkx_with_every_prefetcher(graph, backend, packed, tmp_path):
    path, h = graph
    if packed:
        ocgraph.pack(path, tmp_path / "packed").close()
        path = tmp_path / "packed"
    with open_with(path, backend) as g:
        files = workloads(g, tmp_path)
        for kind, f in files.items():
            qs = queries_of(f, kind)
            first = None
            for mode in MODES:
                for clients in (1, 3):
                    r = g.query(f, prefetch=mode, clients=clients)
                    assert r["queries"] == len(qs) and r["prefetch"] == mode
                    assert r["latency"]["p50_us"] <= r["latency"]["max_us"]
                    answers = r["answers"]
                    if first is None:
                        first = answers
                        for q, a in zip(qs, answers):
                            want = reference(h, kind, q)
                            if kind == "shortest-path":
                                if want is None:
                                    assert a is None, q
                                else:
                                    assert a[0] == q[0] and a[-1] == q[1] and len(a) == want + 1, q
                                    assert all(h.has_edge(x, y) for x, y in zip(a, a[1:])), q
                            else:
                                assert a == want, (kind, q)
                    else:
                        assert answers == first, (kind, mode, clients)
            # A memory budget only changes what the neighbourhood prefetcher counts.
            r = g.query(f, prefetch="neighbourhood", memory="64KB")
            assert r["answers"] == first, kind


def test_a_query_report_holds_the_io_of_its_run(graph, tmp_path):
    path, _ = graph
    with ocgraph.open(path, backend="pool", memory="64KiB") as g:
        f = tmp_path / "q.bin"
        ocgraph.workload(g, "edge-queries", f, 300, seed=2)
        start = g.io_stats()["page_requests"]
        runs = [g.query(f)["io"] for _ in range(2)]
        for io in runs:
            assert io["page_requests"] > 0 and io["hits"] + io["misses"] == io["page_requests"]
            assert io["hit_ratio"] == io["hits"] / io["page_requests"]
        assert sum(io["page_requests"] for io in runs) == g.io_stats()["page_requests"] - start


def _neighbour_file_advice(path) -> set[str]:
    """The read-ahead flags (`sr` sequential, `rr` random) the kernel shows for this process's
    mappings of the graph's neighbour files (an empty set: normal)."""
    flags, name = set(), None
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5 and ":" in head[3]:
                name = head[5] if len(head) > 5 else None
            elif line.startswith("VmFlags") and name and name.startswith(f"{path}/"):
                if name.endswith("neighbors"):
                    flags |= {f for f in head[1:] if f in ("sr", "rr")}
    return flags


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="needs Linux's smaps")
@pytest.mark.parametrize("advice,flag", [("sequential", "sr"), ("random", "rr")])
def test_a_query_keeps_the_advice_the_graph_was_opened_with(graph, advice, flag, tmp_path):
    path, _ = graph
    with ocgraph.open(path, advice=advice) as g:
        f = tmp_path / "q.bin"
        ocgraph.workload(g, "edge-queries", f, 50, seed=3)
        g.neighbors(0)
        assert _neighbour_file_advice(path) == {flag}
        g.query(f)
        assert _neighbour_file_advice(path) == {flag}
    with ocgraph.open(path) as g:
        g.neighbors(0)
        g.query(f)
        # Without an advice of its own, the run advises random reads and then restores normal.
        assert _neighbour_file_advice(path) == set()


def test_workloads_are_seeded_and_recent(graph, tmp_path):
    path, h = graph
    with ocgraph.open(path) as g:
        a, b = tmp_path / "a.bin", tmp_path / "b.bin"
        ocgraph.workload(g, "edge-queries", a, 500, seed=9, alpha=0.0, queue=20)
        ocgraph.workload(g, "edge-queries", b, 500, seed=9, alpha=0.0, queue=20)
        assert a.read_bytes() == b.read_bytes()
        # A graph directory serves as well as an open graph.
        c = tmp_path / "c.bin"
        ocgraph.workload(path, "edge-queries", c, 500, seed=9, alpha=0.0, queue=20)
        assert c.read_bytes() == a.read_bytes()
        # alpha = 0: after the first, every query is a recently seen vertex, so it is the
        # previous query or within a few hops of it.
        qs = [q[0] for q in queries_of(a, "edge-queries")]
        und = h.to_undirected()
        for x, y in zip(qs, qs[1:]):
            assert nx.has_path(und, x, y)
        with pytest.raises(ocgraph.InvalidArgumentError):
            ocgraph.workload(g, "nope", a, 5)
        with pytest.raises(ocgraph.InvalidArgumentError):
            g.query(a, prefetch="psychic")
        with pytest.raises(ocgraph.InvalidArgumentError):
            g.query(a, memory="lots")
        (tmp_path / "bad.bin").write_bytes(b"short")
        with pytest.raises(ocgraph.Error):
            g.query(tmp_path / "bad.bin")


def test_queries_on_a_writable_graph_without_pending_updates(tmp_path):
    # A writable graph reads its base until it has updates, and again once compacted.
    rng = np.random.default_rng(3)
    src, dst, _ = random_edges(rng, 40, 120)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=40, dedup=True).close()
    wl = tmp_path / "q.bin"
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        assert ocgraph.workload(g, "fof", wl, 20, seed=2) == 20
        first = g.query(wl)["answers"]
        g.add_edges([0], [39])
        with pytest.raises(ocgraph.InvalidArgumentError, match="compact"):
            g.query(wl)
        g.compact()
        h = nx.DiGraph()
        h.add_nodes_from(range(40))
        h.add_edges_from(zip(src.tolist(), dst.tolist()))
        h.add_edge(0, 39)
        for (v,), got in zip(queries_of(wl, "fof"), g.query(wl)["answers"]):
            one = set(h.successors(v))
            two = {y for x in one for y in h.successors(x)} - one - {v}
            assert got == sorted(two)
    assert len(first) == 20


@pytest.mark.parametrize("prefetch", ["none", "sequential", "neighbourhood", "omniscient"])
def test_a_read_error_in_a_query_raises_the_files_error(tmp_path, prefetch):
    """A client thread's failed read hung the call for good with a prefetcher that runs until
    told to stop (`sequential`, `neighbourhood`), and was an internal error with the others."""
    path = tmp_path / "g"
    ocgraph.generate("kronecker", path, scale=12, edge_factor=16, dedup=True).close()
    ocgraph.workload(path, "fof", tmp_path / "w.bin", 100)
    g = ocgraph.open(path, backend="pool", memory="512KiB")
    lists = path / "out.neighbors"
    os.truncate(lists, os.path.getsize(lists) // 2)  # damaged after the open
    with pytest.raises(ocgraph.OcgraphIOError, match=r"out\.neighbors"):
        g.query(tmp_path / "w.bin", prefetch=prefetch)
