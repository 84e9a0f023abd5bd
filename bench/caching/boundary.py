#!/usr/bin/env python3
"""Boundary adjustment (seed 001): GAC with and without it, in real pool runs.

Usage: bench/caching/boundary.py [--graphs kron20,ca-AstroPh,cnr-2000] [--algos pagerank,wcc,bfs]
       [--mem 10,30,60] [--threads 2] [--reps 3] [--bin PATH] [--tag NAME]

The kernels scan vertex ranges in parallel (`chunks::in_order`) and report where the ranges
meet (`Adjacency::mark_partition_cuts`); GAC's LIFO then keeps a page that holds the data of
two ranges until its second request (`gac`), or ignores the report (`gac:boundary=0`). With one
thread nothing is reported, so the comparison needs `--threads` >= 2.

For every graph, kernel and pool size (% of the graph's bytes): `ocgraph run ALGO G --backend
pool --memory M --policy P --threads T --stats`, both policies interleaved `--reps` times. The
table gives each policy's median kernel time, bytes read, demand misses and pages reported
shared, and the ratios off/on (above 1: the adjustment saves). Graphs: `kronN` is generated
(Kronecker, edge factor 16, seed 1); the real graphs are imported from data/ as the query
benchmark does (bench/out/graphs).

Writes bench/out/boundary[-TAG].csv and a copy in bench/caching/results/.
"""

import argparse
import csv
import os
import re
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import graph_bytes, pool_run_cmd, sh, stats_of  # the study script's helpers

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
GRAPHS = os.path.join(ROOT, "bench", "out", "graphs")
REAL = {
    "ca-AstroPh": ("ca-AstroPh.txt.gz", ["--undirected", "--dedup", "--relabel"]),
    "road-usroads": ("road-usroads.mtx.gz", ["--undirected", "--dedup"]),
    "cnr-2000": ("cnr-2000.el.gz", ["--dedup"]),
}
POLICIES = ("gac", "gac:boundary=0")


def make_graph(binary, name):
    g = os.path.join(GRAPHS, name)
    if os.path.exists(os.path.join(g, "manifest")):
        return g
    os.makedirs(GRAPHS, exist_ok=True)
    if m := re.fullmatch(r"kron(\d+)", name):
        sh(
            [
                binary,
                "generate",
                "kronecker",
                "--scale",
                m[1],
                "--edge-factor",
                "16",
                "--seed",
                "1",
                "--quiet",
                g,
            ]
        )
    elif name in REAL:
        src, flags = REAL[name]
        sh([binary, "import", os.path.join(ROOT, "data", src), g, *flags, "--quiet"])
    else:
        sys.exit(f"unknown graph {name}: kronN or one of {', '.join(REAL)}")
    return g


def kernel_seconds(stdout):
    m = re.search(r"mean ([0-9.e+-]+) s", stdout)
    return float(m[1]) if m else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", default="kron20,ca-AstroPh,cnr-2000")
    ap.add_argument("--algos", default="pagerank,wcc,bfs")
    ap.add_argument("--mem", default="10,30,60", help="pool sizes, %% of the graph's bytes")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--bin", default=os.path.join(TARGET, "release", "ocgraph"))
    ap.add_argument("--tag", default="")
    a = ap.parse_args()
    if not os.path.exists(a.bin):
        sys.exit(f"{a.bin} not found: cargo build --release -p ocgraph-cli")
    name = "boundary" + (f"-{a.tag}" if a.tag else "")
    out_csv = os.path.join(ROOT, "bench", "out", f"{name}.csv")
    rows = []
    hdr = (
        f"{'graph':12} {'algo':9} {'mem':>4} | {'shared':>6} | {'time on':>8} {'time off':>8} {'off/on':>6} | "
        f"{'MB on':>8} {'MB off':>8} {'off/on':>6} | {'misses on':>9} {'misses off':>10}"
    )
    print(
        f"{a.threads} threads, median of {a.reps} interleaved runs per policy\n{hdr}\n{'-' * len(hdr)}",
        flush=True,
    )
    for gname in a.graphs.split(","):
        g = make_graph(a.bin, gname)
        size = graph_bytes(g)
        for pct in (int(p) for p in a.mem.split(",")):
            mem = size * pct // 100
            for algo in a.algos.split(","):
                runs = {p: [] for p in POLICIES}
                for _ in range(a.reps):
                    for pol in POLICIES:
                        r = sh(pool_run_cmd(a.bin, algo, g, mem, pol, a.threads))
                        s = stats_of(r.stderr)
                        runs[pol].append(
                            (kernel_seconds(r.stdout), s["bytes_read"], s["misses"], s["shared_pages"])
                        )
                med = {p: [statistics.median(x[i] for x in runs[p]) for i in range(4)] for p in POLICIES}
                on, off = med["gac"], med["gac:boundary=0"]
                row = {
                    "graph": gname,
                    "algo": algo,
                    "mem_pct": pct,
                    "threads": a.threads,
                    "reps": a.reps,
                    "shared_pages": int(on[3]),
                    "seconds_on": on[0],
                    "seconds_off": off[0],
                    "bytes_on": int(on[1]),
                    "bytes_off": int(off[1]),
                    "misses_on": int(on[2]),
                    "misses_off": int(off[2]),
                }
                rows.append(row)
                print(
                    f"{gname:12} {algo:9} {pct:>3}% | {row['shared_pages']:>6} | {on[0]:>8.3f} {off[0]:>8.3f} "
                    f"{off[0] / on[0]:>5.2f}x | {on[1] / 1e6:>8.1f} {off[1] / 1e6:>8.1f} {off[1] / max(on[1], 1):>5.2f}x | "
                    f"{row['misses_on']:>9} {row['misses_off']:>10}",
                    flush=True,
                )
    os.makedirs(os.path.dirname(out_csv), exist_ok=True)
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    res = os.path.join(ROOT, "bench", "caching", "results")
    os.makedirs(res, exist_ok=True)
    shutil.copy(out_csv, res)
    print(f"wrote {out_csv} and a copy in {res}")


if __name__ == "__main__":
    main()
