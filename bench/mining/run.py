#!/usr/bin/env python3
"""Pattern-mining benchmark: k-clique counts and motif censuses with `ocgraph mine`, in memory
(mmap, page cache warm) and through a buffer pool of 10% of the graph, against python-igraph
(capped by a timeout, reported as ">T"); and incremental watching of a triangle and a 4-clique
over a stream of single-edge updates against recounting.

Usage: bench/mining/run.py [--small] [--graphs astro,cnr,kron18] [--tasks clique4,...]
                           [--threads 2] [--timeout 300] [--igraph-timeout 60]
                           [--stream 2000] [--stream-graph kron18] [--work DIR]

Graphs (made once under --work, default bench/out/mining-work): astro = data/ca-AstroPh
(--undirected --dedup --relabel), cnr = data/cnr-2000 (directed; the miners use its undirected
view), kronS = `ocgraph generate kronecker --scale S --edge-factor 16 --seed 1`. --small:
astro and kron12, 4-/5-cliques and both censuses, a 300-update stream on kron12, igraph capped
at 10 s (for `make bench`).

Each ocgraph row is one `ocgraph mine ... --threads T --stats` process: `secs` is the kernel
time it prints (graph opening excluded), `wall` the whole command. igraph loads the edge list
`ocgraph export` wrote (load time excluded) and runs `cliques(k, k)` or `motifs_randesu(size)`;
its counts are checked against ocgraph's ("ok"/"DIFF").

Incremental: a copy of the stream graph opened writable (durability none); each update is one
`add_edges` or `remove_edges` call of one random edge (half additions of random pairs, half
removals of existing edges), timed from Python with and without a watch (the difference is the
watch's cost); "recount" is one static count of the pattern, the cost per update of recounting.

Output: a table, bench/out/mining.csv and bench/out/mining.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.environ.get("OCGRAPH_BIN", os.path.join(TARGET, "release", "ocgraph"))
OUT = os.path.join(ROOT, "bench", "out")
TASKS = ["clique4", "clique5", "clique6", "motif3", "motif4"]

IGRAPH_SCRIPT = r"""
import json, sys, time
import igraph as ig
path, task = sys.argv[1], sys.argv[2]
h = ig.Graph.Read_Edgelist(path, directed=False).simplify()
t = time.perf_counter()
if task.startswith("clique"):
    k = int(task[6:])
    count = [len(h.cliques(k, k))]
else:
    size = int(task[5:])
    count = [0 if c != c else int(c) for c in h.motifs_randesu(size=size)]
print(json.dumps({"secs": time.perf_counter() - t, "count": count}))
"""


def sh(cmd: list[str], timeout: float | None = None) -> tuple[str, float]:
    """Runs `cmd`, returns (stdout, wall seconds); raises TimeoutExpired past `timeout`."""
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout, time.perf_counter() - t


def graph_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def prepare(name: str, work: str) -> str:
    path = os.path.join(work, name)
    if os.path.exists(path):
        return path
    if name == "astro":
        sh(
            [
                BIN,
                "import",
                os.path.join(ROOT, "data", "ca-AstroPh.txt.gz"),
                path,
                "--undirected",
                "--dedup",
                "--relabel",
                "--quiet",
            ]
        )
    elif name == "cnr":
        sh([BIN, "import", os.path.join(ROOT, "data", "cnr-2000.el.gz"), path, "--quiet"])
    elif name.startswith("kron"):
        sh(
            [
                BIN,
                "generate",
                "kronecker",
                "--scale",
                name[4:],
                "--edge-factor",
                "16",
                "--seed",
                "1",
                "--quiet",
                path,
            ]
        )
    else:
        raise SystemExit(f"unknown graph {name}")
    return path


def mine_cmd(task: str, path: str) -> list[str]:
    if task.startswith("clique"):
        return [BIN, "mine", "cliques", path, "--k", task[6:]]
    return [BIN, "mine", "motifs", path, "--size", task[5:]]


def parse_counts(out: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^[\w-]+: (\d+)$", out, re.M)]


def run_ocgraph(task: str, path: str, config: str, threads: int, timeout: float) -> dict:
    cmd = [*mine_cmd(task, path), "--threads", str(threads), "--stats", "--quiet"]
    if config == "pool10":
        cmd += ["--backend", "pool", "--memory", str(max(graph_bytes(path) // 10, 1 << 20))]
    try:
        out, wall = sh(cmd, timeout)
    except subprocess.TimeoutExpired:
        return {"secs": None, "wall": None, "count": None, "note": f">{timeout:g}"}
    secs = float(re.search(r"^mine \w+: ([\d.]+) s", out, re.M).group(1))
    return {"secs": secs, "wall": wall, "count": parse_counts(out), "note": ""}


def run_igraph(task: str, path: str, work: str, timeout: float) -> dict:
    el = os.path.join(work, os.path.basename(path) + ".txt")
    if not os.path.exists(el):
        sh([BIN, "export", path, el])
    try:
        out, _ = sh([sys.executable, "-c", IGRAPH_SCRIPT, el, task], timeout)
    except subprocess.TimeoutExpired:
        return {"secs": None, "count": None, "note": f">{timeout:g}"}
    r = json.loads(out)
    count = r["count"]
    if task.startswith("motif"):
        count = igraph_to_names(count, int(task[5:]))
    return {"secs": r["secs"], "count": count, "note": ""}


def igraph_to_names(counts: list[int], size: int) -> list[int]:
    """igraph's isoclass counts in `ocgraph.MOTIF_NAMES` order (classes told by degrees)."""
    import igraph as ig

    order = {
        3: [(1, 1, 2), (2, 2, 2)],
        4: [(1, 1, 1, 3), (1, 1, 2, 2), (1, 2, 2, 3), (2, 2, 2, 2), (2, 2, 3, 3), (3, 3, 3, 3)],
    }
    by_deg = {tuple(sorted(ig.Graph.Isoclass(size, c).degree())): n for c, n in enumerate(counts)}
    return [by_deg.get(d, 0) for d in order[size]]


def stream(path: str, work: str, updates: int, patterns: list[str], seed: int = 1) -> list[dict]:
    """Per-update latency of single-edge updates with and without a watch, and recount time."""
    import numpy as np

    import ocgraph

    rows = []
    for pattern in ["none", *patterns]:
        copy = os.path.join(work, "stream-copy")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(path, copy)
        g = ocgraph.open(copy, writable=True, durability="none")
        n = g.num_vertices
        w = g.watch(pattern) if pattern != "none" else None
        lat = []
        added = removed = 0
        rs = np.random.default_rng(seed)
        for i in range(updates):
            if i % 2 == 0:
                u, v = int(rs.integers(0, n)), int(rs.integers(0, n))
                t = time.perf_counter()
                g.add_edges([u], [v], durable=False)
            else:
                u = int(rs.integers(0, n))
                nb = g.neighbors(u)
                v = int(nb[rs.integers(0, len(nb))]) if len(nb) else u
                t = time.perf_counter()
                g.remove_edges([u], [v], durable=False)
            lat.append(time.perf_counter() - t)
            if w is not None:
                a, r = w.changes()
                added += len(a)
                removed += len(r)
        recount = None
        if pattern != "none":
            t = time.perf_counter()
            g.count_cliques(3 if pattern == "triangle" else 4)
            recount = time.perf_counter() - t
        g.close()
        lat_us = np.array(lat) * 1e6
        rows.append(
            {
                "pattern": pattern,
                "updates": updates,
                "updates_per_s": updates / sum(lat),
                "p50_us": float(np.percentile(lat_us, 50)),
                "p99_us": float(np.percentile(lat_us, 99)),
                "added": added,
                "removed": removed,
                "recount_secs": recount,
            }
        )
    shutil.rmtree(os.path.join(work, "stream-copy"), ignore_errors=True)
    return rows


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--graphs", default="astro,cnr,kron18")
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--configs", default="mmap,pool10")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--igraph-timeout", type=float, default=60)
    ap.add_argument("--no-igraph", action="store_true")
    ap.add_argument("--stream", type=int, default=2000, help="updates in the incremental run (0: none)")
    ap.add_argument("--stream-graph", default="kron18")
    ap.add_argument("--work", default=os.path.join(OUT, "mining-work"))
    args = ap.parse_args()
    if args.small:
        args.graphs, args.stream, args.stream_graph = "astro,kron12", 300, "kron12"
        args.tasks, args.igraph_timeout, args.timeout = "clique4,clique5,motif3,motif4", 10, 60
    os.makedirs(args.work, exist_ok=True)
    tasks = args.tasks.split(",")
    rows = []
    print(
        f"{'graph':8} {'task':8} {'system':7} {'config':7} {'secs':>9} {'wall':>8}  {'vs igraph':>10}  count"
    )
    for name in args.graphs.split(","):
        path = prepare(name, args.work)
        for task in tasks:
            ig_row = None if args.no_igraph else run_igraph(task, path, args.work, args.igraph_timeout)
            for config in args.configs.split(","):
                r = run_ocgraph(task, path, config, args.threads, args.timeout)
                speedup = ""
                if ig_row is not None and r["secs"]:
                    speedup = (
                        f"{ig_row['secs'] / r['secs']:.0f}x"
                        if ig_row["secs"]
                        else f">{args.igraph_timeout / r['secs']:.0f}x"
                    )
                row = dict(graph=name, task=task, system="ocgraph", config=config, **r, speedup=speedup)
                rows.append(row)
                print(
                    f"{name:8} {task:8} {'ocgraph':7} {config:7} {fmt(r['secs']):>9} {fmt(r['wall']):>8}  {speedup:>10}  {r['count'] or r['note']}"
                )
            if ig_row is not None:
                ours = next((x["count"] for x in rows[-len(args.configs.split(",")) :] if x["count"]), None)
                check = (
                    "" if not ig_row["count"] or not ours else ("ok" if ig_row["count"] == ours else "DIFF")
                )
                ig_row.update(graph=name, task=task, system="igraph", config="mem", wall=None, check=check)
                rows.append(ig_row)
                shown = ig_row["note"] or f"{ig_row['count']} {check}"
                print(
                    f"{name:8} {task:8} {'igraph':7} {'mem':7} {fmt(ig_row['secs']):>9} {'':>8}  {'':>10}  {shown}"
                )
    inc = []
    if args.stream:
        path = prepare(args.stream_graph, args.work)
        inc = stream(path, args.work, args.stream, ["triangle", "4-clique"])
        print(
            f"\nincremental, {args.stream_graph}, {args.stream} single-edge updates (half additions, half removals)"
        )
        print(
            f"{'watch':9} {'updates/s':>10} {'p50 us':>8} {'p99 us':>9} {'added':>8} {'removed':>8} {'recount s':>10}"
        )
        for r in inc:
            print(
                f"{r['pattern']:9} {r['updates_per_s']:10.0f} {r['p50_us']:8.1f} {r['p99_us']:9.1f} "
                f"{r['added']:8} {r['removed']:8} {fmt(r['recount_secs']):>10}"
            )
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "mining.csv"), "w", newline="") as f:
        keys = ["graph", "task", "system", "config", "secs", "wall", "speedup", "note", "count"]
        wr = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        wr.writeheader()
        for r in rows:
            wr.writerow({**r, "count": json.dumps(r.get("count"))})
    with open(os.path.join(OUT, "mining.json"), "w") as f:
        json.dump({"static": rows, "incremental": inc, "args": vars(args)}, f, indent=1)


if __name__ == "__main__":
    main()
