#!/usr/bin/env python3
"""Replays an edge-query workload's page requests through the pool's CLOCK, with and without
keeping the heaviest pages of a recent-neighbourhood window (the neighbourhood prefetcher's
edge-query mode where the vertex table does not fit; `query/prefetch/window.rs`).

Usage: bench/queries/window_replay.py GRAPH WORKLOAD --frames F [--keep 10,23] [--every 4]
                                      [--min-weight 2] [--lists] [--all-lists]
                                      [--resident 40,50] [--resident-every 2] [--limit N]
                                      [--csv OUT]

A query of v requests the 4 KiB page of its offsets entry and the pages of its neighbour list
(plain lists only). CLOCK as the pool runs it: a page enters with its reference bit clear, a
hit sets it. After each query, v then its out-neighbours enter a window of the last 1024
vertices; every --every queries the --keep heaviest offsets pages, each needed by at least
--min-weight window vertices, get their reference bit set if resident, or are loaded (a
background load) if not. With --lists, as the engine does, the window weighs each vertex's
first list page too, ranked apart, and while the window's distinct pages (both kinds)
outnumber the frames the --keep/2 heaviest list pages get their reference bit set if resident
(missing ones are not loaded); --all-lists keeps them whether or not the window fits.
--resident K is the engine's rule where the window does not fit: every --resident-every
queries the window's pages of both kinds (offsets pages and first list pages) are ranked
together by weight, and the resident ones get their reference bit set, heaviest first, until
K are set; nothing is loaded. The advisor is
not late here and costs nothing: a bound on what keeping can save in demand misses, not a
measure of time. Prints misses and background loads per query for keep = 0 (plain CLOCK),
each --keep value and each --resident value, and the window's mean number of distinct pages weighed (offsets pages, plus
list pages with --lists); --csv writes the same rows.
"""

import argparse
import heapq
from collections import deque

from replay import PAGE, Clock, read_graph, read_workload, write_csv

BOUNDS = 1 << 40  # offsets pages are keyed apart from list pages
WINDOW = 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph")
    ap.add_argument("workload")
    ap.add_argument("--frames", type=int, required=True)
    ap.add_argument("--keep", default="")
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--min-weight", type=int, default=2)
    ap.add_argument("--lists", action="store_true")
    ap.add_argument("--all-lists", action="store_true")
    ap.add_argument("--resident", default="")
    ap.add_argument("--resident-every", type=int, default=2)
    ap.add_argument("--limit", type=int, default=20000)
    ap.add_argument("--csv")
    a = ap.parse_args()
    off, nbr = read_graph(a.graph)
    _, _, qs = read_workload(a.workload, (0,), a.limit)
    cache = {}

    def pages(v):
        if v not in cache:
            p = [BOUNDS + 8 * v // PAGE]
            lo, hi = 4 * off[v], 4 * off[v + 1]
            p += list(range(lo // PAGE, (hi - 1) // PAGE + 1)) if hi > lo else []
            cache[v] = p
        return cache[v]

    def weighed(v, lists):
        p = pages(v)
        return p[:2] if lists else p[:1]

    rows = []
    runs = [("keep", 0)] + [("keep", int(x)) for x in a.keep.split(",") if x]
    runs += [("resident", int(x)) for x in a.resident.split(",") if x]
    for rule, k in runs:
        resident = rule == "resident"
        weigh_lists = a.lists or resident
        every = a.resident_every if resident else a.every
        clock, window, weight = Clock(a.frames), deque(), {}
        misses = loads = 0
        sizes = []
        for i, v in enumerate(qs):
            v = int(v)
            misses += sum(not clock.get(p) for p in pages(v))
            if k == 0:
                continue
            for x in [v] + [int(y) for y in nbr[off[v] : off[v + 1]]]:
                window.append(x)
                for p in weighed(x, weigh_lists):
                    weight[p] = weight.get(p, 0) + 1
                if len(window) > WINDOW:
                    for p in weighed(window.popleft(), weigh_lists):
                        weight[p] -= 1
                        if weight[p] == 0:
                            del weight[p]
            if i % every:
                continue
            sizes.append(len(weight))
            if resident:
                left = k
                for p, _ in sorted(weight.items(), key=lambda kv: -kv[1]):
                    if left == 0:
                        break
                    s = clock.slot.get(p)
                    if s is not None:
                        clock.ref[s] = True
                        left -= 1
                continue
            bounds = [kv for kv in weight.items() if kv[0] >= BOUNDS]
            lists = [kv for kv in weight.items() if kv[0] < BOUNDS]
            chosen = heapq.nlargest(k, bounds, key=lambda kv: kv[1])
            if a.lists and (a.all_lists or len(weight) > a.frames):
                chosen += heapq.nlargest(k // 2, lists, key=lambda kv: kv[1])
            for p, w in chosen:
                if w < a.min_weight:
                    continue
                s = clock.slot.get(p)
                if s is None and p >= BOUNDS:
                    clock.load(p)
                    loads += 1
                elif s is not None:
                    clock.ref[s] = True
        mean_pages = sum(sizes) / len(sizes) if sizes else 0.0
        rows.append(
            {
                "rule": rule,
                "keep": k,
                "misses_per_query": misses / len(qs),
                "loads_per_query": loads / len(qs),
                "window_pages": mean_pages,
            }
        )
        print(
            f"{rule:8s} {k:4d}: misses/query {misses / len(qs):.3f}, background loads/query "
            f"{loads / len(qs):.3f}, window pages {mean_pages:.0f}"
        )
    if a.csv:
        write_csv(a.csv, rows)


if __name__ == "__main__":
    main()
