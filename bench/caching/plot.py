#!/usr/bin/env python3
"""Charts for `ocgraph cache-sim` output (matplotlib).

plot.py RESULTS.csv --out chart.png        hit ratio vs cache size, one line per policy
                                           (one panel per workload when the CSV has a
                                           `workload` column, as bench/caching/run.py writes)
plot.py --score SCORE.csv --out score.png  GAC's score over misses (>= 0: LIFO active)
"""

import argparse
import csv
import sys
from collections import defaultdict


def size_key(s):
    s = s.strip()
    try:
        return (0, float(s.rstrip("%f")))
    except ValueError:
        return (1, s)


def plot_hits(path, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(csv.DictReader(open(path)))
    if not rows:
        sys.exit(f"{path}: no rows")
    by_wl = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        by_wl[r.get("workload", "")][r["policy"]][r["size"]] = float(r["hit_ratio"])
    n = len(by_wl)
    cols = min(n, 3)
    rws = (n + cols - 1) // cols
    fig, axes = plt.subplots(rws, cols, figsize=(5 * cols, 3.6 * rws), squeeze=False)
    for ax, (wl, pols) in zip(axes.flat, sorted(by_wl.items())):
        for pol, pts in pols.items():
            sizes = sorted(pts, key=size_key)
            style = "--" if pol == "opt" else ("-o" if pol.startswith("gac") else "-")
            ax.plot(
                range(len(sizes)),
                [pts[s] for s in sizes],
                style,
                label=pol,
                markersize=3,
                linewidth=2 if pol.startswith("gac") else 1,
            )
            ax.set_xticks(range(len(sizes)))
            ax.set_xticklabels(sizes, rotation=45, fontsize=7)
        ax.set_title(wl or path, fontsize=9)
        ax.set_xlabel("cache size")
        ax.set_ylabel("hit ratio (cold misses excluded)")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def plot_score(path, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(csv.DictReader(open(path)))
    x = [int(r["miss"]) for r in rows]
    y = [float(r["score"]) for r in rows]
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.fill_between(x, y, 0, where=[v >= 0 for v in y], color="tab:blue", alpha=0.6, label="LIFO active")
    ax.fill_between(x, y, 0, where=[v < 0 for v in y], color="tab:red", alpha=0.6, label="CLOCK active")
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_xlabel("miss")
    ax.set_ylabel("GAC score")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="?", help="cache-sim --csv output")
    ap.add_argument("--score", help="cache-sim --score-trace output")
    ap.add_argument("--out", required=True, help="PNG to write")
    a = ap.parse_args()
    if a.score:
        plot_score(a.score, a.out)
    elif a.csv:
        plot_hits(a.csv, a.out)
    else:
        ap.error("give a results CSV or --score")


if __name__ == "__main__":
    main()
