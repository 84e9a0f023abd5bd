#!/usr/bin/env python3
"""Kernels on a graph with updates not yet compacted, against the same graph compacted.

Usage: bench/updates/levels.py [--scale 22] [--updates 2500000] [--mix 70/30] [--pool-frac 0.05]
                               [--kernels bfs,sssp,wcc,pagerank] [--baseline-bin PATH]
                               [--work DIR] [--out CSV]

Generates a Kronecker graph (edge factor 16, seed 1) with the `ocgraph` CLI, applies a seeded
stream of updates to it (`ocgraph workload updates --mix`, applied by `ocgraph stream` in
batches of 50K: one level and a log over the base), then runs each kernel (`ocgraph run ...
--stats`, one trial, BFS and SSSP from vertex 0, PageRank 10 iterations) on mmap and through a
buffer pool of --pool-frac of the graph's files, first with the updates pending, then after
`ocgraph compact`. With --baseline-bin, every run is repeated right after with that build (an
earlier commit's), for side-by-side ratios on this shared machine.

Prints a table (seconds, bytes read, levels over compacted) and writes CSV (default
bench/updates/results/levels.csv) and JSON next to it.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
CLI = os.path.join(TARGET, "release", "ocgraph")


def run_kernel(cli: str, graph: str, kernel: str, backend: list[str]) -> dict:
    """One `ocgraph run` with --stats: its kernel time (the trial's) and the bytes it read."""
    extra = {
        "bfs": ["--source", "0"],
        "sssp": ["--source", "0"],
        "pagerank": ["--max-iter", "10", "--tol", "0"],
    }
    cmd = [cli, "run", kernel, graph, *extra.get(kernel, []), *backend, "--stats"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    secs = float(re.search(r"trial 0: ([0-9.]+) s", p.stderr + p.stdout).group(1))
    stats = json.loads(next(line for line in (p.stdout + p.stderr).splitlines() if line.startswith("{")))
    return {"seconds": secs, "bytes_read": stats["bytes_read"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--updates", type=int, default=2_500_000)
    ap.add_argument("--mix", default="70/30")
    ap.add_argument("--pool-frac", type=float, default=0.05)
    ap.add_argument("--kernels", default="bfs,sssp,wcc,pagerank")
    ap.add_argument("--baseline-bin", help="another ocgraph build to repeat every run with")
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "out", "levels-work"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "updates", "results", "levels.csv"))
    a = ap.parse_args()

    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ocgraph-cli"], cwd=ROOT, check=True)
    os.makedirs(a.work, exist_ok=True)
    graph = os.path.join(a.work, f"kron{a.scale}")
    ups = os.path.join(a.work, f"updates-{a.mix.replace('/', '-')}.txt")
    gen = [CLI, "generate", "kronecker", "--scale", str(a.scale), "--edge-factor", "16", "--seed", "1"]
    subprocess.run([*gen, "--quiet", "--force", graph], check=True)
    subprocess.run(
        [CLI, "workload", "updates", graph, "--count", str(a.updates), "--mix", a.mix, "--out", ups],
        check=True,
    )
    t0 = time.perf_counter()
    stream = [
        CLI,
        "stream",
        graph,
        "--updates",
        ups,
        "--batch-size",
        "50000",
        "--durability",
        "none",
        "--no-save",
    ]
    subprocess.run(stream, check=True, capture_output=True)
    print(
        f"kron{a.scale}: {a.updates:,} updates ({a.mix}) applied in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    files = sum(
        os.path.getsize(os.path.join(graph, f))
        for f in os.listdir(graph)
        if f.endswith(("neighbors", "offsets"))
    )
    pool = f"{max(int(files * a.pool_frac), 1 << 20)}B"
    backends = {
        "mmap": ["--backend", "mmap"],
        f"pool {a.pool_frac:.0%}": ["--backend", "pool", "--memory", pool],
    }
    builds = {"this": CLI, **({"baseline": a.baseline_bin} if a.baseline_bin else {})}

    rows = []
    for state in ("levels", "compacted"):
        if state == "compacted":
            subprocess.run([CLI, "compact", graph], check=True, capture_output=True)
        for kernel in a.kernels.split(","):
            for backend, flags in backends.items():
                for build, cli in builds.items():
                    r = run_kernel(cli, graph, kernel, flags)
                    rows.append({"state": state, "kernel": kernel, "backend": backend, "build": build, **r})
                    print(
                        f"{state:<9} {kernel:<8} {backend:<9} {build:<8} {r['seconds']:8.3f} s "
                        f"{r['bytes_read'] / 2**20:10.1f} MiB read",
                        flush=True,
                    )

    def cell(state: str, kernel: str, backend: str, build: str) -> dict:
        return next(
            r
            for r in rows
            if (r["state"], r["kernel"], r["backend"], r["build"]) == (state, kernel, backend, build)
        )

    print(f"\n{'kernel':<8} {'backend':<9} {'build':<8} {'levels s':>9} {'compacted s':>11} {'ratio':>6}")
    for kernel in a.kernels.split(","):
        for backend in backends:
            for build in builds:
                lv, cp = cell("levels", kernel, backend, build), cell("compacted", kernel, backend, build)
                ratio = lv["seconds"] / cp["seconds"]
                lv["levels_over_compacted"] = ratio
                print(
                    f"{kernel:<8} {backend:<9} {build:<8} {lv['seconds']:9.3f} {cp['seconds']:11.3f} {ratio:6.2f}"
                )
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    keys = sorted({k for r in rows for k in r})
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump(rows, f, indent=1)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
