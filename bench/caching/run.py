#!/usr/bin/env python3
"""Caching study (seed 001): GAC vs static policies vs Belady's OPT on graph kernels.

Usage: bench/caching/run.py [--scale 22] [--quick | --small] [--bin PATH] [--threads T] [--out DIR]
                           [--algos pagerank,wcc,...] [--no-real] [--pool-timeout SECS]

--algos runs a subset of the kernels and --no-real only the Kronecker graph (partial studies,
e.g. kron22 without triangle counting, which takes minutes per run at that scale). OUT is --out
(default bench/caching/out); the binary --bin, else $OCGRAPH_BIN, else the release build.

1. Graphs: a Kronecker graph of 2^scale vertices (`ocgraph generate`) and the real graphs of
   data/ (`ocgraph import`); --quick (or its alias --small, which `make bench` passes): scale 16
   and ca-AstroPh only, OUT bench/out/caching_quick (git-ignored) unless --out is given.
2. Traces: `ocgraph run ALGO G --backend pool --memory 25% --trace` for pagerank, wcc,
   triangle-count, bfs and diameter (BFS and diameter from the highest-degree vertex).
3. Hit ratios: `ocgraph cache-sim` of every trace at 5%..100% of its distinct pages for clock,
   lru, fifo, lifo, random, s3fifo, arc, gac, opt; the table per (workload, size) gives GAC
   minus the better of CLOCK and LIFO (target: >= -2 points), where GAC beats both, and its
   distance to OPT. Writes OUT/hits.csv (workload,policy,size,hit_ratio,...) and OUT/hits.png.
   --variants (default gac:guided=0, GAC without guided LIFO) are GAC settings replayed over the
   same traces: the same count for each, an ablation free of the run-to-run change of the
   traces. --keep-traces leaves the traces in OUT.
4. Policy CPU per miss: `cache-sim` of every trace with CLOCK alone and GAC alone at all sizes,
   CPU seconds (user+sys) over the misses simulated (cold + capacity): the policy's own cost
   (the replay's bookkeeping is the same for both). Writes OUT/policy_cpu.csv.
5. Real pool runs at 10%, 30%, 60% of the graph's bytes with CLOCK, LIFO and GAC (each stopped
   after --pool-timeout seconds, default 900): kernel time,
   bytes read, demand misses, process CPU per 4 KiB page read. GAC's extra CPU per miss (step
   4: GAC minus CLOCK) is compared with CLOCK's CPU per page read in these runs (an upper bound
   of what a miss costs CLOCK: the kernel's own work is included), target <= 10%.
   Writes OUT/pool.csv.
"""

import argparse
import array
import csv
import functools
import json
import math
import os
import re
import resource
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
ALGOS = ["pagerank", "wcc", "triangle-count", "bfs", "diameter"]
POLICIES = "clock,lru,fifo,lifo,random,s3fifo,arc,gac,opt"
SIZES = "5%,10%,20%,30%,40%,50%,60%,70%,80%,90%,100%"
REAL = [
    ("ca-AstroPh", "ca-AstroPh.txt.gz", ["--undirected", "--dedup", "--relabel"]),
    ("road-usroads", "road-usroads.mtx.gz", ["--undirected", "--dedup", "--relabel"]),
    ("cnr-2000", "cnr-2000.el.gz", ["--dedup", "--relabel"]),
]


def sh(cmd, timeout=None):
    """Runs cmd, exits on failure; raises subprocess.TimeoutExpired after `timeout` seconds."""
    r = subprocess.run(cmd, text=True, capture_output=True, timeout=timeout)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r


def graph_bytes(g):
    return sum(os.path.getsize(os.path.join(g, f)) for f in os.listdir(g))


def run_timed(cmd, timeout=None):
    """Runs cmd; returns (stdout, stderr, child CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = sh(cmd, timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r.stdout, r.stderr, cpu


@functools.cache
def max_degree_vertex(g):
    """The vertex with the most out-arcs of graph directory `g` (the BFS and diameter source:
    vertex 0 of a relabelled real graph may reach almost nothing, e.g. 3 pages of cnr-2000)."""
    with open(os.path.join(g, "manifest"), "rb") as f:
        raw = f.read()
    n = json.loads(raw[raw.index(b"{") :])["num_vertices"]
    off = array.array("Q")
    with open(os.path.join(g, "out.offsets"), "rb") as f:
        off.frombytes(f.read(8 * (n + 1)))
    return max(range(n), key=lambda v: off[v + 1] - off[v])


def pool_run_cmd(binary, algo, g, mem, policy, threads):
    """`ocgraph run ALGO G` on a buffer pool of `mem` bytes with `policy`, printing I/O stats;
    BFS and the diameter estimate start from the highest-degree vertex."""
    source = ["--source", str(max_degree_vertex(g))] if algo in ("bfs", "diameter") else []
    return [
        binary,
        "run",
        algo,
        g,
        "--backend",
        "pool",
        "--memory",
        str(mem),
        "--policy",
        policy,
        "--threads",
        str(threads),
        "--stats",
        *source,
    ]


def stats_of(stderr):
    for line in stderr.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    return {}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument(
        "--quick",
        "--small",
        action="store_true",
        help="scale 16, one real graph, --out bench/out/caching_quick (--small: the same, for `make bench`)",
    )
    ap.add_argument(
        "--bin",
        default=os.environ.get("OCGRAPH_BIN") or os.path.join(TARGET, "release", "ocgraph"),
        help="ocgraph binary (default: $OCGRAPH_BIN, else the release build, built when missing)",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--out", help="output directory (default bench/caching/out; --quick: bench/out/caching_quick)"
    )
    ap.add_argument("--algos", default=",".join(ALGOS), help="comma-separated subset of the kernels")
    ap.add_argument("--no-real", action="store_true", help="only the Kronecker graph")
    ap.add_argument(
        "--variants",
        default="gac:guided=0",
        help="comma-separated GAC settings (gac:key=value:...) also replayed over every trace",
    )
    ap.add_argument("--keep-traces", action="store_true", help="keep the traces in --out")
    ap.add_argument(
        "--pool-timeout",
        type=float,
        default=900,
        help="seconds before a real pool run is stopped (reported as nan seconds, 0 bytes)",
    )
    a = ap.parse_args()
    algos = a.algos.split(",")
    variants = [v for v in a.variants.split(",") if v]
    unknown = set(algos) - set(ALGOS)
    if unknown:
        ap.error(f"unknown kernels {sorted(unknown)}; choose from {ALGOS}")
    scale = 16 if a.quick else a.scale
    if not a.out:
        quick_out = os.path.join(ROOT, "bench", "out", "caching_quick")
        a.out = quick_out if a.quick else os.path.join(ROOT, "bench", "caching", "out")
    if not os.path.exists(a.bin):
        sh(["cargo", "build", "--release", "-q", "-p", "ocgraph-cli"])
    os.makedirs(a.out, exist_ok=True)
    gdir = os.path.join(a.out, "graphs")
    os.makedirs(gdir, exist_ok=True)

    graphs = []
    k = os.path.join(gdir, f"kron{scale}")
    if not os.path.exists(k):
        sh([a.bin, "generate", "kronecker", k, "--scale", str(scale), "--quiet"])
    graphs.append((f"kron{scale}", k))
    for name, f, flags in [] if a.no_real else REAL[:1] if a.quick else REAL:
        g = os.path.join(gdir, name)
        if not os.path.exists(g):
            sh([a.bin, "import", os.path.join(ROOT, "data", f), g, "--quiet", *flags])
        graphs.append((name, g))

    # Traces and simulations.
    rows = []
    cpu_rows = []
    for gname, g in graphs:
        mem = max(graph_bytes(g) // 4, 64 << 10)
        for algo in algos:
            wl = f"{algo}/{gname}"
            t = os.path.join(a.out, f"{algo}-{gname}.trace")
            sh([*pool_run_cmd(a.bin, algo, g, mem, "clock", a.threads), "--trace", t])
            c = os.path.join(a.out, f"{algo}-{gname}.csv")
            sh(
                [
                    a.bin,
                    "cache-sim",
                    t,
                    "--policies",
                    ",".join([POLICIES, *variants]),
                    "--sizes",
                    SIZES,
                    "--csv",
                    c,
                    "--score-trace",
                    os.path.join(a.out, f"{algo}-{gname}.score.csv"),
                ]
            )
            for pol in ("clock", "gac"):
                pc = os.path.join(a.out, f"{algo}-{gname}.{pol}.csv")
                _, _, cpu = run_timed(
                    [a.bin, "cache-sim", t, "--policies", pol, "--sizes", SIZES, "--csv", pc]
                )
                misses = sum(
                    int(r["capacity_misses"]) + int(r["cold_misses"]) for r in csv.DictReader(open(pc))
                )
                os.remove(pc)
                cpu_rows.append({"workload": wl, "policy": pol, "misses": misses, "cpu_s": cpu})
            if not a.keep_traces:
                os.remove(t)
            for r in csv.DictReader(open(c)):
                r["workload"] = wl
                rows.append(r)
            print(f"simulated {wl}", file=sys.stderr)
    hits_csv = os.path.join(a.out, "hits.csv")
    with open(hits_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["workload"] + [k for k in rows[0] if k != "workload"])
        w.writeheader()
        w.writerows(rows)

    # Table: GAC vs the better of CLOCK and LIFO, and vs OPT.
    hr = {(r["workload"], r["policy"], r["size"]): float(r["hit_ratio"]) for r in rows}
    points = sorted({(r["workload"], r["size"]) for r in rows}, key=lambda p: (p[0], float(p[1].rstrip("%"))))
    print(
        f"\n{'workload':<28} {'size':>5} {'clock':>6} {'lifo':>6} {'s3fifo':>6} {'arc':>6} {'gac':>6} {'opt':>6} {'gac-best':>8}"
    )
    worst, wins, within = 0.0, [], 0
    for wl, s in points:
        v = {p: hr[(wl, p, s)] for p in ("clock", "lifo", "s3fifo", "arc", "gac", "opt")}
        d = v["gac"] - max(v["clock"], v["lifo"])
        worst = min(worst, d)
        within += d >= -0.02
        if d > 0.005:
            wins.append((wl, s, d, v["opt"] - v["gac"]))
        print(
            f"{wl:<28} {s:>5} {v['clock']:6.3f} {v['lifo']:6.3f} {v['s3fifo']:6.3f} {v['arc']:6.3f} "
            f"{v['gac']:6.3f} {v['opt']:6.3f} {100 * d:+7.1f}p"
        )
    print(
        f"\nGAC within 2 points of max(CLOCK, LIFO) at {within}/{len(points)} points; worst {100 * worst:+.1f} points"
    )
    for wl, s, d, o in wins:
        print(f"GAC beats both at {wl} {s}: +{100 * d:.1f} points, {100 * o:.1f} points below OPT")
    for var in variants:
        d = [hr[(wl, var, s)] - max(hr[(wl, "clock", s)], hr[(wl, "lifo", s)]) for wl, s in points]
        print(
            f"variant {var} on the same traces: within 2 points at {sum(x >= -0.02 for x in d)}/{len(points)} "
            f"points; worst {100 * min(d):+.1f} points"
        )
    try:
        sh(
            [
                sys.executable,
                os.path.join(ROOT, "bench", "caching", "plot.py"),
                hits_csv,
                "--out",
                os.path.join(a.out, "hits.png"),
            ]
        )
    except SystemExit as e:
        print(f"(no chart: {e})", file=sys.stderr)

    # Policy CPU per miss (simulator).
    with open(os.path.join(a.out, "policy_cpu.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(cpu_rows[0]))
        w.writeheader()
        w.writerows(cpu_rows)
    tot = {p: [0, 0.0] for p in ("clock", "gac")}
    for r in cpu_rows:
        tot[r["policy"]][0] += r["misses"]
        tot[r["policy"]][1] += r["cpu_s"]
    ns = {p: 1e9 * c / max(m, 1) for p, (m, c) in tot.items()}
    extra_ns = ns["gac"] - ns["clock"]
    print(
        f"\npolicy CPU per simulated miss (all traces): CLOCK {ns['clock']:.0f} ns, GAC {ns['gac']:.0f} ns, "
        f"GAC extra {extra_ns:.0f} ns"
    )

    # Real pool runs.
    pool_rows = []
    for gname, g in graphs[:1] if a.quick else graphs:
        gb = graph_bytes(g)
        for algo in [x for x in ("pagerank", "triangle-count") if x in algos]:
            for frac in (0.1, 0.3, 0.6):
                mem = max(int(gb * frac), 64 << 10)
                for pol in ("clock", "lifo", "gac"):
                    try:
                        out, err, cpu = run_timed(
                            pool_run_cmd(a.bin, algo, g, mem, pol, a.threads), a.pool_timeout
                        )
                    except subprocess.TimeoutExpired:
                        print(
                            f"{algo}/{gname} {pol} at {frac:.0%}: over {a.pool_timeout} s, stopped",
                            flush=True,
                        )
                        out, err, cpu = "", "", float("nan")
                    m = re.search(r"mean ([0-9.]+) s", out)
                    st = stats_of(err)
                    pages = max(st.get("bytes_read", 0) // 4096, 1)
                    pool_rows.append(
                        {
                            "graph": gname,
                            "algo": algo,
                            "memory": f"{int(frac * 100)}%",
                            "policy": pol,
                            "secs": float(m.group(1)) if m else float("nan"),
                            "bytes_read": st.get("bytes_read", 0),
                            "misses": st.get("misses", 0),
                            "hit_ratio": st.get("hit_ratio", 0.0),
                            "cpu_s": cpu,
                            "cpu_per_page_us": 1e6 * cpu / pages,
                        }
                    )
    with open(os.path.join(a.out, "pool.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(pool_rows[0]))
        w.writeheader()
        w.writerows(pool_rows)
    print(
        f"\n{'graph':<14} {'algo':<15} {'mem':>4} {'policy':<6} {'secs':>8} {'MB read':>9} {'misses':>9} {'hit':>6} {'cpu s':>6} {'cpu/page us':>11}"
    )
    for r in pool_rows:
        print(
            f"{r['graph']:<14} {r['algo']:<15} {r['memory']:>4} {r['policy']:<6} {r['secs']:8.3f} "
            f"{r['bytes_read'] / 1e6:9.1f} {r['misses']:9} {r['hit_ratio']:6.3f} {r['cpu_s']:6.2f} {r['cpu_per_page_us']:11.2f}"
        )
    clock_pp = sorted(
        r["cpu_per_page_us"] for r in pool_rows if r["policy"] == "clock" and not math.isnan(r["cpu_s"])
    )
    if clock_pp:
        lo, med = clock_pp[0], clock_pp[len(clock_pp) // 2]
        print(
            f"\nCLOCK CPU per page read in the pool runs: min {lo:.2f} us, median {med:.2f} us; GAC's extra "
            f"{extra_ns / 1000:.3f} us per miss is {100 * extra_ns / 1000 / lo:.1f}% of the min, "
            f"{100 * extra_ns / 1000 / med:.1f}% of the median (target <= 10%)"
        )
    print(f"\nwrote {hits_csv}, {os.path.join(a.out, 'pool.csv')}, {os.path.join(a.out, 'hits.png')}")


if __name__ == "__main__":
    main()
