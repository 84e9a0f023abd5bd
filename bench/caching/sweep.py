#!/usr/bin/env python3
"""GAC settings compared on a directory of page-access traces (ablations).

Usage: bench/caching/sweep.py TRACE_DIR VARIANT [VARIANT ...] [--bin PATH] [--csv OUT]

Replays every `*.trace` in TRACE_DIR (e.g. kept by `bench/caching/run.py --keep-traces`) with
`ocgraph cache-sim` at 5%, 10%, 20%, ..., 100% of its distinct pages, for CLOCK, LIFO and each
VARIANT (a GAC spec such as `gac` or `gac:guided=0:decay=0.99`), and prints per variant the
number of (trace, size) points where its hit ratio is within 2 points of the better of CLOCK
and LIFO (the target), its worst point, and the points it misses. --csv writes
`trace,size,policy,hit_ratio` rows.
"""

import argparse
import csv
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SIZES = "5%,10%,20%,30%,40%,50%,60%,70%,80%,90%,100%"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", help="directory of .trace files")
    ap.add_argument("variants", nargs="+", help="GAC specs (gac:key=value:...)")
    ap.add_argument("--bin", default=os.path.join(TARGET, "release", "ocgraph"))
    ap.add_argument("--csv", help="write trace,size,policy,hit_ratio rows here")
    a = ap.parse_args()
    traces = sorted(glob.glob(os.path.join(a.traces, "*.trace")))
    if not traces:
        sys.exit(f"no .trace files in {a.traces}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "hits.csv")
        for t in traces:
            cmd = [a.bin, "cache-sim", t, "--policies", ",".join(["clock", "lifo", *a.variants])]
            r = subprocess.run([*cmd, "--sizes", SIZES, "--csv", out], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
            name = os.path.basename(t)[: -len(".trace")]
            for row in csv.DictReader(open(out)):
                rows.append(
                    {
                        "trace": name,
                        "size": row["size"],
                        "policy": row["policy"],
                        "hit_ratio": row["hit_ratio"],
                    }
                )
    hr = {(r["trace"], r["size"], r["policy"]): float(r["hit_ratio"]) for r in rows}
    points = sorted({(r["trace"], r["size"]) for r in rows})
    for var in a.variants:
        misses = []
        for t, s in points:
            d = hr[(t, s, var)] - max(hr[(t, s, "clock")], hr[(t, s, "lifo")])
            if d < -0.02:
                misses.append((d, t, s))
        worst = min([d for d, _, _ in misses], default=0.0)
        print(
            f"{var:<36} within 2 points at {len(points) - len(misses)}/{len(points)}; worst {100 * worst:+.1f}"
        )
        for d, t, s in sorted(misses):
            print(f"    {t} {s}: {100 * d:+.1f}")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["trace", "size", "policy", "hit_ratio"])
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
