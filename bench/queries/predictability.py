#!/usr/bin/env python3
"""How predictable is seed 000's alpha-recency edge-query stream on a graph?

Replays the generator (with probability alpha a uniform random vertex, else a uniform pick from
a FIFO of the last L pushed vertices; after each query the vertex and its neighbours are pushed)
on a graph directory's CSR files, and measures, for a neighbourhood predictor that after each
query predicts the *last* K neighbours of the visited vertex (the ones that stay longest in the
FIFO), the share of queries whose vertex was predicted within the last W queries. It also
reports the degree of the queried vertices. No engine code runs: numpy reads the files.

Usage: bench/queries/predictability.py GRAPH [--alphas 0.1,0.5,1] [--queue 1000]
                                        [--queries 20000] [--ks 8,32,128] [--window 64]
Prints a table; writes bench/out/predictability.csv.
"""

import argparse
import collections
import csv
import json
import os
import random

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def num_vertices(graph):
    """The vertex count from the graph's manifest (a binary header, then JSON); the CSR files
    are padded to whole pages, so their sizes do not give it."""
    with open(os.path.join(graph, "manifest"), "rb") as f:
        raw = f.read()
    return json.loads(raw[raw.index(b"{") :])["num_vertices"]


def replay(offsets, neighbors, n, alpha, queue, queries, ks, window, seed=1):
    rng = random.Random(seed)
    fifo = collections.deque(maxlen=queue)
    # Per K: for each recent query, the set of vertices it predicted.
    recent = {k: collections.deque(maxlen=window) for k in ks}
    hits = dict.fromkeys(ks, 0)
    degrees = []
    for _ in range(queries):
        if not fifo or rng.random() < alpha:
            v = rng.randrange(n)
        else:
            v = fifo[rng.randrange(len(fifo))]
        a, b = int(offsets[v]), int(offsets[v + 1])
        adj = neighbors[a:b]
        degrees.append(b - a)
        for k in ks:
            hits[k] += any(v in s for s in recent[k])
            recent[k].append(set(adj[-k:].tolist()) if k else set())
        fifo.append(v)
        fifo.extend(adj[-queue:].tolist())
    return hits, degrees


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph", help="graph directory (reads out.offsets and out.neighbors)")
    ap.add_argument("--alphas", default="0.1,0.5,1")
    ap.add_argument("--queue", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=20000)
    ap.add_argument("--ks", default="8,32,128", help="neighbours predicted per query")
    ap.add_argument("--window", type=int, default=64, help="queries a prediction counts for")
    args = ap.parse_args()
    offsets = np.memmap(os.path.join(args.graph, "out.offsets"), dtype=np.uint64, mode="r")
    neighbors = np.memmap(os.path.join(args.graph, "out.neighbors"), dtype=np.uint32, mode="r")
    n = num_vertices(args.graph)
    ks = [int(k) for k in args.ks.split(",")]
    name = os.path.basename(os.path.normpath(args.graph))
    rows = []
    print(f"{name}: FIFO {args.queue}, {args.queries} queries, predictions count for {args.window} queries")
    print(f"{'alpha':>6} {'median deg':>10} {'mean deg':>9} " + " ".join(f"{'K=' + str(k):>8}" for k in ks))
    for alpha in (float(a) for a in args.alphas.split(",")):
        hits, deg = replay(offsets, neighbors, n, alpha, args.queue, args.queries, ks, args.window)
        rates = {k: hits[k] / args.queries for k in ks}
        print(
            f"{alpha:>6g} {int(np.median(deg)):>10} {np.mean(deg):>9.0f} "
            + " ".join(f"{100 * rates[k]:>7.1f}%" for k in ks)
        )
        for k in ks:
            rows.append(
                {
                    "graph": name,
                    "alpha": alpha,
                    "queue": args.queue,
                    "queries": args.queries,
                    "window": args.window,
                    "k": k,
                    "hit_rate": round(rates[k], 4),
                    "median_degree": int(np.median(deg)),
                    "mean_degree": round(float(np.mean(deg)), 1),
                }
            )
    out = os.path.join(ROOT, "bench", "out", "predictability.csv")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
