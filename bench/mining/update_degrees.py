#!/usr/bin/env python3
"""The list lengths a watch intersects per update: for an update file (`+ u v` / `- u v`
lines, from `ocgraph workload updates`) over a graph, the degrees (in the graph before the
stream) of each update's two endpoints, summarised separately for additions and removals.

A triangle watch intersects the two endpoints' lists once per changed pair (about du + dv steps
when merging, fewer when galloping through a much longer list), so these are the evidence for
what an update costs the watch beyond the matches it emits.

Usage: bench/mining/update_degrees.py GRAPH UPDATES [--first N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import ocgraph


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph")
    ap.add_argument("updates")
    ap.add_argument("--first", type=int, default=0, help="only the first N updates (0: all)")
    ap.add_argument("--json", help="also write the summary here")
    args = ap.parse_args()
    deg = np.asarray(ocgraph.open(args.graph).out_degrees(), dtype=np.int64)
    rows = []
    with open(args.updates) as f:
        for i, line in enumerate(f):
            if args.first and i >= args.first:
                break
            sign, u, v = line.split()[:3]
            rows.append((sign == "+", int(u), int(v)))
    ops = np.array(rows, dtype=np.int64).reshape(-1, 3)
    out = {"updates": len(ops), "max_degree": int(deg.max())}
    print(f"{len(ops)} updates; largest degree {deg.max()}")
    print(f"{'kind':8} {'count':>8} {'mean du+dv':>11} {'median':>8} {'p99':>8} {'mean min':>9}")
    for kind, sel in (("add", ops[:, 0] == 1), ("remove", ops[:, 0] == 0)):
        if not sel.any():
            continue
        du, dv = deg[ops[sel, 1]], deg[ops[sel, 2]]
        s = du + dv
        row = {
            "count": int(sel.sum()),
            "mean_sum": float(s.mean()),
            "median_sum": float(np.median(s)),
            "p99_sum": float(np.percentile(s, 99)),
            "mean_min": float(np.minimum(du, dv).mean()),
        }
        out[kind] = row
        print(
            f"{kind:8} {row['count']:8} {row['mean_sum']:11.0f} {row['median_sum']:8.0f}"
            f" {row['p99_sum']:8.0f} {row['mean_min']:9.0f}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
