#!/usr/bin/env python3
"""SSSP's bucket width: delta-stepping's time for several deltas on weighted graphs.

Usage: bench/algos/sssp_delta.py [--ocgraph BIN] [--graphs kron20,kron22,road1000]
                                 [--factors 0.25,0.5,1,2] [--trials 7] [--rounds 2]
                                 [--threads 2] [--work DIR] [--name sssp_delta]

Each graph is made once under --work: `kronS` with `ocgraph generate kronecker --scale S
--edge-factor 16 --seed 1 --weighted` (integer weights 1..255, SSSP from the vertex of largest
degree), `roadR` with `ocgraph generate road --rows R --cols R` (an R x R grid, weights 1..255,
SSSP from vertex 0). A factor f runs `ocgraph run sssp --delta D` with D = f * max weight /
average out-degree (at least the smallest positive weight), so f = 1 is Meyer and Sanders'
width and f = 0.5 the default for these evenly spread weights (`default_delta` in crates/ocgraph-algo/src/sssp.rs). Each round
runs every factor once, in order, with --trials timed trials; a cell's time is the best trial
over the rounds. Prints a table (time, against f = 1 and against the graph's fastest factor)
and writes bench/out/<name>.csv and .json.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from graph_files import max_degree_vertex  # noqa: E402

OUT = os.path.join(ROOT, "bench", "out")
TRIAL = re.compile(r"^trial \d+: ([0-9.]+) s$")


def make_graph(exe: str, work: str, name: str) -> str:
    """The graph `name` (kronS or roadR) under `work`, generated when missing."""
    path = os.path.join(work, name)
    if os.path.exists(os.path.join(path, "manifest")):
        return path
    if name.startswith("kron"):
        cmd = ["generate", "kronecker", "--scale", name[4:], "--edge-factor", "16", "--seed", "1"]
        cmd.append("--weighted")
    elif name.startswith("road"):
        cmd = ["generate", "road", "--rows", name[4:], "--cols", name[4:]]
    else:
        raise SystemExit(f"unknown graph {name} (kronS or roadR)")
    subprocess.run([exe, *cmd, "--force", "--quiet", path], check=True)
    return path


def best_trial(exe: str, graph: str, source: int, delta: float, trials: int, threads: int) -> float:
    """The fastest of `trials` timed runs of SSSP from `source` with bucket width `delta`."""
    cmd = [exe, "run", "sssp", graph, "--source", str(source), "--delta", repr(delta)]
    cmd += ["--trials", str(trials), "--threads", str(threads)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    times = [float(m.group(1)) for m in map(TRIAL.match, out.splitlines()) if m]
    if not times:
        raise SystemExit(f"no trial times in the output of {' '.join(cmd)}:\n{out}")
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ocgraph", default=os.path.join(ROOT, "target", "release", "ocgraph"))
    ap.add_argument("--graphs", default="kron20,kron22,road1000")
    ap.add_argument("--factors", default="0.25,0.5,1,2")
    ap.add_argument("--trials", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(OUT, "sssp-delta-work"))
    ap.add_argument("--name", default="sssp_delta")
    args = ap.parse_args()
    factors = [float(f) for f in args.factors.split(",")]
    os.makedirs(args.work, exist_ok=True)
    rows = []
    print(f"{'graph':<10} {'factor':>6} {'delta':>8} {'secs':>9} {'vs f=1':>7} {'vs best':>8}")
    for name in args.graphs.split(","):
        graph = make_graph(args.ocgraph, args.work, name)
        info = json.loads(
            subprocess.run(
                [args.ocgraph, "info", graph, "--json"], check=True, capture_output=True, text=True
            ).stdout
        )
        n, arcs = info["vertices"], info["arcs"]
        wmax, wmin = info["weight_range"]["max"], info["weight_range"]["min_positive"]
        source = max_degree_vertex(graph, n) if name.startswith("kron") else 0
        width = wmax / max(arcs / n, 1.0)
        deltas = [max(f * width, wmin) for f in factors]
        best = [float("inf")] * len(factors)
        for _ in range(args.rounds):
            for i, d in enumerate(deltas):
                best[i] = min(best[i], best_trial(args.ocgraph, graph, source, d, args.trials, args.threads))
        base = best[factors.index(1.0)] if 1.0 in factors else None
        for f, d, secs in zip(factors, deltas, best):
            row = {
                "graph": name,
                "source": source,
                "factor": f,
                "delta": d,
                "secs": secs,
                "vs_factor_1": secs / base if base else None,
                "vs_best": secs / min(best),
            }
            rows.append(row)
            vs1 = f"{row['vs_factor_1']:.2f}x" if base else "-"
            print(f"{name:<10} {f:>6g} {d:>8.2f} {secs:>9.4f} {vs1:>7} {row['vs_best']:>7.2f}x")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, f"{args.name}.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(OUT, f"{args.name}.json"), "w") as fh:
        json.dump({"args": vars(args), "rows": rows}, fh, indent=1)
    print(f"wrote {os.path.join(OUT, args.name)}.csv and .json")


if __name__ == "__main__":
    main()
