#!/usr/bin/env python3
"""How often list-start prediction (crates/ocgraph-core/src/graph/list_starts.rs) names the right
page: replays uniform friends-of-friends queries on a graph's out-CSR, recording each vertex whose
bounds a query reads (the start vertex, then its neighbours) as the engine does, and before each
query predicts the start vertex's list start from the samples so far.

Usage: bench/queries/list_starts_replay.py GRAPH_DIR... [--queries N] [--seed S] [--csv OUT]
Prints one row per graph: queries, predicted, right page (share of predicted), within one page;
--csv writes the same rows.
"""

import argparse
import csv
import os
import sys

import numpy as np

BLOCK = 512  # vertices per sample (list_starts.rs BLOCK)
PAGE = 4096


def replay(g, queries, seed):
    off = np.fromfile(os.path.join(g, "out.offsets"), dtype="<u8").astype(np.int64)
    nb = np.fromfile(os.path.join(g, "out.neighbors"), dtype="<u4")
    n = len(off) - 1
    sample = np.full(n // BLOCK + 2, -1, dtype=np.int64)  # last vertex read per block
    rng = np.random.default_rng(seed)
    predicted = right = near = 0
    for v in rng.integers(0, n, size=queries):
        v = int(v)
        b = v // BLOCK
        s = sample[b]
        if s >= 0:
            t = sample[b + 1] if sample[b + 1] >= 0 else (sample[b - 1] if b > 0 else -1)
            if s == v:
                guess = off[v]
            elif t >= 0:
                guess = off[s] + (v - s) * (off[t] - off[s]) / (t - s)
            else:
                guess = None
            if guess is not None:
                predicted += 1
                got, want = int(max(guess, 0) * 4) // PAGE, int(off[v]) * 4 // PAGE
                right += got == want
                near += abs(got - want) <= 1
        sample[b] = v
        nbrs = nb[off[v] : off[v + 1]].astype(np.int64)
        sample[nbrs // BLOCK] = nbrs  # the last one per block wins, as in the engine
    return {
        "graph": os.path.basename(os.path.normpath(g)),
        "queries": queries,
        "predicted": predicted,
        "right_page": round(right / max(predicted, 1), 4),
        "within_one_page": round(near / max(predicted, 1), 4),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--queries", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv")
    a = ap.parse_args()
    rows = [replay(g, a.queries, a.seed) for g in a.graphs]
    cols = list(rows[0])
    print("  ".join(f"{c:>15}" for c in cols))
    for r in rows:
        print("  ".join(f"{r[c]:>15}" for c in cols))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
