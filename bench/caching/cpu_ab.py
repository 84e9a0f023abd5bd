#!/usr/bin/env python3
"""GAC's CPU per miss from `cpu_per_miss.py` CSVs, per run: one CSV, or two side by side.

Usage: bench/caching/cpu_ab.py CSV [AFTER_CSV]

For each run prints the ratio per demand miss (the CSV's `ratio`), the same per page read
(GAC's extra instructions per page read over CLOCK's instructions per page read) and GAC's
extra instructions in the policy code (`pol_ir_gac - pol_ir_clock`); with two CSVs (e.g. the
same runs before and after a change, measured on the same day) the two side by side and the
change of the policy's extra. Ends with how many runs meet <= 10% by each measure.
"""

import argparse
import csv

TARGET = 0.10


def load(path):
    return {(r["graph"], r["algo"], r["mem_pct"]): r for r in csv.DictReader(open(path))}


def measures(r):
    """(ratio per demand miss, ratio per page read, extra policy instructions)."""
    per_page = float(r["extra_ir_per_page_gac"]) / float(r["ir_per_page_clock"])
    return float(r["ratio"]), per_page, int(r["pol_ir_gac"]) - int(r["pol_ir_clock"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("after", nargs="?")
    a = ap.parse_args()
    runs = [load(a.csv)] + ([load(a.after)] if a.after else [])
    first = runs[0]
    if a.after:
        print(
            f"{'run':24} {'ratio before':>12} {'after':>7} | {'per page before':>15} {'after':>7} | "
            f"{'GAC extra Ir before':>19} {'after':>10} {'change':>7}"
        )
    else:
        print(f"{'run':24} {'ratio':>7} | {'per page':>8} | {'GAC extra Ir':>12}")
    met = [[0, 0] for _ in runs]
    for key in first:
        m = [measures(r[key]) for r in runs]
        for i, (ratio, per_page, _) in enumerate(m):
            met[i][0] += ratio <= TARGET
            met[i][1] += per_page <= TARGET
        name = f"{' '.join(key)}%"
        if a.after:
            (rb, pb, xb), (ra, pa, xa) = m
            print(
                f"{name:24} {rb:>12.1%} {ra:>7.1%} | {pb:>15.1%} {pa:>7.1%} | {xb:>19,} {xa:>10,} {xa / xb - 1:>+7.0%}"
            )
        else:
            (r, p, x) = m[0]
            print(f"{name:24} {r:>7.1%} | {p:>8.1%} | {x:>12,}")
    n = len(first)
    if a.after:
        print(
            f"met per demand miss: before {met[0][0]}, after {met[1][0]}; "
            f"per page read: before {met[0][1]}, after {met[1][1]} (of {n})"
        )
    else:
        print(f"met per demand miss: {met[0][0]}; per page read: {met[0][1]} (of {n})")


if __name__ == "__main__":
    main()
