#!/usr/bin/env python3
"""How much of a friends-of-friends query can a prefetcher that reacts to visits foresee?

A FoF query from vertex v reads v's bounds (its vertex-table entry) and list, then each
neighbour's bounds and list. A prefetcher fed the visited vertex (the neighbourhood policy)
learns v only once the query has read v's pages; what it can still bring in ahead of the query
are the pages of the neighbours that v's own pages do not hold. This script counts, for uniform
start vertices (the FoF workload's), the distinct 4 KiB pages per query in those two groups,
and how many of the query's reads such a prefetcher could at best take off the query's chain
of dependent reads ("overlap"): the neighbours' pages read in two parallel rounds (their bounds,
then their lists) instead of one after the other, with nothing cached and at no cost per read.
No engine code runs: numpy reads the CSR files.

Usage: bench/queries/fof_pages.py GRAPH [GRAPH ...] [--queries 50000] [--seed 1]
Prints a table.
"""

import argparse
import os

import numpy as np
from predictability import num_vertices

PAGE = 4096


def pages(offsets, v):
    """The pages of v's bounds (offsets file, tagged 0) and of its list (neighbours file, 1)."""
    a, b = int(offsets[v]), int(offsets[v + 1])
    out = {(0, v * 8 // PAGE), (0, (v * 8 + 15) // PAGE)}
    if b > a:
        out.update((1, p) for p in range(a * 4 // PAGE, (b * 4 - 1) // PAGE + 1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="+", help="graph directories (out.offsets, out.neighbors)")
    ap.add_argument("--queries", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(
        f"{'graph':<14} {'pages/query':>11} {'of v':>6} {'after v':>8} {'share after v':>13} {'overlap':>8}"
    )
    for g in args.graphs:
        n = num_vertices(g)
        offsets = np.memmap(os.path.join(g, "out.offsets"), dtype=np.uint64, mode="r")
        neighbors = np.memmap(os.path.join(g, "out.neighbors"), dtype=np.uint32, mode="r")
        rng = np.random.default_rng(args.seed)
        own = after = overlap = 0
        for v in rng.integers(0, n, args.queries):
            mine = pages(offsets, int(v))
            theirs = set()
            for w in neighbors[int(offsets[v]) : int(offsets[v + 1])]:
                theirs |= pages(offsets, int(w))
            theirs -= mine
            own += len(mine)
            after += len(theirs)
            rounds = len({kind for kind, _ in theirs})
            overlap += len(theirs) - rounds
        total = own + after
        name = os.path.basename(os.path.normpath(g))
        q = args.queries
        print(
            f"{name:<14} {total / q:>11.2f} {own / q:>6.2f} {after / q:>8.2f} {after / total:>13.2f} {overlap / total:>8.2f}"
        )


if __name__ == "__main__":
    main()
