#!/usr/bin/env python3
"""Analytics-kernel benchmark: ocgraph (buffer pool at 100%/25%/10% of the graph, mmap capped at
25%) against python-igraph, networkx and scipy, with GAPBS reference times for the ratios.

Usage: bench/algos/run.py [--scales 20,22 | --quick | --small] [--trials 3] [--threads 2] [--work DIR]
                          [--python PY] [--no-baselines] [--no-real] [--gapbs DIR] [--rounds R]

Graphs: Kronecker (Graph500 parameters: edge factor 16, seed 1, symmetrised) of each scale,
generated with `ocgraph generate kronecker` (a weighted copy, weights 1..255, for SSSP), and the
real graphs in data/ (ca-AstroPh --undirected --dedup --relabel, road-usroads.mtx, cnr-2000
directed), all under --work (default bench/out/algos-work; reused when present). --quick (or its
alias --small, which `make bench` passes): scale 16 only, at most 2 trials, cnr-2000 left out,
networkx one trial; meant to finish in under two minutes on an idle machine.

The ocgraph binary is --bin, else $OCGRAPH_BIN, else `cargo build --release` of the CLI.

ocgraph: every kernel runs end to end as `ocgraph run ALGO G --trials T --source S --stats`
(S = a vertex of maximal out-degree): `secs` is the best trial, `e2e_secs` the wall time of the
whole command (open + all trials + verification-free output), bytes read and hit ratio from
--stats. Configurations: pool with memory = graph size (cached after the first trial), pool at
25% and 10% of the graph size, and mmap inside a memory cgroup capped at 25%
(../shared/tools/memcap beside the clone, or $OCGRAPH_MEMCAP, with --drop-caches; the cap is 25%
of the graph plus the kernel's own arrays, ~48 B per vertex, and 32 MB; when memcap fails the run is uncapped and says so).
A configuration name ending in "p" (pool100p, pool25p, pool10p; not in the default --configs)
runs with the same memory on a packed copy of the graph (`ocgraph pack`, made beside it once);
one ending in "d" (pool10d, mmap25d, ...) on a copy renumbered by descending degree (`ocgraph
reorder`, made beside it once), and "dp" on the packed form of that copy. Their source is S's
new id (read from the copy's ids.u64). When --gapbs is given and a "d" configuration runs, GAPBS
also runs on the reordered graph (config "in-memory-d") and the "d" rows' notes give their ratio
to it ("xGAPBS-d"), beside the ratio column's comparison with GAPBS on the original numbering.
PageRank "pr" stops at GAPBS's rule, L1 change < 1e-4 (networkx-style --tol 1e-4/n); "pr20" runs
20 iterations. Both run `--method gauss-seidel`, the in-place sweep of GAPBS's pr
(PageRankPullGS), so that both systems run the same iteration (ocgraph's default, the networkx
power iteration, needs about twice the iterations to reach the tolerance). The cached
configuration (pool100) first runs untimed trials for --warmup seconds (default 3;
`ocgraph run --warmup-secs`): its trials then find the whole graph in the pool and the pool
settled on huge pages, which is what "cached" means; the first trial otherwise loads the
graph, and the next few run while the huge-page collapse copies the frames (on kron22, BFS
trials ran 0.22-0.26 s for about 1.5 s after the load, then 0.09 s; a 1 s warm-up timed some
of them). Triangle counting runs only cached and only up to scale 20 (GAPBS: 76 s at 22) unless
--big-tc is given.

Baselines (bench/algos/baselines.py, run by --python, default the project venv
the project venv .venv when present): python-igraph and networkx on the same
graph loaded from the same `ocgraph export` text file (load time reported separately), scipy
PageRank as a power iteration on the CSR matrix. networkx runs at most up to scale 20, and on
Kronecker graphs of scale >= 16 only BFS, CC and PageRank with one trial (it needs minutes).
Run this script with the venv's Python to get the chart (matplotlib).

GAPBS measured here (--gapbs DIR, DIR = a build of the GAP Benchmark Suite with bfs, pr, cc,
sssp, tc and converter; it is not part of this repository): each Kronecker graph is exported once
(`ocgraph export`) and converted with GAPBS's converter, symmetrised, to files cached in
--work (kronS.gapbs.sg; kronSw.gapbs.wsg from the weighted copy's `src dst weight` lines, so SSSP
sees the same weights 1..255). Each GAPBS kernel then runs in the same run, right before
ocgraph's rows for that kernel, with OMP_NUM_THREADS=--threads, -n --trials and GAPBS's benchmark
options (bfs/sssp from the same source S, sssp -d 2; pr -i 1000 -t 1e-4; pr20 -i 20 -t 0; cc is
GAPBS's Afforest); its `secs` is the best "Trial Time" (the statistic of ocgraph's `secs`),
`mean` its "Average Time", `load_secs` its "Read Time". The ratio column of the table then
divides by the measured GAPBS time (header xGAPBS_here, CSV ratio_measured and
gapbs_measured_secs); without --gapbs it divides by the reference table below (header
xGAPBS_ref; the CSV's gapbs_ratio column always holds that). With --rounds R, GAPBS and then
every configuration run R times in turn, each row's ratio is to the GAPBS run of its round, and
the notes give each configuration's ratios by round, their median, and its best trial over
GAPBS's best trial of the whole run: on this shared machine the best of one run's trials swings
by a third from one run to the next, for GAPBS as for ocgraph, and a ratio of single runs with it.

Output: a table (graph, kernel, system, config, seconds, ratio to GAPBS where known, bytes read,
hit ratio), bench/out/algos.csv and, when matplotlib is importable, bench/out/algos.png
(--quick: algos_quick.csv/.png).
"""

import argparse
import array
import csv
import functools
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
MEMCAP = os.environ.get("OCGRAPH_MEMCAP", os.path.join(ROOT, "..", "shared", "tools", "memcap"))
BASELINES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "baselines.py")

# GAPBS on this machine kind, 2 threads (seconds, low-high).
GAPBS = {
    ("kron20", "bfs"): (0.013, 0.017),
    ("kron22", "bfs"): (0.074, 0.081),
    ("kron20", "pr"): (0.11, 0.11),
    ("kron22", "pr"): (0.55, 0.67),
    ("kron20", "pr20"): (0.26, 0.32),
    ("kron22", "pr20"): (1.71, 1.78),
    ("kron20", "cc"): (0.031, 0.031),
    ("kron22", "cc"): (0.133, 0.145),
    ("kron20", "sssp"): (0.12, 0.18),
    ("kron22", "sssp"): (0.69, 0.84),
    ("kron20", "tc"): (5.5, 5.5),
    ("kron22", "tc"): (75.6, 75.6),
}
# Other published references on this machine kind (printed in the notes).
OTHER_REFS = "GridGraph kron22: BFS 0.67-0.73 s, PR20 11.7 s, CC 0.75-0.80 s"

KERNELS = ["bfs", "pr", "pr20", "cc", "sssp", "tc"]

# GAPBS best-trial seconds measured in this run, by (graph, kernel) (filled when --gapbs is given).
MEASURED = {}


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def ocgraph_bin(args):
    if args.bin:
        return args.bin
    sh(["cargo", "build", "--release", "-q", "-p", "ocgraph-cli"], cwd=ROOT)
    return os.path.join(TARGET, "release", "ocgraph")


def manifest_info(graph, exe):
    info = sh([exe, "info", graph]).stdout

    def get(k):
        return re.search(rf"^{k}\s+(\S+)", info, re.M).group(1)

    return {
        "n": int(get("vertices")),
        "edges": int(get("edges")),
        "directed": get("directed") == "true",
        "weighted": get("weighted") == "true",
    }


def graph_bytes(graph):
    paged = ("out.offsets", "out.neighbors", "out.weights", "in.offsets", "in.neighbors", "in.weights")
    return sum(
        os.path.getsize(os.path.join(graph, f)) for f in paged if os.path.exists(os.path.join(graph, f))
    )


def max_degree_vertex(graph, n):
    offs = array.array("Q")
    with open(os.path.join(graph, "out.offsets"), "rb") as f:
        offs.fromfile(f, n + 1)
    best, best_d = 0, -1
    prev = offs[0]
    for v in range(n):
        cur = offs[v + 1]
        if cur - prev > best_d:
            best, best_d = v, cur - prev
        prev = cur
    return best


def prepare(args, exe):
    """Builds or reuses the graphs; returns [(name, dir, weighted_dir_for_sssp, is_kron)]."""
    os.makedirs(args.work, exist_ok=True)
    graphs = []
    scales = [16] if args.quick else [int(s) for s in args.scales.split(",") if s]
    for s in scales:
        for weighted in (False, True):
            d = os.path.join(args.work, f"kron{s}{'w' if weighted else ''}")
            if not os.path.exists(os.path.join(d, "manifest")):
                cmd = [
                    exe,
                    "generate",
                    "kronecker",
                    "--scale",
                    str(s),
                    "--edge-factor",
                    "16",
                    "--seed",
                    "1",
                    "--quiet",
                    "--force",
                    "--memory",
                    "4GiB",
                    d,
                ]
                sh(cmd + (["--weighted"] if weighted else []))
        graphs.append(
            (f"kron{s}", os.path.join(args.work, f"kron{s}"), os.path.join(args.work, f"kron{s}w"), True)
        )
    if not args.no_real:
        data = os.path.join(ROOT, "data")
        real = [
            ("ca-AstroPh", "ca-AstroPh.txt.gz", ["--undirected", "--dedup", "--relabel"]),
            ("road-usroads", "road-usroads.mtx.gz", []),
            ("cnr-2000", "cnr-2000.el.gz", []),
        ]
        if args.quick:
            real = real[:2]
        for name, f, flags in real:
            d = os.path.join(args.work, name)
            if not os.path.exists(os.path.join(d, "manifest")):
                sh([exe, "import", os.path.join(data, f), d, "--quiet", "--force", *flags])
            graphs.append((name, d, d, False))
    return graphs


def memcap_works():
    try:
        sh([MEMCAP, "64M", "--", "true"])
        return True
    except (subprocess.CalledProcessError, FileNotFoundError, PermissionError):
        return False


def packed_copy(exe, graph):
    """The packed copy of `graph` (`ocgraph pack`), made beside it on first use."""
    out = graph.rstrip("/") + "-packed"
    if not os.path.exists(os.path.join(out, "manifest")):
        sh([exe, "pack", graph, out, "--force", "--quiet"])
    return out


def reordered_copy(exe, graph):
    """The copy of `graph` renumbered by degree (`ocgraph reorder`), made beside it on first use."""
    out = graph.rstrip("/") + "-deg"
    if not os.path.exists(os.path.join(out, "manifest")):
        sh([exe, "reorder", graph, out, "--force", "--quiet"])
    return out


def original_ids(graph, n):
    """The original ids of `graph`'s vertices (its ids.u64; identity when it has none)."""
    path = os.path.join(graph, "ids.u64")
    if not os.path.exists(path):
        return range(n)
    ids = array.array("Q")
    with open(path, "rb") as f:
        ids.fromfile(f, n)
    return ids


@functools.cache
def new_id(src, copy, n, v):
    """The vertex of `copy` (a reordered copy of `src`) that is `src`'s vertex `v`."""
    return original_ids(copy, n).index(original_ids(src, n)[v])


def split_config(config):
    """(base config, reordered, packed) of a configuration name such as pool10dp."""
    packed = config.endswith("p")
    base = config[:-1] if packed else config
    reordered = base.endswith("d")
    return (base[:-1] if reordered else base), reordered, packed


def run_ocgraph(exe, graph, kernel, info, source, config, args, capped):
    size = graph_bytes(graph)
    config, reordered, packed = split_config(config)
    if reordered:
        graph, src = reordered_copy(exe, graph), graph
        source = new_id(src, graph, info["n"], source)
    if packed:
        # The same memory as the plain configuration, on the packed copy.
        graph = packed_copy(exe, graph)
    cmd = [
        exe,
        "run",
        {
            "bfs": "bfs",
            "pr": "pagerank",
            "pr20": "pagerank",
            "cc": "wcc",
            "sssp": "sssp",
            "tc": "triangle-count",
        }[kernel],
        graph,
        "--threads",
        str(args.threads),
        "--trials",
        str(args.trials),
        "--source",
        str(source),
        "--stats",
    ]
    if kernel == "pr":
        cmd += ["--tol", repr(1e-4 / info["n"]), "--max-iter", "1000", "--method", "gauss-seidel"]
    if kernel == "pr20":
        cmd += ["--tol", "0", "--max-iter", "20", "--method", "gauss-seidel"]
    if config == "pool100" and args.warmup > 0:
        cmd += ["--warmup-secs", str(args.warmup)]
    note = ""
    if config.startswith("pool"):
        frac = {"pool100": 1.0, "pool25": 0.25, "pool10": 0.10}[config]
        mem = int(size * frac) if frac < 1 else size + (8 << 20)
        cmd += ["--backend", "pool", "--memory", str(max(mem, 1 << 20))]
    else:
        cmd += ["--backend", "mmap"]
        if capped:
            # The cgroup also holds the process's own memory: add the kernel's working arrays
            # (about 48 bytes per vertex) and 32 MB for the binary to 25% of the graph.
            cap = size // 4 + 48 * info["n"] + (32 << 20)
            cmd = [MEMCAP, "--drop-caches", str(cap), "--", *cmd]
        else:
            note = "memcap unavailable: uncapped"
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, text=True, capture_output=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"secs": None, "note": f"timeout after {args.timeout} s"}
    e2e = time.perf_counter() - t
    if p.returncode != 0:
        return {"secs": None, "note": "failed: " + (p.stderr.strip().splitlines() or ["?"])[-1][:80]}
    m = re.search(r"mean ([\d.]+) s, min ([\d.]+) s", p.stdout)
    lines = (p.stdout + "\n" + p.stderr).splitlines()
    stats = next((json.loads(ln) for ln in lines if ln.startswith('{"backend"')), {})
    iters = re.search(r"^pagerank: (\d+) iterations", p.stdout, re.M)
    if iters:
        note = "; ".join(x for x in (note, f"{iters.group(1)} iterations per trial") if x)
    return {
        "secs": float(m.group(2)),
        "mean": float(m.group(1)),
        "e2e": e2e,
        "bytes_read": stats.get("bytes_read"),
        "hit_ratio": stats.get("hit_ratio"),
        "note": note,
    }


def find_python(args):
    for p in [
        args.python,
        sys.executable if has_module(sys.executable, "igraph") else None,
        os.path.join(ROOT, ".venv", "bin", "python"),
        sys.executable,
    ]:
        if p and os.path.exists(p):
            return p
    return sys.executable


def has_module(py, mod):
    return subprocess.run([py, "-c", f"import {mod}"], capture_output=True).returncode == 0


def gapbs_inputs(args, exe, name, gdir, wdir):
    """Exports and converts a Kronecker graph (and, when SSSP runs, its weighted copy) for GAPBS
    once, cached in the work dir; returns the (.sg, .wsg) paths."""
    conv = os.path.join(args.gapbs, "converter")
    outs = []
    for src, stem, ext, flags in ((gdir, name, ".el", []), (wdir, name + "w", ".wel", ["-w"])):
        out = os.path.join(args.work, stem + ".gapbs" + (".wsg" if flags else ".sg"))
        if flags and "sssp" not in args.kernels.split(","):
            outs.append(None)
            continue
        if not os.path.exists(out):
            text = os.path.join(args.work, stem + ".gapbs" + ext)
            sh([exe, "export", src, text])
            # -s symmetrises (the export may list an undirected edge once); GAPBS drops
            # duplicates and self-loops itself.
            sh([conv, "-f", text, "-s", *flags, "-b", out + ".part"])
            os.replace(out + ".part", out)
            os.remove(text)
        outs.append(out)
    return outs[0], outs[1]


def run_gapbs(args, kernel, sg, wsg, source, wsource, n):
    """Runs one GAPBS kernel (best trial, as ocgraph's `secs`)."""
    binary = {"pr20": "pr"}.get(kernel, kernel)
    cmd = [os.path.join(args.gapbs, binary), "-f", wsg if kernel == "sssp" else sg, "-n", str(args.trials)]
    cmd += {
        "bfs": ["-r", str(source)],
        "sssp": ["-r", str(wsource), "-d", "2"],
        "pr": ["-i", "1000", "-t", "1e-4"],
        "pr20": ["-i", "20", "-t", "0"],
    }.get(kernel, [])
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, text=True, capture_output=True, timeout=args.timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"secs": None, "note": f"timeout after {args.timeout} s"}
    e2e = time.perf_counter() - t
    trials = [float(x) for x in re.findall(r"^Trial Time:\s+([\d.]+)", p.stdout, re.M)]
    if p.returncode != 0 or not trials:
        return {
            "secs": None,
            "note": "failed: " + ((p.stdout + p.stderr).strip().splitlines() or ["?"])[-1][:80],
        }
    avg = re.search(r"^Average Time:\s+([\d.]+)", p.stdout, re.M)
    read = re.search(r"^Read Time:\s+([\d.]+)", p.stdout, re.M)
    nodes = re.search(r"^Graph has (\d+) nodes", p.stdout, re.M)
    note = " ".join(cmd[3:])
    if kernel in ("pr", "pr20"):
        # PageRankPullGS prints " <iter>    <error>" per iteration (Gauss-Seidel style: it
        # reads scores updated earlier in the same sweep, so it converges in fewer iterations).
        iters = len(re.findall(r"^ +\d+ +[\d.]+$", p.stdout, re.M)) / len(trials)
        note += f"; {iters:g} iterations per trial"
    if nodes and int(nodes.group(1)) != n:
        note += f"; GAPBS n={nodes.group(1)} (isolated top ids dropped)"
    return {
        "secs": min(trials),
        "mean": float(avg.group(1)) if avg else None,
        "e2e": e2e,
        "load_secs": float(read.group(1)) if read else None,
        "note": note,
    }


def run_baseline(py, system, edge_file, info, source, kernels, trials, timeout):
    cmd = [
        py,
        BASELINES,
        system,
        edge_file,
        str(info["n"]),
        "1" if info["directed"] else "0",
        "1" if info["weighted"] else "0",
        str(source),
        ",".join(kernels),
        str(trials),
    ]
    try:
        p = subprocess.run(cmd, text=True, capture_output=True, timeout=timeout)
        out = p.stdout
        err = "" if p.returncode == 0 else (p.stderr.strip().splitlines() or ["?"])[-1][:80]
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = f"timeout after {timeout} s"
    rows = [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]
    done = {r["kernel"] for r in rows}
    rows += [{"kernel": k, "skip": err or "no result"} for k in kernels if k not in done]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", default="20,22")
    ap.add_argument(
        "--quick",
        "--small",
        action="store_true",
        help="scale 16, at most 2 trials, no cnr-2000 (--small: the same, for `make bench`)",
    )
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "out", "algos-work"))
    ap.add_argument(
        "--bin",
        default=os.environ.get("OCGRAPH_BIN"),
        help="ocgraph binary (default: $OCGRAPH_BIN, else build it)",
    )
    ap.add_argument("--python", help="interpreter with igraph/networkx/scipy")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--systems", default="igraph,networkx,scipy", help="baselines to run")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--kernels", default=",".join(KERNELS), help="subset of " + ",".join(KERNELS))
    ap.add_argument("--configs", default="pool100,pool25,pool10,mmap25")
    ap.add_argument(
        "--warmup", type=float, default=3.0, help="untimed seconds before the cached (pool100) trials"
    )
    ap.add_argument("--name", help="output file stem in bench/out (default algos, algos_quick)")
    ap.add_argument(
        "--big-tc", action="store_true", help="also count triangles on graphs of over 30M edges (kron22)"
    )
    ap.add_argument("--gapbs", help="GAPBS build dir: run its kernels on the Kronecker graphs too")
    ap.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run GAPBS and then each configuration this many times in turn; each row's ratio is to "
        "the GAPBS run of its round, and the notes give the median of a configuration's ratios",
    )
    args = ap.parse_args()
    if args.quick:
        args.trials = min(args.trials, 2)

    exe = ocgraph_bin(args)
    graphs = prepare(args, exe)
    capped = memcap_works()
    py = find_python(args)
    systems = (
        []
        if args.no_baselines
        else [
            s
            for s in args.systems.split(",")
            if has_module(py, {"igraph": "igraph", "networkx": "networkx", "scipy": "scipy.sparse"}[s])
        ]
    )
    notes = [OTHER_REFS]
    global HEADER
    if args.gapbs:
        args.gapbs = os.path.abspath(args.gapbs)
        HEADER = HEADER.replace("xGAPBS_ref", "xGAPBS_here")
        notes.append(f"ratio column: ocgraph secs / GAPBS secs measured in this run ({args.gapbs})")
    else:
        notes.append("ratio column: ocgraph secs / the reference GAPBS table")
    if not capped:
        notes.append("memcap failed: mmap rows ran without a memory cap")
    for s in args.systems.split(","):
        if not args.no_baselines and s not in systems:
            notes.append(f"{s} not importable by {py}: skipped")

    rows = []
    stem = args.name or ("algos_quick" if args.quick else "algos")
    for name, gdir, wdir, is_kron in graphs:
        info = manifest_info(gdir, exe)
        winfo = manifest_info(wdir, exe)
        source = max_degree_vertex(gdir, info["n"])
        wsource = max_degree_vertex(wdir, winfo["n"])
        big = info["edges"] > 30_000_000
        sg = wsg = None
        if args.gapbs and is_kron:
            sg, wsg = gapbs_inputs(args, exe, name, gdir, wdir)
        for kernel in [k for k in KERNELS if k in args.kernels.split(",")]:
            g, inf, src = (wdir, winfo, wsource) if kernel == "sssp" else (gdir, info, source)
            configs = ["pool100"] if kernel == "tc" else args.configs.split(",")
            if kernel == "tc" and big and not args.big_tc:
                notes.append(f"{name}: triangle counting skipped (too long for this run; --big-tc)")
                continue
            reordered = None
            if sg and any(split_config(c)[1] for c in configs):
                # GAPBS on the reordered graph, for a like-for-like ratio of the "d" rows.
                gd, gwd = reordered_copy(exe, gdir), reordered_copy(exe, wdir)
                dsg, dwsg = gapbs_inputs(args, exe, name + "-deg", gd, gwd)
                reordered = (
                    dsg,
                    dwsg,
                    new_id(gdir, gd, info["n"], source),
                    new_id(wdir, gwd, winfo["n"], wsource),
                )
            for rnd in range(args.rounds):
                if sg:
                    r = run_gapbs(args, kernel, sg, wsg, source, wsource, inf["n"])
                    if r["secs"] is not None:
                        MEASURED[(name, kernel)] = r["secs"]
                    rows.append(
                        {"graph": name, "kernel": kernel, "system": "gapbs", "config": "in-memory", **r}
                    )
                    print_row(rows[-1], flush=True)
                    write_csv(rows, stem)
                gapbs_d = None
                if reordered:
                    r = run_gapbs(args, kernel, *reordered, inf["n"])
                    gapbs_d = r["secs"]
                    rows.append(
                        {"graph": name, "kernel": kernel, "system": "gapbs", "config": "in-memory-d", **r}
                    )
                    print_row(rows[-1], flush=True)
                    write_csv(rows, stem)
                for config in configs:
                    r = run_ocgraph(exe, g, kernel, inf, src, config, args, capped)
                    if gapbs_d and r["secs"] is not None and split_config(config)[1]:
                        r["note"] = "; ".join(
                            x for x in (r["note"], f"{r['secs'] / gapbs_d:.2f} xGAPBS-d") if x
                        )
                    if args.rounds > 1:
                        r["note"] = "; ".join(x for x in (r["note"], f"round {rnd + 1}/{args.rounds}") if x)
                    row = {"graph": name, "kernel": kernel, "system": "ocgraph", "config": config, **r}
                    row["gapbs_here"] = MEASURED.get((name, kernel))
                    rows.append(row)
                    print_row(rows[-1], flush=True)
                    write_csv(rows, stem)
        for system in systems:
            if system == "networkx" and (info["edges"] > (1_200_000 if args.quick else 20_000_000)):
                notes.append(f"{name}: networkx skipped (too large)")
                continue
            chosen = [k for k in KERNELS if k in args.kernels.split(",")]
            per_file = [
                (gdir, info, source, [k for k in chosen if k != "sssp"]),
                (wdir, winfo, wsource, [k for k in chosen if k == "sssp"]),
            ]
            for fdir, finfo, fsrc, kernels in per_file:
                trials = args.trials
                if system == "networkx" and args.quick:
                    trials = 1
                if system == "networkx" and is_kron and finfo["n"] >= 1 << 16:
                    kernels = [k for k in kernels if k in ("bfs", "cc", "pr")]
                    trials = 1
                    notes.append(f"{name}: networkx runs only bfs/cc/pr, one trial")
                if system == "igraph" and finfo["edges"] > 2_000_000:
                    # list_triangles materialises every triangle: too much memory at this size.
                    kernels = [k for k in kernels if k != "tc"]
                if system == "scipy":
                    kernels = [k for k in kernels if k in ("pr", "pr20")]
                if not kernels:
                    continue
                edge_file = os.path.join(args.work, os.path.basename(fdir) + ".txt")
                if not os.path.exists(edge_file):
                    sh([exe, "export", fdir, edge_file])
                for b in run_baseline(py, system, edge_file, finfo, fsrc, kernels, trials, args.timeout * 2):
                    row = {
                        "graph": name,
                        "kernel": b["kernel"],
                        "system": system,
                        "config": "in-memory",
                        "secs": b.get("secs"),
                        "mean": b.get("mean"),
                        "e2e": None,
                        "load_secs": b.get("load_secs"),
                        "bytes_read": None,
                        "hit_ratio": None,
                        "note": b.get("note") or b.get("skip", ""),
                    }
                    rows.append(row)
                    print_row(row, flush=True)
                    write_csv(rows, stem)
    if args.rounds > 1:
        notes.extend(round_summaries(rows))
    write_outputs(rows, notes, stem)


def round_summaries(rows):
    """Per ocgraph configuration run in rounds: its ratios to GAPBS round by round, their median,
    and its best trial over GAPBS's best trial of the whole run."""
    out = []
    for key in dict.fromkeys(
        (r["graph"], r["kernel"], r["config"]) for r in rows if r["system"] == "ocgraph"
    ):
        mine = [r for r in rows if r["system"] == "ocgraph" and (r["graph"], r["kernel"], r["config"]) == key]
        ratios = [x for x in map(measured_ratio, mine) if x is not None]
        gapbs = [
            r["secs"]
            for r in rows
            if r["system"] == "gapbs"
            and r["config"] == "in-memory"
            and (r["graph"], r["kernel"]) == key[:2]
            and r.get("secs")
        ]
        secs = [r["secs"] for r in mine if r.get("secs") is not None]
        if not ratios or not secs or not gapbs:
            continue
        out.append(
            f"{' '.join(key)}: xGAPBS by round {', '.join(f'{x:.2f}' for x in ratios)}; "
            f"median {statistics.median(ratios):.2f}; best trial of all rounds {min(secs):.4f} s against "
            f"GAPBS's {min(gapbs):.4f} s: {min(secs) / min(gapbs):.2f}x"
        )
    return out


HEADER = (
    f"{'graph':<13} {'kernel':<5} {'system':<9} {'config':<10} {'secs':>9} {'e2e_s':>8} {'xGAPBS_ref':>11} "
    f"{'MB_read':>9} {'hit':>6}  note"
)
printed_header = False


def gapbs_ratio(row):
    ref = GAPBS.get((row["graph"], row["kernel"]))
    if ref is None or row.get("secs") is None:
        return None
    return row["secs"] / ((ref[0] + ref[1]) / 2)


def measured_ratio(row):
    """ocgraph's (or a baseline's) best trial over GAPBS's best trial measured in this run."""
    ref = row.get("gapbs_here", MEASURED.get((row["graph"], row["kernel"])))
    if ref is None or row.get("secs") is None or row["system"] == "gapbs":
        return None
    return row["secs"] / ref


def shown_ratio(row):
    return measured_ratio(row) if "xGAPBS_here" in HEADER else gapbs_ratio(row)


def fmt(x, spec):
    return format("-", ">" + spec.split(".")[0]) if x is None else format(x, spec)


def print_row(row, flush=False):
    global printed_header
    if not printed_header:
        print(HEADER)
        printed_header = True
    mb = None if row.get("bytes_read") is None else row["bytes_read"] / 1e6
    print(
        f"{row['graph']:<13} {row['kernel']:<5} {row['system']:<9} {row['config']:<10} "
        f"{fmt(row.get('secs'), '9.4f')} {fmt(row.get('e2e'), '8.2f')} {fmt(shown_ratio(row), '11.2f')} "
        f"{fmt(mb, '9.1f')} {fmt(row.get('hit_ratio'), '6.3f')}  {row.get('note', '')}",
        flush=flush,
    )


def write_csv(rows, stem):
    """(Re)writes bench/out/STEM.csv with every row so far (a long run keeps partial results)."""
    out = os.path.join(ROOT, "bench", "out")
    os.makedirs(out, exist_ok=True)
    fields = [
        "graph",
        "kernel",
        "system",
        "config",
        "secs",
        "mean",
        "e2e",
        "load_secs",
        "gapbs_ratio",
        "gapbs_measured_secs",
        "ratio_measured",
        "bytes_read",
        "hit_ratio",
        "note",
    ]
    with open(os.path.join(out, stem + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(
                {
                    **r,
                    "gapbs_ratio": gapbs_ratio(r),
                    "gapbs_measured_secs": r.get("gapbs_here", MEASURED.get((r["graph"], r["kernel"]))),
                    "ratio_measured": measured_ratio(r),
                }
            )


def write_outputs(rows, notes, stem):
    out = os.path.join(ROOT, "bench", "out")
    write_csv(rows, stem)
    print("\nnotes:")
    for n in dict.fromkeys(notes):
        print("  " + n)
    print(f"wrote {os.path.join(out, stem + '.csv')}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not importable: no chart")
        return
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    series = list(dict.fromkeys((r["system"], r["config"]) for r in rows))
    fig, axes = plt.subplots(len(graphs), 1, figsize=(11, 3.2 * len(graphs)), squeeze=False)
    for ax, g in zip(axes[:, 0], graphs):
        width = 0.8 / len(series)
        for i, (s, c) in enumerate(series):
            xs, ys = [], []
            for k, kernel in enumerate(KERNELS):
                v = next(
                    (
                        r["secs"]
                        for r in rows
                        if (r["graph"], r["kernel"], r["system"], r["config"]) == (g, kernel, s, c)
                        and r.get("secs")
                    ),
                    None,
                )
                if v:
                    xs.append(k + i * width)
                    ys.append(v)
            ax.bar(xs, ys, width, label=f"{s} {c}")
        ref = MEASURED or {key: sum(v) / 2 for key, v in GAPBS.items()}
        gx = [k + 0.4 for k, kern in enumerate(KERNELS) if (g, kern) in ref]
        gy = [ref[(g, kern)] for kern in KERNELS if (g, kern) in ref]
        label = "GAPBS (measured here)" if MEASURED else "GAPBS (reference table)"
        if gx:
            ax.scatter(gx, gy, marker="_", s=400, color="black", label=label, zorder=3)
        ax.set_yscale("log")
        ax.set_xticks([k + 0.4 for k in range(len(KERNELS))], KERNELS)
        ax.set_title(g)
        ax.set_ylabel("seconds (best trial)")
    axes[0, 0].legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, stem + ".png"), dpi=110)
    print(f"wrote {os.path.join(out, stem + '.png')}")


if __name__ == "__main__":
    main()
