"""``python -m ocgraph.spark`` (also ``ocgraph spark``): export, import and run kernels on Spark.

    python -m ocgraph.spark export GRAPH OUT.parquet [--partitions 16]
    python -m ocgraph.spark import OUT.parquet GRAPH2
    python -m ocgraph.spark run pagerank GRAPH_OR_DATASET --master local[2] [--partitions N]
        [--design partitions|dataframe] [--source V] [--max-iter 100] [--tol 1e-6]
        [--out result.npy] [--conf spark.executor.memory=4g ...]

``run`` takes a Parquet dataset, or an ocgraph graph directory that it exports first (to
``--parquet DIR``, else a temporary directory).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

from .. import Error
from . import DESIGNS, SparkGraph, export_parquet, import_parquet, missing_requirement, session, stop
from ._dataset import META

ALGOS = ("bfs", "sssp", "wcc", "pagerank", "triangles")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ocgraph spark", description="ocgraph's analytics on Apache Spark.")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write a graph as a partitioned Parquet dataset")
    e.add_argument("graph")
    e.add_argument("out")
    e.add_argument("--partitions", type=int, default=16, help="source-range parts (default 16)")
    e.add_argument("--force", action="store_true", help="replace an existing dataset")
    i = sub.add_parser("import", help="build an ocgraph graph from a Parquet dataset")
    i.add_argument("dataset")
    i.add_argument("out")
    i.add_argument("--force", action="store_true", help="replace an existing graph")
    r = sub.add_parser("run", help="run a kernel on Spark")
    r.add_argument("algo", choices=ALGOS)
    r.add_argument("graph", help="a Parquet dataset, or an ocgraph graph directory (exported first)")
    r.add_argument("--master", default="local[2]")
    r.add_argument("--partitions", type=int, default=None, help="partitions per superstep")
    r.add_argument("--design", choices=DESIGNS, default="partitions")
    r.add_argument("--parquet", default=None, help="where to export a graph directory (default: a temp dir)")
    r.add_argument("--source", type=int, default=0, help="bfs/sssp source vertex")
    r.add_argument("--max-iter", type=int, default=100)
    r.add_argument("--tol", type=float, default=1e-6)
    r.add_argument("--damping", type=float, default=0.85)
    r.add_argument("--out", default=None, help="write the result array (.npy)")
    r.add_argument("--driver-memory", default="2g")
    r.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting")
    return p


def _run(a: argparse.Namespace) -> None:
    why = missing_requirement()
    if why:
        raise SystemExit(f"error: cannot run on Spark: {why}")
    conf = dict(kv.split("=", 1) for kv in a.conf)
    with tempfile.TemporaryDirectory(prefix="ocgraph-spark-") as tmp:
        dataset = a.graph
        if not os.path.exists(os.path.join(a.graph, META)) and "://" not in a.graph:
            dataset = a.parquet or os.path.join(tmp, "dataset")
            export_parquet(
                a.graph, dataset, partitions=max(16, a.partitions or 0), overwrite=a.parquet is not None
            )
        from pyspark.sql import SparkSession

        # In a process that already runs a session (tests, notebooks), use it and leave it up.
        started = SparkSession.getActiveSession() is None
        spark = session(
            a.master, shuffle_partitions=a.partitions or 4, driver_memory=a.driver_memory, conf=conf
        )
        try:
            g = SparkGraph(spark, dataset, partitions=a.partitions, design=a.design)
            t0 = time.perf_counter()
            if a.algo == "bfs":
                result = g.bfs(a.source)
                summary = f"reached {int((result >= 0).sum())} vertices, depth {int(result.max())}"
            elif a.algo == "sssp":
                result = g.sssp(a.source)
                finite = result[np.isfinite(result)]
                summary = f"reached {len(finite)} vertices, farthest at {finite.max():g}"
            elif a.algo == "wcc":
                result = g.wcc()
                summary = f"{len(np.unique(result))} components"
            elif a.algo == "pagerank":
                result = g.pagerank(damping=a.damping, max_iter=a.max_iter, tol=a.tol)
                summary = f"top vertex {int(np.argmax(result))} ({result.max():.6g})"
            else:
                result = np.array([g.triangle_count()])
                summary = f"{int(result[0])} triangles"
            seconds = time.perf_counter() - t0
        finally:
            if started:
                stop(spark)
    print(f"{a.algo} on Spark ({a.design}, {a.master}, {g.partitions} partitions): {summary}")
    print(f"{seconds:.3f} s, {len(g.supersteps)} supersteps")
    if a.out:
        np.save(a.out, result)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m ocgraph.spark``; returns the exit status."""
    a = _parser().parse_args(argv)
    try:
        if a.command == "export":
            meta = export_parquet(a.graph, a.out, partitions=a.partitions, overwrite=a.force)
            print(f"exported {meta['num_vertices']} vertices, {meta['num_arcs']} arcs to {a.out}")
        elif a.command == "import":
            g = import_parquet(a.dataset, a.out, overwrite=a.force)
            print(f"imported {g.num_vertices} vertices, {g.num_edges} edges into {a.out}")
        else:
            _run(a)
    except Error as e:
        print(f"error: {e}", file=sys.stderr)
        return 2 if isinstance(e, ValueError) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
