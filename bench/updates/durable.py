#!/usr/bin/env python3
"""Durable-update benchmark: sustained edge insertions per second and PageRank over levels.

Usage: bench/updates/durable.py [--graph DIR | --scale S] [--edges M] [--batch B] [--clients 1,4]
                                [--out CSV]

Without --graph, generates a Kronecker graph (edge factor 16, seed 1) of the given scale
(default 22) with the `ocgraph` CLI. Every measurement works on a fresh copy of the graph
(updates change the directory).

1. Inserts: M random edges (seeded) added with `Graph.add_edges` in batches of B, for each
   durability mode: `batch` (each call returns once its batch is fsynced: the durable rate),
   `interval` (fsync every 100 ms) and `none`, with 1 and with several concurrent writer threads
   (group commit lets concurrent batches share one fsync). Reports edges/s and per-batch latency;
   freezes of the delta into levels
   (64 MiB threshold) happen inside the timed loop, as they would for a user.
2. PageRank (20 iterations, mmap) on the graph with 3 levels (3 freezes of M/3 random edges)
   and on the same graph after `compact()`, side by side; plus the compaction time.

Prints a table and writes CSV (default bench/updates/results/durable.csv) and JSON next to it.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
sys.path.insert(0, os.path.join(ROOT, "python"))

import ocgraph  # noqa: E402


def generate(scale: int, where: str) -> str:
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ocgraph-cli"], cwd=ROOT, check=True)
    out = os.path.join(where, f"kron{scale}")
    cli = os.path.join(TARGET, "release", "ocgraph")
    cmd = [cli, "generate", "kronecker", "--scale", str(scale), "--edge-factor", "16", "--seed", "1"]
    subprocess.run([*cmd, "--quiet", "--force", out], check=True)
    return out


def fresh_copy(graph: str, where: str, name: str) -> str:
    dst = os.path.join(where, name)
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(graph, dst)
    return dst


def random_edges(n: int, m: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m, dtype=np.int64), rng.integers(0, n, m, dtype=np.int64)


def insert_rate(path: str, durability: str, src, dst, batch: int, clients: int) -> dict:
    """Inserts with `clients` threads, each adding its share batch by batch (the GIL is
    released inside add_edges, so concurrent batches share fsyncs: group commit)."""
    g = ocgraph.open(path, writable=True, durability=durability, auto_compact_levels=None)
    starts = list(range(0, len(src), batch))
    latencies: list[float] = []

    def client(k: int) -> None:
        for i in starts[k::clients]:
            t = time.perf_counter()
            g.add_edges(src[i : i + batch], dst[i : i + batch], durable=(durability == "batch"))
            latencies.append(time.perf_counter() - t)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    g.sync()
    t_all = time.perf_counter() - t0
    levels = g.num_levels
    g.close()
    lat = np.array(latencies) * 1e3
    return {
        "phase": "insert",
        "durability": durability,
        "clients": clients,
        "edges": len(src),
        "batch": batch,
        "seconds": round(t_all, 4),
        "edges_per_s": round(len(src) / t_all),
        "batch_ms_p50": round(float(np.percentile(lat, 50)), 3),
        "batch_ms_p99": round(float(np.percentile(lat, 99)), 3),
        "levels_frozen": levels,
    }


def pagerank_secs(path: str) -> tuple[float, np.ndarray]:
    with ocgraph.open(path) as g:
        t0 = time.perf_counter()
        pr = g.pagerank(max_iter=20, tol=0.0)
        return time.perf_counter() - t0, pr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph")
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--edges", type=int, default=2_000_000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--clients", default="1,4", help="comma-separated numbers of concurrent writers")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "updates", "results", "durable.csv"))
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="ocgraph-updates-", dir=os.environ.get("OCGRAPH_BENCH_TMP"))
    try:
        graph = args.graph or generate(args.scale, work)
        with ocgraph.open(graph) as g0:
            n = g0.num_vertices
        src, dst = random_edges(n, args.edges, seed=1)
        rows = []
        for clients in [int(c) for c in args.clients.split(",")]:
            for durability in ["batch", "interval", "none"]:
                path = fresh_copy(graph, work, "g")
                rows.append(insert_rate(path, durability, src, dst, args.batch, clients))
                r = rows[-1]
                print(f"inserts {durability}, {clients} client(s): {r['edges_per_s']:,} edges/s", flush=True)

        path = fresh_copy(graph, work, "g")
        with ocgraph.open(path, writable=True, auto_compact_levels=None) as g:
            for k in range(3):
                part = slice(k * len(src) // 3, (k + 1) * len(src) // 3)
                for i in range(part.start, part.stop, args.batch):
                    j = min(i + args.batch, part.stop)
                    g.add_edges(src[i:j], dst[i:j], durable=False)
                g.freeze()
            levels = g.num_levels
        pr_levels, scores_levels = pagerank_secs(path)
        with ocgraph.open(path, writable=True, auto_compact_levels=None) as g:
            t0 = time.perf_counter()
            g.compact()
            compact_secs = time.perf_counter() - t0
        pr_compact, scores_compact = pagerank_secs(path)
        same = float(np.abs(scores_levels - scores_compact).sum())
        rows.append(
            {
                "phase": "pagerank20",
                "levels": levels,
                "levels_seconds": round(pr_levels, 4),
                "compacted_seconds": round(pr_compact, 4),
                "ratio_levels_to_compacted": round(pr_levels / pr_compact, 3),
                "compact_seconds": round(compact_secs, 4),
                "l1_difference": same,
            }
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print()
    print(
        f"{'durability':<10} {'clients':>7} {'edges':>10} {'batch':>7} {'seconds':>9} {'edges/s':>12} "
        f"{'p50 ms':>8} {'p99 ms':>8} {'levels':>6}"
    )
    for r in rows:
        if r["phase"] == "insert":
            print(
                f"{r['durability']:<10} {r['clients']:>7} {r['edges']:>10,} {r['batch']:>7,} {r['seconds']:>9.3f} "
                f"{r['edges_per_s']:>12,} {r['batch_ms_p50']:>8.2f} {r['batch_ms_p99']:>8.2f} {r['levels_frozen']:>6}"
            )
    p = rows[-1]
    print(
        f"\nPageRank 20 iterations: {p['levels']} levels {p['levels_seconds']:.3f} s, "
        f"compacted {p['compacted_seconds']:.3f} s (ratio {p['ratio_levels_to_compacted']:.2f}); "
        f"compaction {p['compact_seconds']:.3f} s; L1 difference of the scores {p['l1_difference']:.2e}"
    )
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    keys = sorted({k for r in rows for k in r})
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(rows, f, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
