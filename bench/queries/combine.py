#!/usr/bin/env python3
"""Pools the runs of several bench/queries/run.py CSVs (same workloads, --repeat R each): per
(graph, backend, workload, prefetcher) the median post-cold time over every run, the ratio
none / mode of the medians, and the median of the per-repetition ratios (mode and none of the
same repetition ran back to back, so they saw similar load). Prints a markdown table.

Usage: bench/queries/combine.py A.csv B.csv ... [--out combined.csv]
"""

import csv
import statistics
import sys


def main():
    args = sys.argv[1:]
    out = None
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i : i + 2]
    runs = {}
    for path in args:
        for r in csv.DictReader(open(path)):
            key = (r["graph"], r["backend"], r["workload"], r["prefetch"])
            runs.setdefault(key, []).append([float(x) for x in r["post_cold_all"].split()])
    rows = []
    for (g, b, w, m), reps in runs.items():
        none = runs[(g, b, w, "none")]
        times = [t for rep in reps for t in rep]
        nones = [t for rep in none for t in rep]
        paired = [n / t for rn, rm in zip(none, reps) for n, t in zip(rn, rm) if t > 0]
        med, med_none = statistics.median(times), statistics.median(nones)
        rows.append(
            {
                "graph": g,
                "backend": b,
                "workload": w,
                "prefetch": m,
                "runs": len(times),
                "median_post_cold_s": round(med, 4),
                "vs_none_of_medians": round(med_none / med, 3) if med > 0 else float("nan"),
                "vs_none_paired_median": round(statistics.median(paired), 3) if paired else float("nan"),
                "post_cold_all": " ".join(f"{t:.3f}" for t in times),
            }
        )
    print(
        "| graph | backend | workload | prefetch | runs | median post-cold s | vs none (medians) | vs none (paired) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['graph']} | {r['backend']} | {r['workload']} | {r['prefetch']} | {r['runs']} | "
            f"{r['median_post_cold_s']:.3f} | {r['vs_none_of_medians']:.2f}x | {r['vs_none_paired_median']:.2f}x |"
        )
    if out:
        with open(out, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            wr.writeheader()
            wr.writerows(rows)


if __name__ == "__main__":
    main()
