#!/usr/bin/env python3
"""Online-query benchmark (seed 000): edge queries, friends-of-friends and shortest paths with
the four prefetchers (none, neighbourhood, sequential, omniscient), cold start, memory at 10%
of the graph.

Usage: bench/queries/run.py [--graph DIR ...] [--real] [--quick | --small] [--max-n N] [--fof-max N]
                            [--pairs P] [--backends mmap,pool] [--alphas 0.1,0.5,1] [--repeat R]
                            [--modes none,neighbourhood,sequential,omniscient]

Graphs: --graph DIRs (default /work/tmp/k22, kron22, if it exists; else a Kronecker graph of
--scale, default 22, 14 with --quick, generated with the CLI) and, with --real, the real graphs
of data/ imported with the CLI into bench/out/graphs/. Workloads (ocgraph workload, seed 1):
alpha-recency edge queries (--queue 1000) for each alpha with N = --max-n (default 1M; 10K with
--quick), friends-of-friends with N = --fof-max (default 50K; 1K with --quick), and --pairs
random shortest-path pairs (default 20; 5 with --quick). Each (graph, backend, workload, prefetcher) is one `ocgraph query`
process, so the pool starts empty; mmap runs under `../shared/tools/memcap --drop-caches SIZE`
(or $OCGRAPH_MEMCAP) so the page cache starts cold and holds at most SIZE (flagged "uncapped"
if memcap fails). With --mmap-limit probe the limit is instead the memory on top of what the
process holds by itself, measured per mode by the peak resident set of a one-query run
(`mmap_limit`), which makes graphs whose 10% is below the process's own pages measurable. A
stream of N queries is the prefix of the longer one, so one run gives the time for every N (the
runner's progress checkpoints 1, 2, 5, 10, ...). --quick (or its alias --small, which `make
bench` passes): kron14 unless --scale or --graph is given, the small N above, --mmap-limit probe
unless given (10% of kron14 is below the process's own pages), output stem queries_quick. The
ocgraph binary is --bin, else $OCGRAPH_BIN, else the release build.

Every mode runs with the same backend settings: the runner advises MADV_RANDOM (mmap) / no
read-ahead (pool) on the graph files before the queries (RunOptions::random_advice), since
read-ahead on random queries reads mostly pages nobody asks for (kron22 at 10% memory: 12 GB
for 5000 edge queries on the pool, 6-10 GB per 1000 on mmap). --repeat R runs the four modes R
times, interleaved, and reports each mode's median run (the machine is shared and noisy) and,
as "paired", the median over the repetitions of none's time over the mode's in that repetition.

Reports per run: total time, time after the cold-cache period (the last 90% of the queries:
t(N) - t(N/10)), latency p50/p99, and how much of the omniscient gain each prefetcher reaches
((t_none - t_mode) / (t_none - t_omniscient), on the post-cold time). Prints a table, writes
bench/out/NAME.csv (one row per run) and bench/out/NAME-progress.csv (time against N), and
bench/out/NAME.png (time against N per workload); NAME = --name, default queries (queries_quick
with --quick).
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
MEMCAP = os.environ.get("OCGRAPH_MEMCAP", os.path.join(ROOT, "..", "shared", "tools", "memcap"))
OUT = os.path.join(ROOT, "bench", "out")
BIN = os.path.join(TARGET, "release", "ocgraph")
MODES = ["none", "neighbourhood", "sequential", "omniscient"]
REAL = [
    ("ca-AstroPh", "ca-AstroPh.txt.gz", ["--undirected", "--dedup", "--relabel"]),
    ("road-usroads", "road-usroads.mtx.gz", ["--undirected", "--dedup"]),
    ("cnr-2000", "cnr-2000.el.gz", ["--dedup"]),
]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def graph_bytes(g):
    return sum(os.path.getsize(os.path.join(g, f)) for f in os.listdir(g) if f != "manifest")


def graphs(args):
    out = []
    for g in args.graph or []:
        out.append((os.path.basename(os.path.normpath(g)), g))
    if not args.graph and not args.real_only:
        k22 = "/work/tmp/k22"
        if os.path.isdir(k22) and args.scale == 22:
            out.append(("kron22", k22))
        else:
            g = os.path.join(OUT, "graphs", f"kron{args.scale}")
            if not os.path.isdir(g):
                sh([BIN, "generate", "kronecker", g, "--scale", str(args.scale), "--quiet"])
            out.append((f"kron{args.scale}", g))
    if args.real:
        for name, file, flags in REAL:
            g = os.path.join(OUT, "graphs", name)
            if not os.path.isdir(g):
                sh([BIN, "import", os.path.join(ROOT, "data", file), g, *flags])
            out.append((name, g))
    return out


def workloads(args, g, wdir):
    """[(label, file, probe)] for graph g, generated once per graph; `probe` holds the first query
    of the same kind only (see `mmap_limit`)."""
    os.makedirs(wdir, exist_ok=True)
    specs = []
    if "edge" in args.kinds:
        specs += [
            (f"edge a={a:g}", ["edge-queries", "--alpha", str(a), "--queue", "1000"], args.max_n)
            for a in args.alphas
        ]
    if "fof" in args.kinds:
        specs.append(("fof", ["fof"], args.fof_max))
    if "shortest-path" in args.kinds:
        specs.append(("shortest-path", ["shortest-path"], args.pairs))
    out = []
    for label, kind, n in specs:
        files = []
        for count in (n, 1):
            f = os.path.join(wdir, label.replace(" ", "_").replace("=", "") + f"-{count}.bin")
            if not os.path.exists(f):
                sh([BIN, "workload", kind[0], g, *kind[1:], "--count", str(count), "--seed", "1", "--out", f])
            files.append(f)
        out.append((label, *files))
    return out


def query(g, wfile, backend, memory, mode, limit=None):
    """One `ocgraph query` run; on mmap under memcap at `limit` bytes (default `memory`). With
    a limit (`mmap_limit`), `memory` is the graph's pages' alone: no lock reserve."""
    cmd = [BIN, "query", g, "--workload", wfile, "--backend", backend, "--memory", str(memory)]
    cmd += ["--prefetch", mode, "--json"] + (["--lock-reserve", "0"] if limit else [])
    if backend == "mmap":
        cap = str(limit or memory)
        r = subprocess.run([MEMCAP, "--drop-caches", cap, "--", *cmd], text=True, capture_output=True)
        if r.returncode == 0 and r.stdout.strip():
            return json.loads(r.stdout.strip().splitlines()[-1]), "capped"
        print(f"  (memcap failed, uncapped: {r.stderr.strip()[:200]})", file=sys.stderr)
        r = sh(cmd)
        return json.loads(r.stdout.strip().splitlines()[-1]), "uncapped"
    r = sh(cmd)
    return json.loads(r.stdout.strip().splitlines()[-1]), "empty pool"


def mmap_limit(g, wfile, probe, memory, mode):
    """A memcap limit (bytes) giving the graph's pages about `memory` bytes of page cache on top
    of what the process cannot give up: the peak resident set of the same run answering only
    `probe` (one query: its heap and per-vertex arrays, the binary's pages it runs, a few graph
    pages; `peak_rss_bytes` of its report) plus the workload file's size (the runner keeps a
    copy) plus `memory`. Pages cached but not mapped (the binary's and the workload file's
    read-ahead) are reclaimed before the graph's mapped pages, so they are not counted.
    (memcap's own peak of that run is no measure of it: it counts those, and on this kernel
    16 MB of the binary and both offsets files of cnr-2000 were cached after one query.)"""
    cmd = [BIN, "query", g, "--workload", probe, "--backend", "mmap", "--memory", str(memory)]
    cmd += ["--prefetch", mode, "--json", "--lock-reserve", "0"]
    # From a cold cache, as the real run: a fault maps the cached pages around it too, so a warm
    # cache inflates the resident set.
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3")
    except OSError:
        pass
    peak = json.loads(sh(cmd).stdout.strip().splitlines()[-1])["peak_rss_bytes"]
    if peak is None:
        sys.exit("the probe run reported no peak resident set (no /proc/self/status here)")
    return peak + os.path.getsize(wfile) + memory


def post_cold(progress):
    """t(N) - t(N/10) from the progress checkpoints (the whole time when N < 10)."""
    n, t = progress[-1]
    before = [tt for nn, tt in progress if nn <= n // 10]
    return t - (before[-1] if before else 0.0)


def chart(rows, progress, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available: no chart", file=sys.stderr)
        return
    panels = sorted({(r["graph"], r["backend"], r["workload"]) for r in rows})
    cols = 4
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.2 * nrows), squeeze=False)
    for ax, (g, b, w) in zip(axes.flat, panels):
        for mode in MODES:
            pts = [
                (p["n"], p["seconds"])
                for p in progress
                if (p["graph"], p["backend"], p["workload"], p["prefetch"]) == (g, b, w, mode)
            ]
            if pts:
                ax.plot(*zip(*pts), marker=".", label=mode)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{g} {b}: {w}", fontsize=9)
        ax.set_xlabel("queries N")
        ax.set_ylabel("seconds")
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"chart: {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", action="append", help="graph directory (repeatable)")
    ap.add_argument(
        "--scale", type=int, help="Kronecker scale when no --graph is given (default 22; --quick: 14)"
    )
    ap.add_argument("--real", action="store_true", help="also the real graphs of data/")
    ap.add_argument("--real-only", action="store_true", help="only the real graphs of data/ (implies --real)")
    ap.add_argument(
        "--quick",
        "--small",
        action="store_true",
        help="kron14, small N: 10K edge queries, 1K FoF, 5 pairs; --mmap-limit probe "
        "(--small: the same, for `make bench`)",
    )
    ap.add_argument("--max-n", type=int, help="edge queries per stream (default 1M, quick 10K)")
    ap.add_argument("--fof-max", type=int, help="friends-of-friends queries (default 50K, quick 1K)")
    ap.add_argument("--pairs", type=int, help="shortest-path pairs (default 20, quick 5)")
    ap.add_argument("--backends", default="mmap,pool")
    ap.add_argument("--alphas", default="0.1,0.5,1")
    ap.add_argument("--kinds", default="edge,fof,shortest-path", help="query kinds to run (comma-separated)")
    ap.add_argument(
        "--modes", default=",".join(MODES), help="prefetchers to run (none and omniscient are always run)"
    )
    ap.add_argument("--fraction", type=float, default=0.10, help="memory as a fraction of the graph")
    ap.add_argument(
        "--repeat", type=int, default=1, help="runs per mode (interleaved); the median is reported"
    )
    ap.add_argument(
        "--mmap-limit",
        choices=["memory", "probe"],
        help="mmap's memcap limit: the memory itself (default, but probe with --quick; the process's own "
        "pages count in it too), or the memory on top of the process's own peak resident set in a one-query run "
        "(probe; for graphs whose 10%% is small next to the process)",
    )
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument(
        "--bin",
        default=os.environ.get("OCGRAPH_BIN"),
        help="ocgraph binary to run (default: $OCGRAPH_BIN, else build and use target/release)",
    )
    ap.add_argument(
        "--name", help="output file prefix in bench/out/ (default queries; --quick: queries_quick)"
    )
    args = ap.parse_args()
    args.scale = args.scale or (14 if args.quick else 22)
    args.mmap_limit = args.mmap_limit or ("probe" if args.quick else "memory")
    args.name = args.name or ("queries_quick" if args.quick else "queries")
    args.max_n = args.max_n or (10_000 if args.quick else 1_000_000)
    args.fof_max = args.fof_max or (1_000 if args.quick else 50_000)
    args.pairs = args.pairs or (5 if args.quick else 20)
    args.real = args.real or args.real_only
    args.alphas = [float(a) for a in args.alphas.split(",")]
    args.kinds = set(args.kinds.split(","))
    if args.kinds - {"edge", "fof", "shortest-path"}:
        ap.error(f"unknown query kinds: {sorted(args.kinds - {'edge', 'fof', 'shortest-path'})}")
    asked = set(args.modes.split(",")) | {"none", "omniscient"}
    if asked - set(MODES):
        ap.error(f"unknown prefetchers: {sorted(asked - set(MODES))}")
    args.modes = [m for m in MODES if m in asked]
    global BIN
    if args.bin:
        BIN = os.path.abspath(args.bin)
    elif not args.no_build:
        sh(["cargo", "build", "--release", "-q", "-p", "ocgraph-cli"], cwd=ROOT)
    os.makedirs(OUT, exist_ok=True)
    rows, progress = [], []
    hdr = f"{'graph':<13} {'backend':<5} {'workload':<14} {'prefetch':<13} {'N':>8} {'total s':>8} {'post-cold s':>11} {'vs none':>8} {'paired':>7} {'of omni':>8} {'p50 us':>8} {'p99 us':>9} {'MB read':>8}  note"
    print(hdr)
    for gname, g in graphs(args):
        memory = max(int(graph_bytes(g) * args.fraction) // 4096 * 4096, 2 * 4096)
        for label, wfile, probe in workloads(args, g, os.path.join(OUT, "workloads", gname)):
            for backend in args.backends.split(","):
                limits = {}
                if backend == "mmap" and args.mmap_limit == "probe":
                    limits = {mode: mmap_limit(g, wfile, probe, memory, mode) for mode in args.modes}
                    shown = ", ".join(f"{m} {v / 2**20:.1f}" for m, v in limits.items())
                    print(
                        f"  ({gname} {label}: mmap limits MiB {shown}; {memory / 2**20:.2f} of it for the graph)"
                    )
                base = {}
                # --repeat R: the four modes run R times, interleaved (none, neighbourhood, ...,
                # none, ...), so that load from other jobs hits every mode alike; each mode
                # reports its median run (by post-cold time).
                runs = {mode: [] for mode in args.modes}
                for _ in range(args.repeat):
                    for mode in args.modes:
                        r, note = query(g, wfile, backend, memory, mode, limits.get(mode))
                        runs[mode].append((post_cold(r["progress"]), r, note))
                for mode in args.modes:
                    ordered = sorted(runs[mode], key=lambda x: x[0])
                    warm, r, note = ordered[(len(ordered) - 1) // 2]
                    base[mode] = warm
                    row = {
                        "graph": gname,
                        "backend": backend,
                        "workload": label,
                        "prefetch": mode,
                        "queries": r["queries"],
                        "memory_bytes": memory,
                        "mmap_limit_bytes": limits.get(mode) or (memory if backend == "mmap" else ""),
                        "seconds": r["seconds"],
                        "post_cold_seconds": warm,
                        "p50_us": r["latency"]["p50_us"],
                        "p95_us": r["latency"]["p95_us"],
                        "p99_us": r["latency"]["p99_us"],
                        "max_us": r["latency"]["max_us"],
                        "bytes_read": r["io"]["bytes_read"],
                        "misses": r["io"]["misses"],
                        "advised_ranges": r["advisor"]["ranges"],
                        "ring_stale": r["advisor"]["stale"],
                        "ring_lost": r["advisor"]["lost"],
                        "predicted_hits": r["advisor"].get("predicted_hits", 0),
                        "gated": r["advisor"].get("gated", 0),
                        "uncached": r["advisor"].get("uncached", 0),
                        "kept": r["advisor"].get("kept", 0),
                        "kept_lists": r["advisor"].get("kept_lists", 0),
                        "runs": len(ordered),
                        "post_cold_all": " ".join(f"{x[0]:.3f}" for x in runs[mode]),
                        "note": note,
                    }
                    none, omni = base["none"], base.get("omniscient")
                    row["speedup_vs_none"] = none / warm if warm > 0 else float("nan")
                    # Median of the repetitions' own ratios (none and this mode run back to back).
                    pairs = [a[0] / b[0] for a, b in zip(runs["none"], runs[mode]) if b[0] > 0]
                    row["paired_speedup"] = statistics.median(pairs) if pairs else float("nan")
                    rows.append(row)
                    for n, t in r["progress"]:
                        progress.append(
                            {
                                "graph": gname,
                                "backend": backend,
                                "workload": label,
                                "prefetch": mode,
                                "n": n,
                                "seconds": t,
                            }
                        )
                # Fraction of the omniscient gain, once the omniscient run is known.
                omni = base["omniscient"]
                for row in rows[-len(args.modes) :]:
                    gain = base["none"] - omni
                    row["of_omniscient"] = (
                        (base["none"] - row["post_cold_seconds"]) / gain if gain > 0 else float("nan")
                    )
                    print(
                        f"{gname:<13} {backend:<5} {label:<14} {row['prefetch']:<13} {row['queries']:>8} "
                        f"{row['seconds']:>8.3f} {row['post_cold_seconds']:>11.3f} {row['speedup_vs_none']:>7.2f}x "
                        f"{row['paired_speedup']:>6.2f}x {row['of_omniscient']:>8.2f} {row['p50_us']:>8.1f} {row['p99_us']:>9.1f} "
                        f"{row['bytes_read'] / 1e6:>8.1f}  {row['note']}",
                        flush=True,
                    )
    path = os.path.join(OUT, f"{args.name}.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(OUT, f"{args.name}-progress.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(progress[0].keys()))
        w.writeheader()
        w.writerows(progress)
    print(f"csv: {path}")
    chart(rows, progress, os.path.join(OUT, f"{args.name}.png"))


if __name__ == "__main__":
    main()
