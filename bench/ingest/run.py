#!/usr/bin/env python3
"""Ingest benchmark: how fast `ocgraph import` turns an edge list into a graph, and at what
peak memory, against common Python loaders.

One run:
  1. `ocgraph generate kronecker --scale S` (Graph500 parameters, undirected, simple),
  2. `ocgraph export` it as text (`u v` lines, each undirected edge once) and as binary u32 pairs,
  3. `ocgraph import --undirected` each input with `--memory 256M` and `--memory 4G`,
  4. baselines on the same text: numpy.loadtxt, pandas.read_csv + scipy.sparse.csr_matrix,
     python-igraph Graph.Read_Edgelist, networkx.read_edgelist (only up to 20M edges); a baseline
     whose package is not importable is skipped with a note (nothing is installed).

Every measured command runs in its own process under `/usr/bin/time -f "%e %M"`, so the peak RSS
is that process's alone. Inputs are read from the page cache (warm; dropping caches needs root).
Prints a table and writes bench/out/ingest.csv (--small: bench/out/ingest_small.csv).

--small (what `make bench` passes): scale 14 unless --scale is given, a quick smoke run of the
whole pipeline (its rates say little: fixed costs dominate at that size). The binary is --bin,
else $OCGRAPH_BIN, else the release build.

Usage: python3 bench/ingest/run.py [--scale 22 | --small] [--edge-factor 16] [--bin PATH] [--keep]
"""

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "bench", "out")

# Baselines: (name, module needed, python code; argv[1] = text edge list).
BASELINES = [
    (
        "numpy.loadtxt",
        ["numpy"],
        "import sys, numpy as np\n"
        "a = np.loadtxt(sys.argv[1], dtype=np.uint32, comments='#')\n"
        "print(a.shape[0])",
    ),
    (
        "pandas+scipy csr",
        ["pandas", "scipy", "numpy"],
        "import sys, numpy as np, pandas as pd, scipy.sparse as sp\n"
        "d = pd.read_csv(sys.argv[1], sep=' ', header=None, comment='#', dtype=np.uint32, engine='c')\n"
        "u, v = d[0].to_numpy(), d[1].to_numpy()\n"
        "n = int(max(u.max(), v.max())) + 1\n"
        "r, c = np.concatenate([u, v]), np.concatenate([v, u])\n"
        "m = sp.csr_matrix((np.ones(len(r), dtype=np.float32), (r, c)), shape=(n, n))\n"
        "print(len(u))",
    ),
    (
        "igraph.Read_Edgelist",
        ["igraph"],
        "import sys, igraph\ng = igraph.Graph.Read_Edgelist(sys.argv[1], directed=False)\nprint(g.ecount())",
    ),
    (
        "networkx.read_edgelist",
        ["networkx"],
        "import sys, networkx as nx\n"
        "g = nx.read_edgelist(sys.argv[1], nodetype=int)\n"
        "print(g.number_of_edges())",
    ),
]
NETWORKX_MAX_EDGES = 20_000_000


def find_binary(explicit):
    if explicit:
        return explicit
    if os.environ.get("OCGRAPH_BIN"):
        return os.environ["OCGRAPH_BIN"]
    candidates = []
    if os.environ.get("CARGO_TARGET_DIR"):
        candidates.append(os.path.join(os.environ["CARGO_TARGET_DIR"], "release", "ocgraph"))
    candidates.append(os.path.join(ROOT, "target", "release", "ocgraph"))
    for c in candidates:
        if os.access(c, os.X_OK):
            return c
    sys.exit(
        "ocgraph release binary not found; build it with `cargo build --release -p ocgraph-cli` or pass --bin"
    )


def timed(cmd):
    """Runs cmd under /usr/bin/time; returns (seconds, peak RSS in MB, stdout) and records the
    CPU seconds (user + sys) in timed.cpu."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        proc = subprocess.run(
            ["/usr/bin/time", "-o", tf.name, "-f", "%e %M %U %S", *cmd], capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
        secs, kb, user, sys_ = tf.read().split()[-4:]
    timed.cpu = float(user) + float(sys_)
    return float(secs), int(kb) / 1024.0, proc.stdout


def importable(modules):
    code = "import " + ", ".join(modules)
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, help="Kronecker scale (default 22; --small: 14)")
    ap.add_argument(
        "--small", action="store_true", help="scale 14, output ingest_small.csv (for `make bench`)"
    )
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--bin", help="path to the ocgraph binary (default: $OCGRAPH_BIN, else the release build)"
    )
    ap.add_argument("--workdir", help="scratch directory (default: a temporary one under bench/out)")
    ap.add_argument("--keep", action="store_true", help="keep the generated inputs and graphs")
    ap.add_argument("--no-baselines", action="store_true")
    args = ap.parse_args()
    if args.scale is None:
        args.scale = 14 if args.small else 22

    exe = find_binary(args.bin)
    os.makedirs(OUT_DIR, exist_ok=True)
    work = args.workdir or tempfile.mkdtemp(prefix="ingest-", dir=OUT_DIR)
    os.makedirs(work, exist_ok=True)
    rows = []  # tool, input, budget, seconds, cpu seconds, M edges/s, peak RSS MB, note
    notes = []

    def add(tool, inp, budget, secs, edges, rss, note=""):
        rate = edges / secs / 1e6 if secs > 0 else float("inf")
        cpu = timed.cpu
        rows.append([tool, inp, budget, f"{secs:.2f}", f"{cpu:.2f}", f"{rate:.2f}", f"{rss:.0f}", note])
        print(
            f"  {tool:<24} {inp:<6} {budget:<6} {secs:8.2f} s {cpu:8.2f} cpu-s {rate:8.2f} M/s "
            f"{rss:8.0f} MB {note}",
            flush=True,
        )

    try:
        kron = os.path.join(work, "kron")
        print(f"generating kronecker scale {args.scale} edge factor {args.edge_factor} in {work}", flush=True)
        secs, rss, _ = timed(
            [
                exe,
                "generate",
                "kronecker",
                "--scale",
                str(args.scale),
                "--edge-factor",
                str(args.edge_factor),
                "--seed",
                str(args.seed),
                "--memory",
                "4G",
                "--force",
                "--quiet",
                kron,
            ]
        )
        info = subprocess.run([exe, "info", kron, "--json"], capture_output=True, text=True, check=True)
        import json

        edges = json.loads(info.stdout)["edges"]
        drawn = args.edge_factor << args.scale
        add("ocgraph generate", "-", "4G", secs, drawn, rss, f"{drawn} drawn -> {edges} edges")

        txt, binf = os.path.join(work, "kron.txt"), os.path.join(work, "kron.bin")
        secs, rss, _ = timed([exe, "export", kron, txt])
        add("ocgraph export", "text", "-", secs, edges, rss, f"{os.path.getsize(txt) / 2**20:.0f} MiB")
        secs, rss, _ = timed([exe, "export", kron, binf])
        add("ocgraph export", "bin32", "-", secs, edges, rss, f"{os.path.getsize(binf) / 2**20:.0f} MiB")

        results = {}
        for label, path in (("text", txt), ("bin32", binf)):
            for budget in ("256M", "4G"):
                out = os.path.join(work, f"imp-{label}-{budget}")
                secs, rss, _ = timed(
                    [exe, "import", path, out, "--undirected", "--memory", budget, "--force", "--quiet"]
                )
                add("ocgraph import", label, budget, secs, edges, rss)
                results[(label, budget)] = (edges / secs / 1e6, rss)
                shutil.rmtree(out, ignore_errors=True)

        if not args.no_baselines:
            for name, mods, code in BASELINES:
                if name.startswith("networkx") and edges > NETWORKX_MAX_EDGES:
                    notes.append(f"{name}: skipped, {edges} edges > {NETWORKX_MAX_EDGES}")
                    continue
                if not importable(mods):
                    notes.append(f"{name}: skipped, {'/'.join(mods)} not importable")
                    continue
                try:
                    secs, rss, _ = timed([sys.executable, "-c", code, txt])
                    add(name, "text", "-", secs, edges, rss)
                except RuntimeError as e:
                    notes.append(f"{name}: failed: {e}")

        path = os.path.join(OUT_DIR, "ingest_small.csv" if args.small else "ingest.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(
                [
                    "tool",
                    "input",
                    "budget",
                    "seconds",
                    "cpu_seconds",
                    "M_input_edges_per_s",
                    "peak_rss_mb",
                    "note",
                ]
            )
            w.writerows(rows)

        print()
        print(
            f"scale {args.scale}, edge factor {args.edge_factor}: {edges} input edges "
            f"(undirected, each once), binary {exe}"
        )
        header = ["tool", "input", "budget", "seconds", "cpu s", "M edges/s", "peak RSS MB", "note"]
        widths = [max(len(str(r[i])) for r in [*rows, header]) for i in range(len(header))]
        for r in [header, *rows]:
            print("  ".join(str(x).ljust(wd) for x, wd in zip(r, widths)))
        for n in notes:
            print("note:", n)
        print(
            f"note: load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
            "(wall-clock rates drop under contention; cpu s is the process's user + sys time)"
        )
        print()
        targets = [
            ("binary import, 4G budget >= 20 M edges/s", results[("bin32", "4G")][0] >= 20),
            ("binary import, 256M budget >= 5 M edges/s", results[("bin32", "256M")][0] >= 5),
            ("text import >= 8 M lines/s (4G)", results[("text", "4G")][0] >= 8),
            (
                "peak RSS < 400 MB with --memory 256M",
                max(results[("text", "256M")][1], results[("bin32", "256M")][1]) < 400,
            ),
        ]
        for what, met in targets:
            print(f"target {'MET ' if met else 'MISSED'}: {what}")
        print(f"wrote {path}")
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
