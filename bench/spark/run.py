"""ocgraph.spark against the single-machine engine on Kronecker graphs, on local[2].

For each graph: every kernel single-machine (2 threads) and on Spark in both designs (DataFrame
joins; partitions running numpy/Rust in mapInArrow), with the supersteps and the shuffle bytes
of each superstep (Spark's status store, per job group); then the partitions design with 1, 2
and 4 partitions per core. Prints a table; writes results/spark-<tag>.csv and .json.

    python bench/spark/run.py                 # kron18 and kron20
    python bench/spark/run.py --small         # kron10, both designs, no sweep (make bench; bench/out)
    python bench/spark/run.py --scales 18 --kernels pagerank wcc
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

import ocgraph
from ocgraph import spark as osp

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
KERNELS = ("bfs", "sssp", "wcc", "pagerank", "triangles")
CORES = 2


def run_kernel(g, kernel: str, source: int, pr_iters: int = 20):
    """Runs ``kernel`` on a Graph or SparkGraph with the benchmark's parameters."""
    if kernel == "bfs":
        return g.bfs(source)
    if kernel == "sssp":
        return g.sssp(source)
    if kernel == "wcc":
        return g.wcc()
    if kernel == "pagerank":  # PageRank-20: exactly 20 iterations
        return g.pagerank(max_iter=pr_iters, tol=0.0)
    return g.triangle_count()


def same(kernel: str, a, b) -> bool:
    if kernel == "pagerank":
        # Graph.pagerank is itself within ~5e-8 (relative) of float64 power iteration on kron18.
        return bool(np.allclose(a, b, rtol=1e-6, atol=0.0))
    if kernel == "sssp":
        return bool(np.allclose(a, b, rtol=1e-12))
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def shuffle_per_step(spark, groups: list[str]) -> list[int]:
    """Shuffle bytes written by the Spark jobs of each job group (one group per superstep)."""
    sc = spark.sparkContext
    try:  # let the status listener catch up with the last jobs
        sc._jsc.sc().listenerBus().waitUntilEmpty()
    except Exception:
        time.sleep(1.0)
    tracker = sc.statusTracker()
    store = sc._jsc.sc().statusStore()
    out = []
    for group in groups:
        total = 0
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            for stage in info.stageIds if info else []:
                try:
                    total += int(store.lastStageAttempt(stage).shuffleWriteBytes())
                except Exception:
                    pass  # stages skipped (their shuffle output was reused) have no attempt
        out.append(total)
    return out


def save(rows: list[dict], tag: str, out: Path) -> None:
    """Writes OUT/spark-<tag>.csv and .json (after every row: a long run keeps what it did)."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"spark-{tag}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    meta = {"machine": platform.machine(), "cores": os.cpu_count(), "master": f"local[{CORES}]", "rows": rows}
    (out / f"spark-{tag}.json").write_text(json.dumps(meta, indent=1))


def timed(fn, trials: int):
    best, result = float("inf"), None
    for _ in range(trials):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="kron10 only, no partition sweep")
    ap.add_argument("--scales", type=int, nargs="+", default=[18, 20])
    ap.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=KERNELS)
    ap.add_argument("--designs", nargs="+", default=list(osp.DESIGNS), choices=osp.DESIGNS)
    ap.add_argument(
        "--sweep", type=int, nargs="+", default=[1, 2, 4], help="partitions per core (partitions design)"
    )
    ap.add_argument(
        "--dataframe-kernels", nargs="+", default=None, help="kernels for the dataframe design (default all)"
    )
    ap.add_argument(
        "--dataframe-pr-iters",
        type=int,
        default=20,
        help="PageRank iterations in the dataframe design (fewer on large graphs; the row says how many)",
    )
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument(
        "--work", default=os.environ.get("OCGRAPH_BENCH_DIR", str(HERE.parents[1] / "target" / "bench-spark"))
    )
    ap.add_argument("--tag", default=None)
    a = ap.parse_args()
    scales = [10] if a.small else a.scales
    sweep = [2] if a.small else a.sweep
    tag = a.tag or ("small" if a.small else "kron" + "-".join(map(str, scales)))
    # A small run is a smoke test: its files go under bench/out (git-ignored), not results/.
    results = ROOT / "bench" / "out" if a.small else HERE / "results"
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    spark = osp.session(
        f"local[{CORES}]",
        shuffle_partitions=2 * CORES,
        driver_memory="6g",
        conf={
            "spark.ui.retainedJobs": 100000,
            "spark.ui.retainedStages": 100000,
            "spark.sql.ui.retainedExecutions": 100,
        },
    )
    try:
        for scale in scales:
            name = f"kron{scale}"
            gpath, dpath = work / name, work / f"{name}.parquet"
            if not gpath.exists():
                ocgraph.generate("kronecker", gpath, scale=scale, edge_factor=16, seed=1).close()
            g = ocgraph.open(gpath)
            if not dpath.exists():
                osp.export_parquet(g, str(dpath), partitions=16)
            source = int(np.argmax(g.out_degrees()))
            ref = {}
            for k in a.kernels:
                t, ref[k] = timed(lambda k=k, g=g, source=source: run_kernel(g, k, source), a.trials)
                rows.append(
                    dict(
                        graph=name,
                        kernel=k,
                        engine="single",
                        partitions="",
                        seconds=t,
                        supersteps="",
                        shuffle_bytes="",
                        shuffle_per_step="",
                        equal=True,
                    )
                )
                save(rows, tag, results)
                print(f"{name:7s} {k:10s} single      {t:9.3f} s", flush=True)
            plans = [(d, 2 * CORES) for d in a.designs] + [
                ("partitions", c * CORES) for c in sweep if c * CORES != 2 * CORES
            ]
            for design, parts in plans:
                sg = osp.SparkGraph(spark, str(dpath), partitions=parts, design=design)
                kernels = (
                    a.kernels
                    if design == "partitions" or a.dataframe_kernels is None
                    else [k for k in a.kernels if k in a.dataframe_kernels]
                )
                for k in kernels:
                    iters = a.dataframe_pr_iters if design == "dataframe" else 20
                    t, got = timed(
                        lambda k=k, sg=sg, source=source, iters=iters: run_kernel(sg, k, source, iters),
                        a.trials,
                    )
                    steps = shuffle_per_step(spark, sg.supersteps)
                    want = ref[k] if k != "pagerank" or iters == 20 else run_kernel(g, k, source, iters)
                    ok = same(k, got, want)
                    if k == "pagerank" and iters != 20:
                        k = f"pagerank-{iters}"
                    rows.append(
                        dict(
                            graph=name,
                            kernel=k,
                            engine=design,
                            partitions=parts,
                            seconds=t,
                            supersteps=len(steps),
                            shuffle_bytes=sum(steps),
                            shuffle_per_step=" ".join(map(str, steps)),
                            equal=ok,
                        )
                    )
                    save(rows, tag, results)
                    print(
                        f"{name:7s} {k:10s} {design:11s} {t:9.3f} s  p={parts} steps={len(steps):3d} shuffle={sum(steps) / 2**20:9.1f} MiB  equal={ok}",
                        flush=True,
                    )
            g.close()
    finally:
        osp.stop(spark)
    print(
        f"\n{'graph':7s} {'kernel':10s} {'engine':11s} {'parts':>5s} {'seconds':>9s} {'steps':>5s} {'shuffle MiB':>11s} equal"
    )
    for r in rows:
        mib = f"{r['shuffle_bytes'] / 2**20:.1f}" if r["shuffle_bytes"] != "" else ""
        print(
            f"{r['graph']:7s} {r['kernel']:10s} {r['engine']:11s} {r['partitions']!s:>5s} {r['seconds']:9.3f} {r['supersteps']!s:>5s} {mib:>11s} {r['equal']}"
        )


if __name__ == "__main__":
    main()
