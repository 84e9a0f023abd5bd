#!/usr/bin/env python3
"""Parquet import benchmark: how fast an edge table in a Parquet file becomes something a program
can run analytics on, with ocgraph and with the usual Python stack.

One run:
  1. `ocgraph generate kronecker --scale S` (Graph500 parameters, undirected, simple),
  2. `ocgraph export G edges.parquet` (columns src, dst: uint32, each undirected edge once,
     snappy, row groups of 1M rows),
  3. each reader on that file, in its own process under `/usr/bin/time -f "%e %M"` (so the peak
     RSS is that process's alone), the file in the page cache:
     - `ocgraph import edges.parquet --undirected` (the CLI: parquet crate, budgeted builder,
       CSR files written and fsynced),
     - `ocgraph.from_parquet(..., directed=False)` (Python: pyarrow batches into the builder),
     - pandas.read_parquet + scipy.sparse.csr_matrix of the symmetric adjacency (in memory),
     - pyarrow.parquet.read_table alone (the floor: decoding the columns, nothing built).

Prints a table and writes CSV and JSON (default bench/interop/results/interop-kron<S>.{csv,json}).

Usage: python3 bench/interop/run.py [--scale 20] [--small] [--bin PATH] [--memory 1GiB] [--out PREFIX]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

READERS = {
    "ocgraph.from_parquet": """
import sys, time, ocgraph
t0 = time.perf_counter()
g = ocgraph.from_parquet(sys.argv[1], sys.argv[2], directed=False, memory=sys.argv[3])
print(g.num_arcs, time.perf_counter() - t0)
""",
    "pandas + scipy csr": """
import sys, time, numpy as np, pandas as pd, scipy.sparse as sp
t0 = time.perf_counter()
df = pd.read_parquet(sys.argv[1])
s = df["src"].to_numpy(np.int64); d = df["dst"].to_numpy(np.int64)
n = int(max(s.max(), d.max())) + 1
rows = np.concatenate([s, d]); cols = np.concatenate([d, s])
m = sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n, n))
print(m.nnz, time.perf_counter() - t0)
""",
    "pyarrow read_table": """
import sys, time, pyarrow.parquet as pq
t0 = time.perf_counter()
t = pq.read_table(sys.argv[1])
print(2 * t.num_rows, time.perf_counter() - t0)
""",
}


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Runs ``cmd`` under /usr/bin/time; returns (seconds, peak RSS MB, stdout)."""
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M", *cmd], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    secs, kb = r.stderr.strip().splitlines()[-1].split()
    return float(secs), int(kb) / 1024, r.stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--small", action="store_true", help="scale 14 (for `make bench`)")
    ap.add_argument(
        "--bin", default=os.environ.get("OCGRAPH_BIN", os.path.join(ROOT, "target/release/ocgraph"))
    )
    ap.add_argument("--memory", default="1GiB", help="ocgraph's builder budget")
    ap.add_argument(
        "--out",
        help="CSV/JSON path prefix (default bench/interop/results/interop-kron<S>; --small: bench/out/...)",
    )
    args = ap.parse_args()
    scale = 14 if args.small else args.scale
    if not os.path.exists("/usr/bin/time"):
        sys.exit("needs /usr/bin/time (apt-get install time)")
    out = args.out or os.path.join(
        ROOT, "bench", *(("out",) if args.small else ("interop", "results")), f"interop-kron{scale}"
    )
    tmp = tempfile.mkdtemp(prefix="ocgraph-interop-")
    try:
        g = os.path.join(tmp, "g")
        pq_file = os.path.join(tmp, "edges.parquet")
        subprocess.run([args.bin, "generate", "kronecker", "--scale", str(scale), "--edge-factor", "16",
                        "--seed", "1", "--quiet", g], check=True)  # fmt: skip
        subprocess.run([args.bin, "export", g, pq_file], check=True, capture_output=True)
        size_mb = os.path.getsize(pq_file) / 1e6
        rows = []

        def add(system: str, secs: float, process_secs: float, rss: float, arcs: int) -> None:
            rows.append({"system": system, "seconds": round(secs, 3), "process_seconds": round(process_secs, 3),
                         "M_edges_per_s": round(arcs / 2 / secs / 1e6, 2), "peak_rss_mb": round(rss, 1),
                         "arcs": arcs})  # fmt: skip

        secs, rss, _ = timed([args.bin, "import", pq_file, os.path.join(tmp, "cli"), "--undirected", "--memory",
                              args.memory, "--quiet"])  # fmt: skip
        arcs = int(json.loads(subprocess.run([args.bin, "info", os.path.join(tmp, "cli"), "--json"], check=True,
                                             capture_output=True, text=True).stdout)["arcs"])  # fmt: skip
        add("ocgraph import (CLI)", secs, secs, rss, arcs)
        for name, code in READERS.items():
            extra = [os.path.join(tmp, "py"), args.memory] if name.startswith("ocgraph") else []
            process_secs, rss, printed = timed([sys.executable, "-c", code, pq_file, *extra])
            n, secs = printed.splitlines()[-1].split()
            add(name, float(secs), process_secs, rss, int(n))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"kron{scale}: {rows[0]['arcs'] // 2} undirected edges, Parquet file {size_mb:.1f} MB")
    print("seconds: the work in the process (Python rows exclude interpreter start and imports: process s)")
    print(f"{'system':<24} {'seconds':>8} {'process s':>10} {'M edges/s':>10} {'peak RSS MB':>12}")
    for r in rows:
        print(f"{r['system']:<24} {r['seconds']:>8.3f} {r['process_seconds']:>10.3f} {r['M_edges_per_s']:>10.2f} "
              f"{r['peak_rss_mb']:>12.1f}")  # fmt: skip
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with open(out + ".json", "w") as f:
        json.dump({"graph": f"kron{scale}", "parquet_mb": round(size_mb, 1), "rows": rows}, f, indent=1)
    print(f"wrote {out}.csv and {out}.json")


if __name__ == "__main__":
    main()
