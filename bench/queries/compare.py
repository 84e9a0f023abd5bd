#!/usr/bin/env python3
"""Hand-run comparison of prefetchers (or of ocgraph builds) on post-cold time, interleaved.

Each run is a fresh `ocgraph query --backend pool --json` process with the pool at 10% of the
graph's files (manifest excluded); post-cold = t(N) - t(N/10). For every (graph, workload) the
runs named by --runs go round-robin --reps times; the median of each is printed with its ratio
to the first. The hand-run prefetcher A/B comparisons are made with this.

Usage: bench/queries/compare.py --graphs road-usroads,kron22 --runs OLD:none,NEW:neighbourhood
           --bin OLD=/path/to/ocgraph --bin NEW=target/release/ocgraph
           [--reps 3] [--n 200000] [--fof 20000] [--workloads a0.1,a0.5,a1,fof]
Graphs are directories under bench/out/graphs; workloads are generated (seed 1) into
bench/out/workloads-compare once.
"""

import argparse
import json
import os
import statistics
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def post_cold(progress):
    n, t = progress[-1]
    before = [tt for nn, tt in progress if nn <= n // 10]
    return t - (before[-1] if before else 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", required=True, help="comma-separated names under bench/out/graphs")
    ap.add_argument("--runs", required=True, help="comma-separated BUILD:MODE (the first is the baseline)")
    ap.add_argument("--bin", action="append", default=[], help="BUILD=PATH (default build: target/release)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=200_000, help="edge queries")
    ap.add_argument("--fof", type=int, default=20_000, help="friends-of-friends queries")
    ap.add_argument("--workloads", default="a0.1,a0.5,a1,fof")
    args = ap.parse_args()
    bins = dict(b.split("=", 1) for b in args.bin)
    default = os.path.join(ROOT, "target", "release", "ocgraph")
    runs = [r.split(":") for r in args.runs.split(",")]
    wdir = os.path.join(ROOT, "bench", "out", "workloads-compare")
    os.makedirs(wdir, exist_ok=True)
    for g in args.graphs.split(","):
        gd = os.path.join(ROOT, "bench", "out", "graphs", g)
        mem = sum(os.path.getsize(os.path.join(gd, f)) for f in os.listdir(gd) if f != "manifest") // 10
        for w in args.workloads.split(","):
            f = os.path.join(wdir, f"{g}-{w}-{args.n}-{args.fof}.bin")
            if not os.path.exists(f):
                if w == "fof":
                    kind = ["fof", "--count", str(args.fof)]
                else:
                    kind = ["edge-queries", "--alpha", w[1:], "--queue", "1000", "--count", str(args.n)]
                cmd = [default, "workload", kind[0], gd, *kind[1:], "--seed", "1", "--out", f]
                subprocess.run(cmd, check=True, capture_output=True)
            times = {i: [] for i in range(len(runs))}
            for _ in range(args.reps):
                for i, (build, mode) in enumerate(runs):
                    exe = bins.get(build, default)
                    cmd = [exe, "query", gd, "--workload", f, "--backend", "pool", "--memory", str(mem)]
                    out = subprocess.run(
                        [*cmd, "--prefetch", mode, "--json"], capture_output=True, text=True, check=True
                    ).stdout
                    times[i].append(post_cold(json.loads(out.strip().splitlines()[-1])["progress"]))
            base = statistics.median(times[0])
            cells = [
                f"{b}:{m}={statistics.median(times[i]):.2f}s({base / statistics.median(times[i]):.2f}x)"
                for i, (b, m) in enumerate(runs)
            ]
            print(f"{g:13s} {w:5s} " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
