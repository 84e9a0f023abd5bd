#!/usr/bin/env python3
"""Draws the plots of docs/benchmarks.md from the committed result files (nothing is rerun).

  docs/img/kernels-memory.png   runtime against memory budget, per kernel and backend, kron22
                                (bench/algos/results/algos_full.csv)
  docs/img/caching-hits.png     hit ratio against cache size per policy, with OPT
                                (bench/caching/results/kron22-hits.csv)
  docs/img/queries-prefetch.png mean query latency with and without the prefetcher
                                (bench/queries/results/queries-{real,kron22}-pool.csv)
  docs/img/ingest.png           edges per second of import against Python loaders
                                (bench/ingest/results/ingest-kron22.csv,
                                 bench/interop/results/interop-kron20.csv)

Usage: python3 bench/plots.py [--out docs/img]   (needs matplotlib)
"""

from __future__ import annotations

import argparse
import csv
import os
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = {
    "algos": "bench/algos/results/algos_full.csv",
    "caching": "bench/caching/results/kron22-hits.csv",
    "queries": [
        "bench/queries/results/queries-real-pool.csv",
        "bench/queries/results/queries-kron22-pool.csv",
    ],
    "ingest": "bench/ingest/results/ingest-kron22.csv",
    "interop": "bench/interop/results/interop-kron20.csv",
}


def rows(rel: str) -> list[dict]:
    with open(os.path.join(ROOT, rel), newline="") as f:
        return list(csv.DictReader(f))


def kernels_memory(out: str) -> None:
    """Seconds per kernel at pools of 10%, 25% and 100% of kron22, the mmap backend at 25%
    (under a memory cgroup) and the reordered (+ packed) copies at 10% and 100%, with GAPBS's
    in-memory time as a line."""
    data = [r for r in rows(RESULTS["algos"]) if r["graph"] == "kron22"]
    kernels = [
        ("bfs", "BFS"),
        ("cc", "connected components"),
        ("pr20", "PageRank, 20 iterations"),
        ("sssp", "SSSP"),
    ]
    series = [
        ("pool", {"pool10": 10, "pool25": 25, "pool100": 100}, "o-"),
        ("pool, reordered copy", {"pool10d": 10, "pool100d": 100}, "s--"),
        ("pool, reordered + packed", {"pool10dp": 10}, "D"),
        ("mmap (memory cgroup)", {"mmap25": 25}, "^"),
    ]
    fig, axes = plt.subplots(1, 4, figsize=(16, 4))
    for ax, (k, title) in zip(axes, kernels):
        by_config = {
            r["config"]: float(r["secs"]) for r in data if r["kernel"] == k and r["system"] == "ocgraph"
        }
        for label, configs, style in series:
            pts = sorted((pct, by_config[c]) for c, pct in configs.items() if c in by_config)
            if pts:
                ax.plot([p for p, _ in pts], [s for _, s in pts], style, label=label)
        gapbs = [
            float(r["secs"])
            for r in data
            if r["kernel"] == k and r["system"] == "gapbs" and r["config"] == "in-memory"
        ]
        if gapbs:
            ax.axhline(gapbs[0], color="grey", linestyle=":", label="GAPBS in memory")
        ax.set_title(title)
        ax.set_xlabel("memory budget, % of the graph")
        ax.set_yscale("log")
        ax.set_xticks([10, 25, 100])
    axes[0].set_ylabel("seconds (best of 3)")
    axes[-1].legend(fontsize=8)
    fig.suptitle("kron22 (547 MB of CSR), 2 threads: runtime against memory budget")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "kernels-memory.png"), dpi=110)
    plt.close(fig)


def caching_hits(out: str) -> None:
    """Hit ratio against cache size for CLOCK, LRU, LIFO, S3-FIFO, ARC, GAC and OPT on six
    kernel traces."""
    data = rows(RESULTS["caching"])
    workloads = [
        "pagerank/kron22",
        "bfs/kron22",
        "wcc/kron22",
        "triangle-count/kron22",
        "pagerank/cnr-2000",
        "bfs/road-usroads",
    ]
    policies = ["clock", "lru", "lifo", "s3fifo", "arc", "gac", "opt"]
    curves: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for r in data:
        curves[(r["workload"], r["policy"])].append((float(r["size"].rstrip("%")), float(r["hit_ratio"])))
    workloads = [w for w in workloads if any(k[0] == w for k in curves)]
    fig, axes = plt.subplots(2, 3, figsize=(14, 8))
    for ax, w in zip(axes.flat, workloads):
        for p in policies:
            pts = sorted(curves.get((w, p), []))
            if pts:
                style = {"opt": "k--", "gac": "r-"}.get(p, "-")
                ax.plot(
                    [x for x, _ in pts], [y for _, y in pts], style, label=p, linewidth=2 if p == "gac" else 1
                )
        ax.set_title(w)
        ax.set_xlabel("cache size, % of the pages touched")
        ax.set_ylabel("hit ratio")
    for ax in axes.flat[len(workloads) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=8)
    fig.suptitle("Replacement policies on kernel page traces (ocgraph cache-sim)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "caching-hits.png"), dpi=110)
    plt.close(fig)


def queries_prefetch(out: str) -> None:
    """Mean latency per query (seconds / queries) without a prefetcher and with the
    neighbourhood prefetcher, pool at 10% of each graph."""
    data = [r for f in RESULTS["queries"] for r in rows(f)]
    mean = {
        (r["graph"], r["workload"], r["prefetch"]): 1e6 * float(r["seconds"]) / int(r["queries"])
        for r in data
    }
    cells = sorted({(g, w) for g, w, p in mean if p == "neighbourhood" and not w.startswith("shortest")})
    fig, ax = plt.subplots(figsize=(14, 4.5))
    xs = range(len(cells))
    for off, (p, color) in zip((-0.2, 0.2), (("none", "tab:grey"), ("neighbourhood", "tab:blue"))):
        ax.bar([x + off for x in xs], [mean[(g, w, p)] for g, w in cells], width=0.4, label=p, color=color)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{g}\n{w}" for g, w in cells], fontsize=7)
    ax.set_ylabel("mean µs per query")
    ax.set_yscale("log")
    ax.legend(title="prefetch")
    ax.set_title(
        "Online queries, pool at 10% of the graph: 1M edge queries (alpha 0.1 / 0.5 / 1), 50K friends-of-friends"
    )
    fig.tight_layout()
    fig.savefig(os.path.join(out, "queries-prefetch.png"), dpi=110)
    plt.close(fig)


def ingest(out: str) -> None:
    """Millions of edges per second: text and binary import of kron22 against Python loaders of
    the same text, and Parquet import of kron20 against pandas + scipy and pyarrow."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(14, 4.5))
    data = [r for r in rows(RESULTS["ingest"]) if r["tool"] not in ("ocgraph generate", "ocgraph export")]
    labels = [
        f"{r['tool']}\n{r['input']} {r['budget']}" if r["budget"] != "-" else f"{r['tool']}\n{r['input']}"
        for r in data
    ]
    colors = ["tab:blue" if r["tool"].startswith("ocgraph") else "tab:grey" for r in data]
    a.barh(labels, [float(r["M_edges_per_s"]) for r in data], color=colors)
    a.set_xlabel("M edges / s (higher is better)")
    a.set_title("kron22 edge list (64M edges) to a graph")
    a.invert_yaxis()
    a.tick_params(axis="y", labelsize=8)
    data = rows(RESULTS["interop"])
    colors = ["tab:blue" if r["system"].startswith("ocgraph") else "tab:grey" for r in data]
    b.barh([r["system"] for r in data], [float(r["M_edges_per_s"]) for r in data], color=colors)
    b.set_xlabel("M edges / s (higher is better)")
    b.set_title("kron20 Parquet file (16M edges) to a graph / matrix / table")
    b.invert_yaxis()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "ingest.png"), dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for plot in (kernels_memory, caching_hits, queries_prefetch, ingest):
        plot(args.out)
        print(f"wrote {args.out}/{plot.__name__.replace('_', '-')}.png")


if __name__ == "__main__":
    main()
