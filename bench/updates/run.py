#!/usr/bin/env python3
"""Update benchmark, write-back part: the LinkBench-like mix with batch vs single-page
write-back of the delta's dirty pages (seed 004).

Usage: bench/updates/run.py [--graph DIR | --scale S] [--ops N] [--seed S] [--zipf THETA]
                            [--memory-fraction F] [--policy NAME] [--page-size BYTES]
                            [--repeat R] [--small] [--no-build]

Without --graph, generates a Kronecker graph (edge factor 16, seed 1) of the given scale
(default 16) with the `ocgraph` CLI under bench/out. Runs examples/linkbench.rs, which opens
the graph with a buffer pool of F (default 5%) of its bytes and a PagedDelta whose pool holds
F of the delta's size (as built with the whole delta in memory), and runs the same
seeded mix once per write-back mode (`batch`: seed 004's longest-run write-back; `single`: the
policy's victim page by page; `batch-bg`: batch plus the background flusher), interleaved
operation by operation. Prints a table of per-operation latency (mean, p50,
p99 in microseconds) and the delta pool's write statistics per mode (random % = random
writes per write call; seeks/page = random writes per page written), and writes
bench/updates/results/linkbench-<graph>.csv (one row per mode and operation, with the mode's
write statistics repeated on each row), then the verdicts (`target MET` / `MISSED`):
batch issues fewer random writes than single, and is not slower on any operation (a mean
higher by more than 2 standard errors of the difference, or a p50 more than 2% + 0.05 us
higher).

With --repeat R, runs R times with seeds SEED..SEED+R-1 and pools them: an operation's mean
is over all its occurrences, its p50/p99 the median of the runs' values, the write counters
are summed; sizes (delta, pools) are the first run's. The means are dominated by rare
millisecond tails (page misses, a shared machine's scheduling), so one run's means vary by
+-20%; pooling runs narrows that.

--small (what `make bench` passes): scale 14 and 10000 operations (each unless given), the CSV
written to bench/out/ instead of bench/updates/results/ (whose files are committed). The CLI
is $OCGRAPH_BIN when set (not built then), else the release build; --no-build runs the binaries
already built (examples/linkbench too).
"""

import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
MODE_FIELDS = [
    "runs",
    "seconds",
    "flush_seconds",
    "write_calls",
    "random_writes",
    "random_write_ratio",
    "random_page_share",
    "pages_written",
    "bytes_written",
    "delta_misses",
    "graph_misses",
    "graph_bytes",
    "delta_bytes",
    "delta_final_bytes",
    "graph_pool",
    "delta_pool",
]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def ocgraph_bin():
    return os.environ.get("OCGRAPH_BIN") or os.path.join(TARGET, "release", "ocgraph")


def build():
    if not os.environ.get("OCGRAPH_BIN"):
        sh(["cargo", "build", "--release", "-q", "-p", "ocgraph-cli"], cwd=ROOT)
    sh(["cargo", "build", "--release", "-q", "-p", "ocgraph-core", "--example", "linkbench"], cwd=ROOT)


def ensure_graph(scale):
    out_dir = os.path.join(ROOT, "bench", "out")
    os.makedirs(out_dir, exist_ok=True)
    graph = os.path.join(out_dir, f"kron{scale}")
    if not os.path.exists(os.path.join(graph, "manifest")):
        print(f"generating {graph} ...", file=sys.stderr)
        sh(
            [
                ocgraph_bin(),
                "generate",
                "kronecker",
                "--scale",
                str(scale),
                "--edge-factor",
                "16",
                "--seed",
                "1",
                graph,
            ]
        )
    return graph


def run_once(graph, delta_dir, args, seed):
    """One linkbench run: (op records, mode records by mode)."""
    cmd = [
        os.path.join(TARGET, "release", "examples", "linkbench"),
        graph,
        "--ops",
        str(args.ops),
        "--seed",
        str(seed),
        "--zipf",
        str(args.zipf),
        "--memory-fraction",
        str(args.memory_fraction),
        "--policy",
        args.policy,
        "--page-size",
        args.page_size,
        "--delta-dir",
        delta_dir,
    ]
    lines = [json.loads(line) for line in sh(cmd).stdout.splitlines() if line.startswith("{")]
    return [r for r in lines if r["record"] == "op"], {r["mode"]: r for r in lines if r["record"] == "mode"}


def pool_runs(runs):
    """Pools runs: op means weighted by count, p50/p99 the median over runs, counters summed."""
    ops = {}
    for run_ops, _ in runs:
        for o in run_ops:
            ops.setdefault((o["mode"], o["op"]), []).append(o)
    pooled_ops = []
    for (mode, op), rs in ops.items():
        count = sum(r["count"] for r in rs)

        def med(k, rs=rs):
            return sorted(r[k] for r in rs)[len(rs) // 2]

        mean = sum(r["mean_us"] * r["count"] for r in rs) / count if count else 0.0
        sq_mean = sum(r["sq_mean_us2"] * r["count"] for r in rs) / count if count else 0.0
        pooled_ops.append(
            {
                "mode": mode,
                "op": op,
                "count": count,
                "mean_us": mean,
                # Standard error of the mean, from the pooled variance of the latencies.
                "sem_us": (max(sq_mean - mean * mean, 0.0) / count) ** 0.5 if count else 0.0,
                "p50_us": med("p50_us"),
                "p99_us": med("p99_us"),
            }
        )
    modes = {}
    for _, run_modes in runs:
        for m, s in run_modes.items():
            if m not in modes:
                modes[m] = dict(s)
                continue
            for k in (
                "ops",
                "seconds",
                "flush_seconds",
                "write_calls",
                "random_writes",
                "pages_written",
                "bytes_written",
                "delta_misses",
                "graph_misses",
            ):
                modes[m][k] += s[k]
    for s in modes.values():
        s["runs"] = len(runs)
        s["random_write_ratio"] = s["random_writes"] / s["write_calls"] if s["write_calls"] else 0.0
        # Share of the pages written back that needed a seek (random writes per page written).
        s["random_page_share"] = s["random_writes"] / s["pages_written"] if s["pages_written"] else 0.0
    return pooled_ops, modes


# What one latency sample can resolve (an `Instant::now()` pair costs ~20-50 ns).
TIMER_RESOLUTION_US = 0.05


def check_targets(by_op, modes):
    """Prints the verdicts: batch write-back issues fewer random writes than single-page
    write-back, and is not slower on any operation. "Slower" means a pooled mean higher by more
    than twice the standard error of the difference (the means are dominated by rare
    millisecond tails), or a median p50 more than 2% (the runs' resolution) plus the timer's
    resolution higher."""
    b, s = modes.get("batch"), modes.get("single")
    if not b or not s:
        return
    fewer = b["random_writes"] < s["random_writes"] or (b["random_writes"] == 0 == s["random_writes"])
    verdict = "MET" if fewer else "MISSED"
    print(
        f"target {verdict}: batch write-back issues fewer random writes ({b['random_writes']} vs "
        f"{s['random_writes']}; write calls {b['write_calls']} vs {s['write_calls']})"
    )
    slower, lines = [], []
    for op, per in by_op.items():
        pb, ps = per["batch"], per["single"]
        diff = pb["mean_us"] - ps["mean_us"]
        se = (pb["sem_us"] ** 2 + ps["sem_us"] ** 2) ** 0.5
        lines.append(
            f"  {op:<12} mean {pb['mean_us']:.1f} vs {ps['mean_us']:.1f} us (diff {diff:+.1f} +- {2 * se:.1f}), "
            f"p50 {pb['p50_us']:.1f} vs {ps['p50_us']:.1f} us"
        )
        if diff > 2 * se:
            slower.append(f"{op} mean {pb['mean_us']:.1f} vs {ps['mean_us']:.1f} us")
        if pb["p50_us"] > 1.02 * ps["p50_us"] + TIMER_RESOLUTION_US:
            slower.append(f"{op} p50 {pb['p50_us']:.1f} vs {ps['p50_us']:.1f} us")
    print("batch vs single per operation (diff +- 2 standard errors):")
    print("\n".join(lines))
    verdict = "MISSED" if slower else "MET"
    print(
        f"target {verdict}: batch not slower than single on any operation (mean beyond 2 SE, p50 beyond 2%)"
        + (": " + "; ".join(slower) if slower else "")
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph")
    ap.add_argument("--scale", type=int, help="Kronecker scale without --graph (default 16; --small: 14)")
    ap.add_argument("--ops", type=int, help="operations per run (default 50000; --small: 10000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--zipf", type=float, default=0.9)
    ap.add_argument("--memory-fraction", type=float, default=0.05)
    ap.add_argument("--policy", default="clock")
    ap.add_argument("--page-size", default="4096")
    ap.add_argument("--repeat", type=int, default=1, help="runs with seeds SEED, SEED+1, ...; pooled")
    ap.add_argument(
        "--small",
        action="store_true",
        help="a small, fast run for `make bench`: scale 14, 10000 ops, CSV in bench/out",
    )
    ap.add_argument("--no-build", action="store_true", help="run the binaries already built")
    args = ap.parse_args()
    args.scale = args.scale or (14 if args.small else 16)
    args.ops = args.ops or (10000 if args.small else 50000)

    if not args.no_build:
        build()
    graph = args.graph or ensure_graph(args.scale)
    delta_dir = os.path.dirname(os.path.abspath(graph))
    runs = [run_once(graph, delta_dir, args, args.seed + r) for r in range(args.repeat)]
    ops, modes = pool_runs(runs)
    name = os.path.basename(os.path.normpath(graph))
    first = next(iter(modes.values()))
    print(
        f"graph {name}: {first['graph_bytes'] / 2**20:.1f} MiB, pool {first['graph_pool'] / 2**20:.2f} MiB; "
        f"delta {first['delta_bytes'] / 2**20:.1f} MiB, pool {first['delta_pool'] / 2**20:.2f} MiB; "
        f"{first['ops']} ops, zipf {args.zipf}, policy {args.policy}"
    )
    print(
        f"{'op':<12} {'count':>7} "
        + " ".join(f"{m + ' ' + s:>14}" for m in modes for s in ("mean", "p50", "p99"))
    )
    by_op = {}
    for o in ops:
        by_op.setdefault(o["op"], {})[o["mode"]] = o
    for op, per in by_op.items():
        cells = []
        for m in modes:
            cells += [
                f"{per[m]['mean_us']:>14.1f}",
                f"{per[m]['p50_us']:>14.1f}",
                f"{per[m]['p99_us']:>14.1f}",
            ]
        print(f"{op:<12} {next(iter(per.values()))['count']:>7} " + " ".join(cells))
    print()
    print(
        f"{'mode':<8} {'seconds':>8} {'write calls':>12} {'random writes':>14} {'random %':>9} {'seeks/page':>10} {'pages written':>14} {'MiB written':>12}"
    )
    for m, s in modes.items():
        print(
            f"{m:<8} {s['seconds']:>8.2f} {s['write_calls']:>12} {s['random_writes']:>14} "
            f"{100 * s['random_write_ratio']:>8.1f}% {s['random_page_share']:>10.2f} {s['pages_written']:>14} {s['bytes_written'] / 2**20:>12.1f}"
        )

    print()
    check_targets(by_op, modes)
    # A --small run stays out of results/, whose files are committed.
    out_dir = os.path.join(ROOT, "bench", "out") if args.small else os.path.join(HERE, "results")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"linkbench-{name}.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "graph",
                "ops",
                "zipf",
                "memory_fraction",
                "policy",
                "mode",
                "op",
                "count",
                "mean_us",
                "p50_us",
                "p99_us",
                *MODE_FIELDS,
            ]
        )
        for o in ops:
            s = modes[o["mode"]]
            w.writerow(
                [name, s["ops"], args.zipf, args.memory_fraction, args.policy, o["mode"], o["op"], o["count"]]
                + [round(o[k], 3) for k in ("mean_us", "p50_us", "p99_us")]
                + [s[k] for k in MODE_FIELDS]
            )
    print(f"\nwrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
