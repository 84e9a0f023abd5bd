#!/usr/bin/env python3
"""Replays a query workload's page requests through the pool's CLOCK, with and without the
whole vertex table kept in memory (the neighbourhood prefetcher's kept table,
`query/prefetch/table.rs`).

Usage: bench/queries/table_replay.py GRAPH WORKLOAD --frames F [--limit N] [--csv OUT]

A query of v requests the 4 KiB page of its offsets entry and the pages of its neighbour list
(plain lists only); a friends-of-friends query does so for v, then for each of its
out-neighbours. Edge-query and friends-of-friends workloads are read. CLOCK as the pool runs
it: a page enters with its reference bit clear, a hit sets it. "kept" gives the offsets pages
frames of their own that nothing else evicts (as if the advisor kept every one of them, at no
cost) and runs CLOCK over the frames left for the lists. A bound on what keeping the table can
save in demand misses, not a measure of time. Prints misses per query, split into offsets and
list pages; --csv writes the same rows.
"""

import argparse

from replay import PAGE, Clock, read_graph, read_workload, write_csv


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph")
    ap.add_argument("workload")
    ap.add_argument("--frames", type=int, required=True)
    ap.add_argument("--limit", type=int, default=100000)
    ap.add_argument("--csv")
    a = ap.parse_args()
    off, nbr = read_graph(a.graph)
    kind, n, qs = read_workload(a.workload, (0, 1), a.limit)
    table = (8 * (n + 1) + PAGE - 1) // PAGE
    if table >= a.frames:
        raise SystemExit(f"the table's {table} pages do not fit in {a.frames} frames")

    def pages(v):
        """(offsets page, list pages) of vertex v."""
        lo, hi = 4 * off[v], 4 * off[v + 1]
        return 8 * v // PAGE, range(lo // PAGE, (hi - 1) // PAGE + 1) if hi > lo else range(0)

    rows = []
    for rule in ("clock", "kept"):
        kept = rule == "kept"
        lists = Clock(a.frames - table if kept else a.frames)
        bounds = lists if not kept else None
        miss = {"offsets": 0, "lists": 0}
        for v in qs:
            v = int(v)
            for u in [v] + ([int(w) for w in nbr[off[v] : off[v + 1]]] if kind == 1 else []):
                b, ls = pages(u)
                # Offsets pages and list pages share one CLOCK, keyed apart.
                miss["offsets"] += bounds is not None and not bounds.get(("b", b))
                miss["lists"] += sum(not lists.get(p) for p in ls)
        total = (miss["offsets"] + miss["lists"]) / len(qs)
        rows.append(
            {
                "rule": rule,
                "frames": a.frames,
                "table_pages": table,
                "misses_per_query": total,
                "offsets_misses_per_query": miss["offsets"] / len(qs),
                "list_misses_per_query": miss["lists"] / len(qs),
            }
        )
        print(
            f"{rule:6s}: misses/query {total:.3f} (offsets {miss['offsets'] / len(qs):.3f}, "
            f"lists {miss['lists'] / len(qs):.3f})"
        )
    print(f"kept against clock: {rows[1]['misses_per_query'] / rows[0]['misses_per_query'] - 1:+.1%}")
    if a.csv:
        write_csv(a.csv, rows)


if __name__ == "__main__":
    main()
