#!/usr/bin/env python3
"""Peak memory of every kernel with the buffer pool at 1% and 10% of the graph, against the
documented budget.

Usage: bench/memory/run.py [--scale 18 | --small] [--memcap PATH] [--work DIR] [--out DIR]

For each kernel (bfs, sssp, wcc, pagerank, triangle-count, diameter) and pool size (1% and 10%
of the graph's files), runs `ocgraph run ALGO G --backend pool --memory M --threads 2` and
measures its peak resident set (the child's ru_maxrss). The budget is what the README's memory
section states, computed here from the graph's counts:

    pool frames (M)
  + page table: 8 B per 4 KiB page of graph files
  + kernel state: per vertex (BFS 24 B, SSSP 24 B, WCC 12 B, PageRank 44 B, diameter 24 B,
    triangle counting 24 B) + per undirected edge (triangle counting 8 B: the oriented lists,
    and the per-block lists they are gathered from while they are built; 0 when the lists,
    4 B per edge, exceed a quarter of the pool and go to a memory-mapped scratch file, whose
    pages are page cache the cgroup reclaims), each including the result array the CLI keeps
    (8 B per vertex)
  + the process itself: the peak of the same kernel on a graph of 16 vertices (binary,
    allocator, runtime) + 8 MiB for the kernel's worker threads.

With memcap (../shared/tools/memcap beside the clone, or --memcap PATH; a memory cgroup, page
cache included) each run is also capped at its budget: a run that needs more fails (OOM) and
is reported. A triangle count whose oriented lists went to a scratch file is within its
budget when it completed under that cap (the mapped file's pages count in its peak RSS, but
they are page cache the cgroup reclaims). Without memcap (or where it cannot create a cgroup) the runs are uncapped and the
table says so. Prints a table and writes memory.csv and memory.json under --out.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNELS = {
    # kernel: (bytes per vertex, bytes per undirected edge)
    "bfs": (24, 0),
    "sssp": (24, 0),
    "wcc": (12, 0),
    "pagerank": (44, 0),
    "triangle-count": (24, 8),
    "diameter": (24, 0),
}
THREAD_SLACK = 8 << 20
PAGE = 4096


def ocgraph_bin() -> str:
    return os.environ.get("OCGRAPH_BIN", str(ROOT / "target" / "release" / "ocgraph"))


def peak_rss(cmd: list[str], cap: tuple[str, int] | None) -> tuple[int, int, float, str]:
    """Runs ``cmd`` (under ``memcap`` with a cap of ``cap[1]`` bytes when given); returns
    (peak RSS bytes, exit code, seconds, memcap JSON or "")."""
    if cap:
        cmd = [cap[0], str(cap[1]), "--", *cmd]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - start
    err = proc.stderr.read() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    capped = next((line for line in err.splitlines() if line.startswith('{"limit_bytes"')), "")
    return usage.ru_maxrss * 1024, code, secs, capped


def find_memcap(arg: str | None) -> str | None:
    """The memcap script, when it exists and can create a cgroup here."""
    path = arg or os.environ.get("OCGRAPH_MEMCAP") or str(ROOT.parent / "shared" / "tools" / "memcap")
    if not Path(path).exists():
        return None
    probe = subprocess.run([path, "64M", "--", "true"], capture_output=True, text=True)
    return path if probe.returncode == 0 else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--small", action="store_true", help="scale 14 (a quick check)")
    ap.add_argument("--memcap", help="path of the memcap script")
    ap.add_argument("--work", default=str(ROOT / "bench" / "out" / "memory-work"))
    ap.add_argument(
        "--out", help="directory of the CSV/JSON (default bench/memory/results; --small: bench/out)"
    )
    args = ap.parse_args()
    scale = 14 if args.small else args.scale
    args.out = args.out or str(ROOT / "bench" / ("out" if args.small else "memory/results"))
    work, out = Path(args.work), Path(args.out)
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    exe = ocgraph_bin()
    g = work / f"kron{scale}"
    if not g.exists():
        gen = ["generate", "kronecker", "--scale", str(scale), "--edge-factor", "16", "--seed", "1"]
        subprocess.run([exe, *gen, "--weighted", "--quiet", str(g)], check=True)
    info = json.loads(subprocess.run([exe, "info", str(g), "--json"], check=True, capture_output=True).stdout)
    n, m = info["vertices"], info["edges"]
    files = sum(p.stat().st_size for p in g.iterdir() if p.is_file())
    tiny = work / "kron4"
    if not tiny.exists():
        subprocess.run(
            [exe, "generate", "kronecker", "--scale", "4", "--weighted", "--quiet", str(tiny)], check=True
        )
    memcap = find_memcap(args.memcap)
    rows = []
    for frac in (0.01, 0.10):
        pool = max(int(files * frac) // PAGE * PAGE, 16 * PAGE)
        for kernel, (per_v, per_e) in KERNELS.items():
            tiny_cmd = [
                exe,
                "run",
                kernel,
                str(tiny),
                "--backend",
                "pool",
                "--memory",
                "64KiB",
                "--threads",
                "2",
            ]
            base_rss = peak_rss(tiny_cmd, None)[0]
            scratch = kernel == "triangle-count" and 4 * m > pool // 4
            if scratch:
                per_e = 0  # the oriented lists go to a scratch file (page/scratch.rs)
            state = per_v * n + per_e * m
            budget = pool + 8 * (files // PAGE + 1) + state + base_rss + THREAD_SLACK
            cmd = [exe, "run", kernel, str(g), "--backend", "pool", "--memory", str(pool), "--threads", "2"]
            rss, code, secs, capped = peak_rss(cmd, (memcap, budget) if memcap else None)
            cg = json.loads(capped)["max_usage_bytes"] if capped else None
            rows.append(
                {
                    "graph": g.name,
                    "vertices": n,
                    "edges": m,
                    "graph_bytes": files,
                    "pool_fraction": frac,
                    "kernel": kernel,
                    "pool_bytes": pool,
                    "state_bytes": state,
                    "process_bytes": base_rss + THREAD_SLACK,
                    "budget_bytes": budget,
                    "peak_rss_bytes": rss,
                    "cgroup_peak_bytes": cg,
                    "capped": bool(memcap),
                    "exit": code,
                    "secs": round(secs, 3),
                    "scratch_file": scratch,
                    # Mapped scratch pages count in the peak RSS but are page cache the cgroup
                    # reclaims: such a run is within when it ran capped at the budget.
                    "within": code == 0 and (rss <= budget or (scratch and bool(memcap))),
                }
            )
    mib = 1 << 20
    print(
        f"{g.name}: {n} vertices, {m} edges, {files / mib:.1f} MiB of graph files; "
        f"process baseline {rows[0]['process_bytes'] / mib - 8:.1f} MiB + 8 MiB of threads; "
        + (f"capped at the budget by {memcap}" if memcap else "UNCAPPED (memcap unavailable)")
    )
    print(
        f"{'pool':>5} {'kernel':<15} {'pool MiB':>9} {'state MiB':>10} {'budget MiB':>11} "
        f"{'peak RSS MiB':>13} {'cgroup MiB':>11} {'exit':>5} {'ok':>4} {'scratch file':>12}"
    )
    for r in rows:
        cg = f"{r['cgroup_peak_bytes'] / mib:11.1f}" if r["cgroup_peak_bytes"] else f"{'-':>11}"
        print(
            f"{r['pool_fraction']:>5.0%} {r['kernel']:<15} {r['pool_bytes'] / mib:9.1f} "
            f"{r['state_bytes'] / mib:10.1f} {r['budget_bytes'] / mib:11.1f} {r['peak_rss_bytes'] / mib:13.1f} "
            f"{cg} {r['exit']:>5} {'yes' if r['within'] else 'NO':>4} {'yes' if r['scratch_file'] else '':>12}"
        )
    stem = out / ("memory-small" if args.small else "memory")
    with open(f"{stem}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    Path(f"{stem}.json").write_text(json.dumps(rows, indent=1))
    if not all(r["within"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
