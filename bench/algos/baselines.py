#!/usr/bin/env python3
"""Baseline kernels for bench/algos/run.py: python-igraph, networkx and scipy on one edge list.

Usage: baselines.py SYSTEM EDGE_FILE N DIRECTED WEIGHTED SOURCE KERNELS TRIALS

SYSTEM is igraph, networkx or scipy; EDGE_FILE has one `src dst [weight]` line per edge with
ids in 0..N (as written by `ocgraph export`); KERNELS is a comma-separated subset of
bfs,pr,pr20,cc,sssp,tc. Loads the graph once (timed), then runs each kernel TRIALS times and
prints one JSON object per line: {"kernel", "secs" (best trial), "mean", "load_secs", "note"}.
A kernel the system does not offer prints {"kernel", "skip": reason}.
Runs inside whatever Python has the libraries (run.py picks a venv).
"""

import json
import sys
import time


def timed(fn, trials):
    times = []
    result = None
    for _ in range(trials):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), sum(times) / len(times), result


def emit(**kw):
    print(json.dumps(kw), flush=True)


def run_igraph(path, n, directed, weighted, source, kernels, trials):
    import igraph as ig

    t = time.perf_counter()
    edges, weights = [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            edges.append((int(p[0]), int(p[1])))
            if weighted:
                weights.append(float(p[2]))
    g = ig.Graph(n=n, edges=edges, directed=directed)
    if weighted:
        g.es["weight"] = weights
    del edges, weights
    load = time.perf_counter() - t
    mode = "out" if directed else "all"
    for k in kernels:
        if k == "bfs":
            r = timed(lambda: g.bfs(source, mode=mode), trials)
        elif k == "pr":
            r = timed(lambda: g.pagerank(damping=0.85), trials)
        elif k == "cc":
            r = timed(lambda: g.connected_components(mode="weak"), trials)
        elif k == "sssp":
            w = "weight" if weighted else None
            r = timed(lambda w=w: g.distances(source=source, weights=w, mode=mode), trials)
        elif k == "tc":
            u = g if not directed else g.as_undirected()
            r = timed(lambda u=u: len(u.list_triangles()), trials)
        else:
            emit(kernel=k, skip="not offered by igraph (PRPACK solves PageRank exactly)")
            continue
        emit(kernel=k, secs=r[0], mean=r[1], load_secs=load, note="")


def run_networkx(path, n, directed, weighted, source, kernels, trials):
    import networkx as nx

    t = time.perf_counter()
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    with open(path) as f:
        if weighted:
            g.add_weighted_edges_from((int(a), int(b), float(w)) for a, b, w in (ln.split()[:3] for ln in f))
        else:
            g.add_edges_from((int(a), int(b)) for a, b in (ln.split()[:2] for ln in f))
    load = time.perf_counter() - t
    for k in kernels:
        if k == "bfs":
            r = timed(lambda: nx.single_source_shortest_path_length(g, source), trials)
        elif k == "pr":
            r = timed(lambda: nx.pagerank(g, alpha=0.85, tol=1e-4 / n, max_iter=1000), trials)
        elif k == "pr20":

            def pr20():
                try:
                    return nx.pagerank(g, alpha=0.85, tol=0.0, max_iter=20)
                except nx.PowerIterationFailedConvergence:
                    return None

            r = timed(pr20, trials)
        elif k == "cc":
            cc = nx.weakly_connected_components if directed else nx.connected_components
            r = timed(lambda cc=cc: sum(1 for _ in cc(g)), trials)
        elif k == "sssp":
            r = timed(lambda: nx.single_source_dijkstra_path_length(g, source), trials)
        elif k == "tc":
            u = g.to_undirected() if directed else g
            r = timed(lambda u=u: sum(nx.triangles(u).values()) // 3, trials)
        else:
            emit(kernel=k, skip="unknown kernel")
            continue
        emit(kernel=k, secs=r[0], mean=r[1], load_secs=load, note="")


def run_scipy(path, n, directed, weighted, source, kernels, trials):
    import numpy as np
    import scipy.sparse as sp

    t = time.perf_counter()
    cols = (0, 1)
    data = np.loadtxt(path, dtype=np.int64, usecols=cols, ndmin=2)
    src, dst = data[:, 0], data[:, 1]
    if not directed:
        loops = src == dst
        src, dst = np.concatenate([src, dst[~loops]]), np.concatenate([dst, src[~loops]])
    # A[v, u] = 1 for each arc u -> v (duplicates summed, as ocgraph counts every arc).
    a = sp.csr_matrix((np.ones(len(src)), (dst, src)), shape=(n, n))
    outdeg = np.bincount(src, minlength=n).astype(np.float64)
    load = time.perf_counter() - t

    def pagerank(max_iter, tol):
        d = 0.85
        x = np.full(n, 1.0 / n)
        dangling = outdeg == 0
        inv = np.where(dangling, 0.0, 1.0 / np.maximum(outdeg, 1))
        for _ in range(max_iter):
            nxt = d * (a @ (x * inv)) + (d * x[dangling].sum() + 1 - d) / n
            err = np.abs(nxt - x).sum()
            x = nxt
            if tol > 0 and err < tol:
                break
        return x

    for k in kernels:
        if k == "pr":
            r = timed(lambda: pagerank(1000, 1e-4), trials)
        elif k == "pr20":
            r = timed(lambda: pagerank(20, 0.0), trials)
        else:
            emit(kernel=k, skip="scipy baseline is PageRank only")
            continue
        emit(kernel=k, secs=r[0], mean=r[1], load_secs=load, note="power iteration on CSR")


def main():
    system, path, n, directed, weighted, source, kernels, trials = sys.argv[1:9]
    args = (path, int(n), directed == "1", weighted == "1", int(source), kernels.split(","), int(trials))
    {"igraph": run_igraph, "networkx": run_networkx, "scipy": run_scipy}[system](*args)


if __name__ == "__main__":
    main()
