"""Durable updates from Python: after random update sequences, neighbours and every kernel equal
networkx on the same mutated graph, before and after freezing levels, compaction and reopening
(read-only and writable), on both backends."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import ocgraph
from conftest import BACKENDS, POOL_OPTS, random_edges, restamp

OCGRAPH_BIN = Path(
    os.environ.get("OCGRAPH_BIN", Path(__file__).resolve().parents[2] / "target" / "release" / "ocgraph")
)


def open_writable(path, backend: str, **kw) -> ocgraph.Graph:
    opts = dict(POOL_OPTS) if backend == "pool" else {"backend": "mmap"}
    return ocgraph.open(path, writable=True, **opts, **kw)


def mutate(g: ocgraph.Graph, h: nx.Graph, rng: np.random.Generator, steps: int) -> None:
    """Applies ``steps`` random update batches to ``g`` and the same changes to ``h``."""
    for _ in range(steps):
        n = g.num_vertices
        op = rng.integers(0, 10)
        if op < 5:
            k = int(rng.integers(1, 20))
            src, dst = rng.integers(0, n, k), rng.integers(0, n, k)
            if g.weighted:
                w = rng.integers(1, 9, k).astype(np.float32)
                g.add_edges(src, dst, w)
                h.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.astype(float).tolist()))
            else:
                g.add_edges(src, dst)
                h.add_edges_from(zip(src.tolist(), dst.tolist()))
        elif op < 8:
            edges = list(h.edges())
            if not edges:
                continue
            pick = rng.choice(len(edges), size=min(len(edges), int(rng.integers(1, 10))), replace=False)
            chosen = [edges[i] for i in pick]
            # Also some edges that do not exist: removing them is a no-op.
            chosen += [(int(rng.integers(0, n)), int(rng.integers(0, n))) for _ in range(2)]
            src = np.array([u for u, _ in chosen])
            dst = np.array([v for _, v in chosen])
            g.remove_edges(src, dst)
            h.remove_edges_from([(u, v) for u, v in chosen if h.has_edge(u, v)])
        elif op < 9:
            ids = g.add_vertices(int(rng.integers(1, 3)))
            h.add_nodes_from(ids.tolist())
        else:
            victims = rng.integers(0, n, 2)
            g.remove_vertices(victims)
            for v in victims.tolist():
                h.remove_edges_from(list(h.edges(v)))
                if h.is_directed():
                    h.remove_edges_from(list(h.in_edges(v)))


def check_equal(g: ocgraph.Graph, h: nx.Graph) -> None:
    """Neighbours, edge count and every kernel agree with networkx."""
    n = g.num_vertices
    assert n == h.number_of_nodes()
    assert g.num_edges == h.number_of_edges()
    for v in range(n):
        expect = sorted(h.successors(v)) if h.is_directed() else sorted(h.neighbors(v))
        assert g.neighbors(v).tolist() == expect, v
        if g.weighted:
            got = g.edge_weights(v).tolist()
            assert got == [h[v][u]["weight"] for u in expect], v
    depth = g.bfs(0)
    lengths = nx.single_source_shortest_path_length(h, 0)
    assert depth.tolist() == [lengths.get(v, -1) for v in range(n)]
    labels = g.wcc()
    comps = nx.weakly_connected_components(h) if h.is_directed() else nx.connected_components(h)
    for comp in comps:
        assert {int(labels[v]) for v in comp} == {min(comp)}
    pr = g.pagerank(tol=1e-10, max_iter=500)
    ref = nx.pagerank(h, tol=1e-10, max_iter=500, weight="weight" if g.weighted else None)
    assert np.abs(pr - np.array([ref[v] for v in range(n)])).sum() < 1e-6
    if not h.is_directed():
        simple = nx.Graph(h)
        simple.remove_edges_from(nx.selfloop_edges(simple))
        assert g.triangle_count() == sum(nx.triangles(simple).values()) // 3


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_updates_match_networkx(tmp_path, backend, directed, seed):
    rng = np.random.default_rng(seed)
    n = 40
    src, dst = rng.integers(0, n, 80), rng.integers(0, n, 80)
    path = tmp_path / "g"
    ocgraph.from_edges(src, dst, path, num_vertices=n, directed=directed, dedup=True).close()
    h = nx.DiGraph() if directed else nx.Graph()
    h.add_nodes_from(range(n))
    h.add_edges_from(zip(src.tolist(), dst.tolist()))

    g = open_writable(path, backend, durability="none", auto_compact_levels=None)
    mutate(g, h, rng, 30)
    check_equal(g, h)
    g.freeze()
    assert g.num_levels == 1
    mutate(g, h, rng, 30)
    g.freeze()
    mutate(g, h, rng, 10)
    check_equal(g, h)
    g.close()

    # Reopened read-only: the levels and the replayed log give the same graph.
    with ocgraph.open(path, backend=backend) as r:
        check_equal(r, h)
        assert r.num_levels == 2

    g = open_writable(path, backend)
    assert g.num_levels == 2
    check_equal(g, h)
    g.compact()
    assert g.num_levels == 0
    check_equal(g, h)
    mutate(g, h, rng, 10)
    check_equal(g, h)
    g.close()
    with ocgraph.open(path, backend=backend) as r:
        check_equal(r, h)
        assert r.num_levels == 0


def test_weighted_updates(tmp_path):
    rng = np.random.default_rng(7)
    n = 30
    src, dst = rng.integers(0, n, 60), rng.integers(0, n, 60)
    w = rng.integers(1, 9, 60).astype(np.float32)
    path = tmp_path / "g"
    ocgraph.from_edges(src, dst, path, num_vertices=n, weights=w, directed=True, dedup=True).close()
    h = nx.DiGraph()
    h.add_nodes_from(range(n))
    with ocgraph.open(path) as g0:
        for u in range(n):
            for v, x in zip(g0.neighbors(u).tolist(), g0.edge_weights(u).tolist()):
                h.add_edge(u, v, weight=x)
    with open_writable(path, "mmap") as g:
        mutate(g, h, rng, 40)
        u, v = next(iter(h.edges()))
        g.set_edge_weights([u], [v], [42.0])
        h[u][v]["weight"] = 42.0
        check_equal(g, h)
        dist = g.sssp(0)
        ref = nx.single_source_dijkstra_path_length(h, 0)
        assert dist.tolist() == [ref.get(v, np.inf) for v in range(g.num_vertices)]


@pytest.mark.parametrize("directed", [True, False])
def test_an_edge_given_twice_in_one_call_takes_the_last_weight(tmp_path, directed):
    # As the docstring of add_edges says; an undirected edge given as (0, 1) then (1, 0) too.
    path = tmp_path / "g"
    w0 = np.array([1.0], dtype=np.float32)
    ocgraph.from_edges([0], [1], path, weights=w0, directed=directed, num_vertices=4).close()
    with ocgraph.open(path, writable=True) as g:
        g.add_edges([2, 2, 2], [3, 3, 3], [4.0, 1.0, 6.0])
        g.add_edges([0, 1], [1, 0], [5.0, 7.0])
        expected = {2: [6.0], 0: [5.0] if directed else [7.0], 1: [7.0]}
        assert {u: g.edge_weights(u).tolist() for u in expected} == expected
        g.compact()
    with ocgraph.open(path) as g:
        assert {u: g.edge_weights(u).tolist() for u in expected} == expected


def test_snapshot_isolation_and_errors(tmp_path):
    path = tmp_path / "g"
    ocgraph.from_edges([0, 1], [1, 2], path, num_vertices=4).close()
    with ocgraph.open(path) as ro:
        with pytest.raises(ocgraph.InvalidArgumentError, match="read-only"):
            ro.add_edges([0], [3])
    with open_writable(path, "mmap") as g:
        with pytest.raises(ocgraph.VertexError):
            g.add_edges([0], [4])
        with pytest.raises(ocgraph.VertexError):
            g.remove_vertices([-1])
        with pytest.raises(ocgraph.InvalidArgumentError, match="give the vertices"):
            g.remove_vertices()
        # `add_vertices(n)` by the keyword n too; not with count as well.
        assert g.add_vertices(n=2).tolist() == [4, 5]
        with pytest.raises(ocgraph.InvalidArgumentError, match="count or n"):
            g.add_vertices(1, n=1)
        assert g.num_vertices == 6
        with pytest.raises(ocgraph.InvalidArgumentError, match="unweighted"):
            g.add_edges([0], [3], weights=[2.0])
        with pytest.raises(ocgraph.InvalidArgumentError):
            g.add_edges([0, 1], [3])
        # A read-only handle opened now sees the durable state as of now, not later updates.
        g.add_edges([2], [3])
        with ocgraph.open(path) as before:
            g.add_edges([3], [0])
            assert before.neighbors(3).tolist() == []
            assert g.neighbors(3).tolist() == [0]
            assert before.neighbors(2).tolist() == [3]
    with pytest.raises(ocgraph.InvalidArgumentError, match="closed"):
        g.add_edges([0], [1])
    with pytest.raises(ocgraph.InvalidArgumentError, match="durability"):
        ocgraph.open(path, writable=True, durability="sometimes")


def test_one_writer_at_a_time(tmp_path):
    path = tmp_path / "g"
    ocgraph.from_edges([0, 1], [1, 2], path, num_vertices=10).close()
    a = ocgraph.open(path, writable=True)
    a.add_edges([3], [4])
    with pytest.raises(ocgraph.InvalidArgumentError, match="already open for updates"):
        ocgraph.open(path, writable=True)
    if OCGRAPH_BIN.exists():  # another process is refused too (the CLI's update: `make cli`)
        edges = tmp_path / "e.txt"
        edges.write_text("2 9\n")
        cmd = [str(OCGRAPH_BIN), "update", str(path), "--add-edges", str(edges)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode != 0 and "already open for updates" in r.stderr, r.stderr
    with ocgraph.open(path) as reader:  # readers may open meanwhile
        assert reader.neighbors(3).tolist() == [4]
    # Layouts and labels are written beside the base: refused too while the writer has it.
    for change in (
        lambda: ocgraph.build_grid(path),
        lambda: ocgraph.compress(path),
        lambda: ocgraph.set_labels(path, np.zeros(10, dtype=np.uint32)),
        lambda: ocgraph.remove_labels(path),
    ):
        with pytest.raises(ocgraph.InvalidArgumentError, match="already open for updates"):
            change()
    a.add_edges([7], [8])
    a.close()
    with ocgraph.open(path, writable=True) as b:
        b.add_edges([5], [6])
    with ocgraph.open(path) as g:
        assert [g.neighbors(v).tolist() for v in (2, 3, 5, 7)] == [[], [4], [6], [8]]


def test_close_releases_the_writer_lock_while_another_thread_compacts_or_a_result_lives(tmp_path):
    """close() waits for a compaction another thread is running and releases the lock even
    while other handles live (it kept the lock until the compaction's thread returned)."""
    path = tmp_path / "g"
    rng = np.random.default_rng(3)
    ocgraph.from_edges(rng.integers(0, 20000, 200000), rng.integers(0, 20000, 200000), path).close()
    g = ocgraph.open(path, writable=True, durability="none")
    g.add_edges(rng.integers(0, 20000, 50000), rng.integers(0, 20000, 50000))
    m = g.maintain("wcc")

    def compact() -> None:
        try:
            g.compact()
        except ocgraph.InvalidArgumentError:
            pass  # closed before the compaction started

    t = threading.Thread(target=compact)
    t.start()
    g.close()
    with ocgraph.open(path, writable=True) as h:  # refused while the lock was kept
        h.add_edges([0], [1])
    t.join()
    with pytest.raises(ocgraph.InvalidArgumentError):
        g.add_edges([1], [2])
    del m
    with ocgraph.open(path) as r:
        assert 1 in r.neighbors(0).tolist()


def _fsyncs(tmp_path: Path, script: str, graph: Path, arg: str, path_substr: str) -> int:
    """Runs ``script`` (argv: ``graph``, ``arg``) under the fault shim and returns how many
    fsyncs it made of files whose path holds ``path_substr``; skips without a C compiler."""
    import shutil

    if shutil.which("cc") is None:
        pytest.skip("no C compiler for the fault shim")
    shim = tmp_path / "faultfs.so"
    if not shim.exists():
        src = Path(__file__).resolve().parents[1] / "faults" / "faultfs.c"
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(shim), str(src), "-ldl"], check=True)
    log = tmp_path / f"{arg}.log"
    env = dict(os.environ, LD_PRELOAD=str(shim), FAULT_OP="fsync", FAULT_NTH="0")
    env.update(FAULT_PATH_SUBSTR=path_substr, FAULT_LOG=str(log))
    subprocess.run([sys.executable, "-c", script, str(graph), arg], env=env, check=True)
    # The shim appends "count N" (the matching fsyncs) when the process exits.
    return int(log.read_text().split()[-1])


def test_update_calls_follow_the_durability_mode_unless_durable_is_given(tmp_path):
    """Each call fsynced the log whatever the mode (durable=True was the default); now
    durability="none" leaves it to the OS unless a call asks (counted with the fault shim)."""
    ocgraph.from_edges([0], [1], tmp_path / "g", num_vertices=100).close()
    script = (
        "import sys, ocgraph\n"
        "g = ocgraph.open(sys.argv[1], writable=True, durability='none')\n"
        "for v in range(2, 42):\n"
        "    g.add_edges([0], [v], durable=None if sys.argv[2] == 'mode' else True)\n"
        "g.close()\n"
    )
    assert _fsyncs(tmp_path, script, tmp_path / "g", "mode", "/wal/") <= 2  # the close's
    assert _fsyncs(tmp_path, script, tmp_path / "g", "durable", "/wal/") >= 40


def test_names_of_added_vertices_are_durable_before_a_sync_of_the_log(tmp_path):
    """Under durability="none" the id log (the names of vertices that updates add to a graph
    with original ids) was never fsynced, even by sync(), freeze() or close(), while the log and
    levels they wrote were: after a power loss the graph could name fewer vertices than it has,
    and would not open. Counted with the fault shim: each of those fsyncs the id log first."""
    ocgraph.from_pandas(pd.DataFrame({"src": ["a"], "dst": ["b"]}), tmp_path / "g").close()
    script = (
        "import sys, ocgraph\n"
        "g = ocgraph.open(sys.argv[1], writable=True, durability='none')\n"
        "for i in range(10):\n"
        "    g.add_edges(['a'], [sys.argv[2] + str(i)], ids='original')\n"
        "getattr(g, sys.argv[2])()\n"
        "g.close()\n"
    )
    for call in ("sync", "freeze"):
        # At least once, and not once per batch.
        assert 1 <= _fsyncs(tmp_path, script, tmp_path / "g", call, "ids.log") <= 2, call
    with ocgraph.open(tmp_path / "g") as g:
        assert g.num_vertices == 22 and g.original_id(21) == "freeze9"


def test_a_writer_after_a_crash_makes_what_it_replays_durable(tmp_path):
    """A writer opening after a crash under durability="none" replayed batches that may be in
    the page cache only, and its close, which fsynced nothing new, recorded them as durable: a
    power loss then left a graph no open accepted. The open now fsyncs the log's segments and
    the id log (counted with the fault shim)."""
    ocgraph.from_pandas(pd.DataFrame({"src": ["a"], "dst": ["b"]}), tmp_path / "g").close()
    crash = (
        "import os, sys, ocgraph\n"
        "g = ocgraph.open(sys.argv[1], writable=True, durability='none')\n"
        "for i in range(5):\n"
        "    g.add_edges(['a'], ['n' + str(i)], ids='original')\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", crash, str(tmp_path / "g")], check=True)
    reopen = "import sys, ocgraph\nocgraph.open(sys.argv[1], writable=True).close()\n"
    assert _fsyncs(tmp_path, reopen, tmp_path / "g", "wal", "/wal/0") >= 1
    assert _fsyncs(tmp_path, reopen, tmp_path / "g", "ids", "ids.log") >= 1
    with ocgraph.open(tmp_path / "g") as g:
        assert g.num_vertices == 7 and g.original_id(6) == "n4"


def test_a_writable_open_warns_when_it_drops_a_torn_tail_of_the_log(tmp_path):
    # A frame cut short after the batches the last writer closed with (what a crash leaves):
    # recovery drops it, as `ocgraph update` reports, and says so.
    ocgraph.from_edges([0], [1], tmp_path / "g", num_vertices=4).close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        g.add_edges([1], [2])
        g.add_edges([2], [3])
    (wal,) = sorted(p for p in (tmp_path / "g" / "wal").iterdir() if p.stat().st_size > 0)
    closed = wal.read_bytes()
    frame = 24 + 13 + 4  # a batch of one edge
    wal.write_bytes(closed + closed[-frame:-1])
    with pytest.warns(RuntimeWarning, match=r"dropped a torn tail of \d+ bytes from .*wal"):
        g = ocgraph.open(tmp_path / "g", writable=True)
    assert g.to_networkx().edges == nx.DiGraph([(0, 1), (1, 2), (2, 3)]).edges
    g.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ocgraph.open(tmp_path / "g", writable=True).close()  # nothing dropped this time
    # A closed batch was acknowledged as durable: damaged, it is refused, not dropped.
    wal.write_bytes(closed[:-1] + bytes([closed[-1] ^ 0xFF]))
    for writable in (True, False):
        with pytest.raises(ocgraph.FormatError, match="batch 2 was durable when the graph was last closed"):
            ocgraph.open(tmp_path / "g", writable=writable)


def _exit_code_of_child(pid: int, hung: str) -> int:
    """The exit code of the forked child ``pid``; kills it and fails with ``hung`` after 30 s."""
    for _ in range(300):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.1)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail(hung)


def test_a_forked_child_cannot_update_through_the_parents_handle(tmp_path):
    """Parent and child shared the lock and the log: both batches were acknowledged and the
    child's were silently lost."""
    ocgraph.from_edges([0], [1], tmp_path / "g", num_vertices=10).close()
    g = ocgraph.open(tmp_path / "g", writable=True)
    pid = os.fork()
    if pid == 0:
        try:
            g.add_edges([4], [7])
            os._exit(1)
        except ocgraph.InvalidArgumentError as e:
            os._exit(0 if "forked child" in str(e) else 2)
        except BaseException:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # Its kernels run (on threads of its own: it hung forever on the parent's pool); a result
    # the parent maintains in the background is refused there (its thread is not in the child).
    want = g.bfs(0).tolist()
    m = g.maintain("wcc", background=True)
    pid = os.fork()
    if pid == 0:
        try:
            m.result()
            os._exit(4)
        except ocgraph.InvalidArgumentError as e:
            if "forked child" not in str(e):
                os._exit(5)
        os._exit(0 if g.bfs(0).tolist() == want and g.wcc().tolist() == g.wcc(threads=1).tolist() else 1)
    assert _exit_code_of_child(pid, "the forked child's kernel hung") == 0
    # The child stops the result and closes its copy of the handle cleanly: joining the
    # parent's maintaining thread there raised a Rust panic (a BaseException), and a background
    # compaction's thread made close() fail as an I/O error.
    g.add_edges(np.arange(10) % 10, (np.arange(10) * 3 + 1) % 10)
    g.compact()
    pid = os.fork()
    if pid == 0:
        try:
            m.stop()
            g.close()
            os._exit(0)
        except Exception:
            os._exit(6)
        except BaseException:
            os._exit(7)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    m.stop()
    g.add_edges([4], [8])
    g.close()
    with ocgraph.open(tmp_path / "g") as r:
        assert 8 in r.neighbors(4).tolist()


def test_a_forked_child_does_not_keep_the_writer_lock_after_the_parent_closes(tmp_path):
    """The lock belongs to the open file, which the child's copy of the descriptor kept: every
    later writer was refused until the child exited."""
    ocgraph.from_edges([0], [1], tmp_path / "g", num_vertices=10).close()
    g = ocgraph.open(tmp_path / "g", writable=True)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(write)
        os.read(read, 1)  # until the parent has checked
        os._exit(0)
    os.close(read)
    try:
        g.close()
        with ocgraph.open(tmp_path / "g", writable=True) as again:
            again.add_edges([2], [3])
    finally:
        os.close(write)
        os.waitpid(pid, 0)
    with ocgraph.open(tmp_path / "g") as r:
        assert r.neighbors(2).tolist() == [3]


def test_a_forked_child_neither_saves_nor_syncs_the_parents_writer(tmp_path):
    """Forked while a parent thread was inside a batch's log sync, a child's save() or close()
    waited forever for that sync (its thread is not in the child)."""
    rng = np.random.default_rng(0)
    ocgraph.from_edges(
        rng.integers(0, 200, 800), rng.integers(0, 200, 800), tmp_path / "g", num_vertices=200
    ).close()
    g = ocgraph.open(tmp_path / "g", writable=True)
    m = g.maintain("bfs", source=0)
    stop = threading.Event()

    def update():
        i = 0
        while not stop.is_set():
            g.add_edges([i % 200], [(i * 7) % 200])
            i += 1

    t = threading.Thread(target=update)
    t.start()
    try:
        for _ in range(3):
            time.sleep(0.05)
            pid = os.fork()
            if pid == 0:
                try:
                    m.save()
                    os._exit(1)
                except ocgraph.InvalidArgumentError as e:
                    if "forked child" not in str(e):
                        os._exit(2)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    g.close()
                os._exit(0)
            assert _exit_code_of_child(pid, "the forked child hung") == 0
    finally:
        stop.set()
        t.join()
    assert os.path.exists(m.save())
    g.close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("directed", [False, True])
def test_a_multigraph_base_updates_as_a_simple_graph(tmp_path, backend, directed):
    """Imported without dedup, an edge held twice is one edge once the graph is writable:
    removing it removes every copy, adding it again keeps one, neighbours list it once."""
    rng = np.random.default_rng(11)
    n = 30
    src, dst, _ = random_edges(rng, n, 120)
    # Every edge twice (the second copy reversed on undirected graphs).
    s2, d2 = (src, dst) if directed else (dst, src)
    path = tmp_path / "g"
    ocgraph.from_edges(np.r_[src, s2], np.r_[dst, d2], path, num_vertices=n, directed=directed).close()
    h = nx.DiGraph() if directed else nx.Graph()
    h.add_nodes_from(range(n))
    h.add_edges_from(zip(src.tolist(), dst.tolist()))
    with open_writable(path, backend) as g:
        doomed = list(h.edges())[::3]
        g.remove_edges([u for u, _ in doomed], [v for _, v in doomed])
        h.remove_edges_from(doomed)
        again = list(h.edges())[::4]
        g.add_edges([u for u, _ in again], [v for _, v in again])
        # The ids of `remove_vertices(ids)` may be given by that name too.
        g.remove_vertices(ids=[0])
        h.remove_edges_from(list(h.in_edges(0) if directed else h.edges(0)))
        if directed:
            h.remove_edges_from(list(h.out_edges(0)))
        for v in range(n):
            ref = sorted(h.successors(v)) if directed else sorted(h.neighbors(v))
            assert g.neighbors(v).tolist() == ref, f"vertex {v}"
        assert g.num_edges == h.number_of_edges()
        dist = nx.single_source_shortest_path_length(h, 1)
        assert g.bfs(1).tolist() == [dist.get(v, -1) for v in range(n)]


@pytest.mark.parametrize("directed", [False, True])
def test_compacting_a_multigraph_without_updates_writes_it_simple(tmp_path, directed):
    """Compaction writes a multigraph base simple even when no batch is pending, so a reader
    opening it afterwards sees each edge once."""
    path = tmp_path / "g"
    ocgraph.from_edges([0, 0, 1, 2], [1, 1, 2, 2], path, num_vertices=3, directed=directed).close()
    h = nx.DiGraph() if directed else nx.Graph()
    h.add_edges_from([(0, 1), (1, 2), (2, 2)])
    with ocgraph.open(path, writable=True) as g:
        g.compact()
    with ocgraph.open(path) as ro:
        assert ro.num_edges == h.number_of_edges()
        for v in range(3):
            ref = sorted(h.successors(v)) if directed else sorted(h.neighbors(v))
            assert ro.neighbors(v).tolist() == ref, f"vertex {v}"


@pytest.mark.parametrize(
    ("call", "batch"),
    [
        (lambda g: g.add_edges([], []), False),
        (lambda g: g.remove_edges(["x"], ["y"], ids="original"), False),
        (lambda g: g.set_edge_weights(["x"], ["a"], [1.0], ids="original"), False),
        (lambda g: g.add_vertices(ids=["a"]), False),
        (lambda g: g.remove_vertices([], ids="original"), False),
        (lambda g: g.remove_edges(["c"], ["a"], ids="original"), True),
        (lambda g: g.set_edge_weights(["c"], ["a"], [1.0], ids="original"), True),
        (lambda g: g.add_vertices(ids=["z"]), True),
        (lambda g: g.add_vertices(0), False),
    ],
)
def test_which_calls_that_change_nothing_are_batches(tmp_path, call, batch):
    """As the guide says: a call that changes nothing but writes an item (a missing edge, a
    known name) is a batch, after which a reader sees the repeated edges of a base imported
    without dedup once; one that leaves nothing to write (no items, only unknown names to
    remove or reweigh, only known names to add) is none, and the reader still sees them."""
    path = tmp_path / "g"
    df = pd.DataFrame({"src": ["a", "a", "b"], "dst": ["b", "b", "c"], "w": [2.0, 1.0, 3.0]})
    ocgraph.from_pandas(df, path, weight="w").close()
    with ocgraph.open(path, writable=True) as g:
        assert g.num_edges == 2
        call(g)
    with ocgraph.open(path) as ro:
        assert ro.num_edges == (2 if batch else 3)


def test_updates_by_original_string_ids(tmp_path):
    """A graph imported with string ids takes updates by those ids; new ids get new vertices."""
    edges = tmp_path / "people.txt"
    edges.write_text("alice bob\nbob carol\n")
    path = tmp_path / "g"
    ocgraph.import_edges(edges, path, undirected=True, relabel="first-seen").close()
    h = nx.Graph([("alice", "bob"), ("bob", "carol")])
    with ocgraph.open(path, writable=True) as g:
        g.add_edges(["alice", "dave"], ["dave", "erin"], ids="original")
        h.add_edges_from([("alice", "dave"), ("dave", "erin")])
        g.remove_edges(["bob"], ["alice"], ids="original")
        h.remove_edge("alice", "bob")
        assert g.num_vertices == 5
        new = g.add_vertices(ids=["frank", "bob"])
        h.add_node("frank")
        assert g.original_id(int(new[0])) == "frank"
        assert int(new[1]) == g.vertex("bob")
        with pytest.raises(ocgraph.InvalidArgumentError, match="original ids"):
            g.add_vertices(1)
        with pytest.raises(ocgraph.InvalidArgumentError, match="nobody"):
            g.remove_vertices(["nobody"], ids="original")
        # An empty id is refused, as the importers refuse it, and the batch changes nothing.
        with pytest.raises(ocgraph.InvalidArgumentError, match="empty string"):
            g.add_edges(["alice"], [""], ids="original")
        with pytest.raises(ocgraph.InvalidArgumentError, match="empty string"):
            g.add_vertices(ids=["gina", ""])
        assert g.num_vertices == 6 and g.vertex("gina") is None
        # The ids log keeps ids of up to 1 MiB: one byte more is refused (the batch changes
        # nothing), and an id of exactly 1 MiB is there after the reopen below.
        with pytest.raises(ocgraph.InvalidArgumentError, match="at most 1048576 bytes"):
            g.add_edges(["alice"], ["h" * ((1 << 20) + 1)], ids="original")
        longest = "l" * (1 << 20)
        g.add_vertices(ids=[longest])
        h.add_node(longest)
        # A list given as `ids` names vertices by original id, as in add_vertices(ids=...).
        g.remove_vertices(ids=["erin"])
        h.remove_edges_from(list(h.edges("erin")))

        def named(graph: ocgraph.Graph) -> set:
            out = set()
            for v in range(graph.num_vertices):
                for u in graph.neighbors(v).tolist():
                    out.add(frozenset((graph.original_id(v), graph.original_id(u))))
            return out

        assert named(g) == {frozenset(e) for e in h.edges()}
        assert sorted(g.original_ids()) == sorted(h.nodes())
    # Read-only, after reopening: the same names and edges.
    with ocgraph.open(path) as ro:
        assert ro.vertex("erin") == 4
        assert named(ro) == {frozenset(e) for e in h.edges()}
        assert sorted(ro.original_ids()) == sorted(h.nodes())


def test_compaction_records_the_weight_range_sssp_trusts(tmp_path):
    """SSSP reads the weight range a base records instead of scanning the weights, so a
    compacted base with a negative weight (even one no search reaches) must record none, and one
    whose weights are all non-negative the right range; `ocgraph check` compares the two."""
    inf = float("inf")
    path = tmp_path / "g"
    ocgraph.from_edges(
        [0, 1, 3], [1, 2, 4], path, num_vertices=5, weights=[0.0, 2.5, 1.0], directed=True
    ).close()
    with open_writable(path, "mmap") as g:
        assert g.sssp(0).tolist() == [0.0, 0.0, 2.5, inf, inf]
        g.add_edges([3], [2], weights=[-1.0])  # not reachable from 0
        g.compact()
        with pytest.raises(ocgraph.InvalidArgumentError, match="arc 3 -> 2"):
            g.sssp(0)
        g.set_edge_weights([3], [2], [7.0])
        g.compact()
    with ocgraph.open(path) as g:
        assert g.sssp(3).tolist() == [inf, inf, 7.0, 0.0, 1.0]
        h = nx.DiGraph()
        h.add_weighted_edges_from([(0, 1, 0.0), (1, 2, 2.5), (3, 4, 1.0), (3, 2, 7.0)])
        ref = nx.single_source_dijkstra_path_length(h, 0)
        assert g.sssp(0).tolist() == [ref.get(v, inf) for v in range(5)]
    if OCGRAPH_BIN.exists():
        run = lambda *a: subprocess.run([str(OCGRAPH_BIN), *a], capture_output=True, text=True, check=True)  # noqa: E731
        run("check", str(path))
        info = json.loads(run("info", str(path), "--json").stdout)
        assert info["weight_range"] == {"min_positive": 1.0, "max": 7.0, "whole": False}


def test_a_reader_keeps_its_ids_and_labels_after_writers_replace_them(tmp_path):
    """A reader reads the id map and labels of the snapshot it opened, even after a writer
    compacted (deleting that snapshot's base) or replaced the labels."""
    import pandas as pd

    p = tmp_path / "g"
    ocgraph.from_pandas(pd.DataFrame({"src": ["ann", "bob"], "dst": ["bob", "cat"]}), p).close()
    ocgraph.set_labels(p, [0, 1, 2])
    w = ocgraph.open(p, writable=True)
    w.add_edges(["cat"], ["ann"], ids="original")
    w.compact()
    r = ocgraph.open(p)
    w.add_edges(["dan"], ["bob"], ids="original")
    w.compact()
    w.close()
    ocgraph.set_labels(p, [7, 7, 7, 7])
    assert list(r.original_ids()) == ["ann", "bob", "cat"]
    assert r.vertex("cat") == 2
    assert r.vertex_labels().tolist() == [0, 1, 2]
    assert ocgraph.open(p).vertex_labels().tolist() == [7, 7, 7, 7]


def test_a_graph_opened_by_a_relative_path_stays_that_graph_after_a_chdir(tmp_path, monkeypatch):
    """Freeze, compact and close write to the graph opened, whatever the working directory
    becomes; a graph of the same relative name elsewhere is untouched."""
    (tmp_path / "A").mkdir()
    (tmp_path / "B").mkdir()
    monkeypatch.chdir(tmp_path / "B")
    ocgraph.from_edges([5, 6], [6, 7], "g", num_vertices=8).close()
    monkeypatch.chdir(tmp_path / "A")
    ocgraph.from_edges([0, 1], [1, 2], "g", num_vertices=4).close()
    w = ocgraph.open("g", writable=True)
    w.add_edges([2], [3])
    monkeypatch.chdir(tmp_path / "B")
    w.freeze()
    w.add_edges([3], [1])
    w.compact()
    w.close()
    a = ocgraph.open(tmp_path / "A" / "g").to_pandas().values.tolist()
    b = ocgraph.open(tmp_path / "B" / "g").to_pandas().values.tolist()
    assert sorted(a) == [[0, 1], [1, 2], [2, 3], [3, 1]]
    assert sorted(b) == [[5, 6], [6, 7]]


def test_integer_ids_on_a_graph_of_string_ids_are_refused(tmp_path):
    import pandas as pd

    p = tmp_path / "g"
    ocgraph.from_pandas(pd.DataFrame({"src": ["a"], "dst": ["b"]}), p).close()
    with ocgraph.open(p, writable=True) as w:
        with pytest.raises(ocgraph.InvalidArgumentError, match="integer id 5 on a graph of string ids"):
            w.add_edges([5], ["a"], ids="original")
        assert w.vertex(5) is None
        assert w.num_vertices == 2
    # Read-only, the same: ids are all strings, "1" is not 1.
    ocgraph.from_pandas(pd.DataFrame({"src": ["a", "1"], "dst": ["1", "007"]}), tmp_path / "h").close()
    with ocgraph.open(tmp_path / "h") as r:
        assert (r.vertex("1"), r.vertex("007"), r.vertex(1), r.vertex(7)) == (1, 2, None, None)
    with ocgraph.open(tmp_path / "h", writable=True) as w:
        assert (w.vertex("1"), w.vertex(1)) == (1, None)


def test_single_updates_take_lone_ids(tmp_path):
    """One edge or vertex at a time: a lone id (and weight) is a batch of one."""
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", weights=[1.0, 2.0], directed=False).close()
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        g.add_vertices(1)
        g.add_edges(2, 3, 4.5)
        assert g.neighbors(3).tolist() == [2] and g.edge_weights(3).tolist() == [4.5]
        g.set_edge_weights(0, 1, 7.0)
        assert g.edge_weights(0).tolist() == [7.0]
        g.remove_edges(1, 2)
        assert g.neighbors(1).tolist() == [0]
        g.remove_vertices(3)
        assert g.neighbors(2).tolist() == []
        g.set_vertex_labels(0, 5)
        assert g.vertex_labels()[0] == 5
        with pytest.raises(ocgraph.InvalidArgumentError, match="integers"):
            g.add_edges("a", 1)


def test_a_reader_keeps_its_original_ids_when_the_writer_compacts(tmp_path):
    (tmp_path / "n.txt").write_text("ann bob\nbob cat\n")
    ocgraph.import_edges(tmp_path / "n.txt", tmp_path / "g").close()
    with ocgraph.open(tmp_path / "g", writable=True) as w:
        w.add_edges(["cat"], ["dan"], ids="original")
        r = ocgraph.open(tmp_path / "g")
        w.compact()  # rewrites ids.log for the new base, which names dan
        w.add_edges(["eve"], ["ann"], ids="original")
        assert r.num_vertices == 4
        assert list(r.original_ids()) == ["ann", "bob", "cat", "dan"]
        assert (r.original_id(3), r.vertex("dan")) == ("dan", 3)
        assert sorted(map(tuple, r.to_pandas().values.tolist())) == [
            ("ann", "bob"),
            ("bob", "cat"),
            ("cat", "dan"),
        ]
        r.close()


def test_check_verifies_the_files_copies_and_updates_of_a_graph(tmp_path):
    path = tmp_path / "g"
    ocgraph.from_edges([0, 1, 2], [1, 2, 3], path, num_vertices=5).close()
    ocgraph.pack_lists(path)
    raw = (path / "manifest").read_bytes()
    (length,) = struct.unpack_from("<I", raw, 12)
    listed = json.loads(raw[24 : 24 + length])["files"]
    r = ocgraph.check(path)
    assert (r["files"], r["bytes"]) == (len(listed), sum((path / f).stat().st_size for f in listed))
    assert (r["levels"], r["seq"], r["torn_tail"], r["removed"]) == (None, None, None, [])
    # A killed writer's temporary directory beside the graph (its process, pid 2^22 + 1, gone).
    stale = tmp_path / ".g.tmp-4194305-abc"
    stale.mkdir()
    (stale / "out.offsets").write_bytes(b"x" * 10)
    assert ocgraph.check(path)["removed"] == [stale] and not stale.exists()
    with ocgraph.open(path, writable=True) as g:
        g.add_edges([3], [4])
        g.add_edges([4], [0])
    r = ocgraph.check(path)
    assert (r["levels"], r["seq"], r["torn_tail"]) == (0, 2, None)
    (wal,) = sorted(p for p in (path / "wal").iterdir() if p.stat().st_size > 0)
    closed = wal.read_bytes()
    wal.write_bytes(closed + closed[-10:])  # the start of a frame cut short
    r = ocgraph.check(path)
    assert r["seq"] == 2 and f"{wal} ends at offset {len(closed)}" in r["torn_tail"]
    wal.write_bytes(closed)
    # A copy written wrong: its checksum matches its bytes; its lists do not match the lists.
    packed = bytearray((path / "out.packed").read_bytes())
    packed[1] ^= 0x04  # vertex 0's list: [1] -> [3] (docs/design.md, packed lists)
    (path / "out.packed").write_bytes(bytes(packed))
    restamp(path, "out.packed")
    with pytest.raises(ocgraph.FormatError, match=r"out\.packed.*differs from its list in out\.neighbors"):
        ocgraph.check(path)


def test_a_compacted_graph_keeps_its_batch_numbers_and_its_base_manifest_is_checked(tmp_path):
    """`check` said a compacted graph had no updates (`seq` None) though its next batch
    continues the log; and a damaged byte in the compacted base's own manifest opened, to be
    found only by `check`. The check now reports the batch the base holds, and every open
    refuses the damaged base manifest, naming it."""
    path = tmp_path / "g"
    ocgraph.from_edges([0, 1, 2], [1, 2, 3], path, num_vertices=5).close()
    with ocgraph.open(path, writable=True) as g:
        g.add_edges([3], [4])
        g.add_edges([4], [0])
        g.compact()
    r = ocgraph.check(path)
    assert (r["levels"], r["seq"], r["torn_tail"]) == (0, 2, None)
    with ocgraph.open(path, writable=True) as g:
        assert g.add_edges([0], [3]) == 3  # the next batch follows the folded ones
    (base,) = path.glob("base.*")
    raw = bytearray((base / "manifest").read_bytes())
    raw[-3] ^= 0x01  # a byte of its JSON body
    (base / "manifest").write_bytes(bytes(raw))
    for opening in (
        lambda: ocgraph.open(path),
        lambda: ocgraph.open(path, writable=True),
        lambda: ocgraph.check(path),
    ):
        with pytest.raises(ocgraph.FormatError, match=rf"{base.name}/manifest"):
            opening()
