"""``python -m ocgraph.spark`` (also ``ocgraph spark``): export, import and run kernels on Spark.

    python -m ocgraph.spark export GRAPH OUT.parquet [--partitions 16]
    python -m ocgraph.spark import OUT.parquet GRAPH2
    python -m ocgraph.spark run pagerank GRAPH_OR_DATASET --master local[2] [--partitions N]
        [--design partitions|dataframe] [--source V] [--max-iter 100] [--tol 1e-6]
        [--out result.npy|result.txt] [--conf spark.executor.memory=4g ...]

``run`` takes a Parquet dataset, or an ocgraph graph directory that it exports first (to
``--parquet DIR``, else a temporary directory). ``--parquet`` replaces an ocgraph dataset or an
empty directory there and refuses any other existing path, and a path equal to, inside or
containing the graph directory. ``--out`` writes exactly the path given: a NumPy array when it
ends in ``.npy``, else text with one value a line (as ``ocgraph run --out``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from typing import Any

import numpy as np

from .. import Error
from .._args import overlaps
from .._errors import InvalidArgumentError, VertexError, io_error
from . import (
    DESIGNS,
    SparkGraph,
    _pagerank_options,
    _rust_float,
    export_parquet,
    import_parquet,
    missing_requirement,
    session,
    stop,
)
from ._dataset import META, check_target, read_meta
from ._session import shutdown_gateway

ALGOS = (
    "bfs",
    "sssp",
    "wcc",
    "pagerank",
    "triangles",
    "triangle-count",
)  # the last as `ocgraph run` names it


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
    r.add_argument("algo", choices=ALGOS, help="triangle-count is triangles (the name `ocgraph run` uses)")
    r.add_argument("graph", help="a Parquet dataset, or an ocgraph graph directory (exported first)")
    r.add_argument("--master", default="local[2]")
    r.add_argument("--partitions", type=int, default=None, help="partitions per superstep")
    r.add_argument("--design", choices=DESIGNS, default="partitions")
    r.add_argument("--parquet", default=None, help="where to export a graph directory (default: a temp dir)")
    r.add_argument("--source", type=int, default=0, help="bfs/sssp source vertex")
    r.add_argument("--max-iter", type=int, default=100)
    r.add_argument("--tol", type=float, default=1e-6)
    r.add_argument("--damping", type=float, default=0.85)
    r.add_argument(
        "--out",
        default=None,
        help="write the result: .npy, else text (one value a line); - for standard output",
    )
    r.add_argument("--driver-memory", default="2g")
    r.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting")
    return p


# The master URLs Spark accepts: SparkSubmit's prefixes (mesos:// up to Spark 3.5) and
# SparkContext's local forms.
_LOCAL = re.compile(r"local(?:\[\s*(\d+|\*)\s*(?:,\s*(\d+)\s*)?\])?")
_LOCAL_CLUSTER = re.compile(r"local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]")
_REMOTE = ("spark://", "k8s://", "mesos://")


def _check_master(master: str) -> None:
    """Refuses a ``--master`` that Spark would reject at start (with a Java stack trace)."""
    m = _LOCAL.fullmatch(master)
    if m:
        if m.group(1) is not None and m.group(1) != "*" and int(m.group(1)) < 1:
            raise InvalidArgumentError(f"--master {master}: a local master needs at least 1 thread")
        return
    if master == "yarn" or _LOCAL_CLUSTER.fullmatch(master) or master.startswith(_REMOTE):
        return
    raise InvalidArgumentError(
        f"--master {master}: not a Spark master URL "
        "(local, local[N], local[*], spark://HOST:PORT, k8s://URL, yarn)"
    )


def _conf(pairs: list[str]) -> dict[str, str]:
    """The ``--conf KEY=VALUE`` settings as a dict."""
    conf = {}
    for kv in pairs:
        key, eq, value = kv.partition("=")
        if not eq or not key.strip():
            raise InvalidArgumentError(f"--conf {kv}: expected KEY=VALUE")
        conf[key.strip()] = value
    return conf


def _check_out(out: str, graph: str) -> None:
    """Refuses ``--out`` inside the graph directory (or holding it), a directory, and one whose
    directory does not exist, before the run (``-`` is standard output)."""
    if out == "-":
        return
    if os.path.isdir(out):
        raise InvalidArgumentError(f"--out {out}: is a directory")
    if "://" not in graph and overlaps(out, graph):
        raise InvalidArgumentError(f"--out {out}: overlaps the graph directory {graph}; write it elsewhere")
    parent = os.path.dirname(out) or "."
    if not os.path.isdir(parent):
        raise InvalidArgumentError(f"--out {out}: the directory {parent} does not exist")


def _start(a: argparse.Namespace, conf: dict[str, str], started: bool) -> Any:
    """The Spark session for ``--master``. A failure to start raises an error naming the
    settings it was started with (any of them may be at fault), after
    shutting down the JVM pyspark launched for it when no session ran before (``started``)."""
    try:
        return session(
            a.master, shuffle_partitions=a.partitions or 4, driver_memory=a.driver_memory, conf=conf
        )
    except Error:
        raise
    except Exception as e:
        reason = _reason(e)
        if started:
            shutdown_gateway()
        given = [f"--master {a.master}", f"--driver-memory {a.driver_memory}"]
        given += [f"--conf {k}={v}" for k, v in conf.items()]
        raise InvalidArgumentError(f"cannot start Spark with {', '.join(given)}: {reason}") from None


def _reason(e: Exception) -> str:
    """The first line of what ``e`` says (the Java exception of a Py4J error)."""
    java = getattr(e, "java_exception", None)
    if java is not None:
        try:
            return str(java.toString())
        except Exception:
            pass
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return lines[0] if lines else type(e).__name__


def _text(result: np.ndarray) -> str:
    """``result`` one value a line, as ``ocgraph run --out`` writes them."""
    if result.dtype.kind in "iub":
        return "".join(f"{int(x)}\n" for x in result.tolist())
    return "".join(f"{_rust_float(x)}\n" for x in result.tolist())


def _write(path: str, result: np.ndarray) -> None:
    """Writes ``result`` to exactly ``path``, whole or not at all: a NumPy array when it ends in
    ``.npy`` (any case), else text (see :func:`_text`); ``-`` writes the text to standard
    output."""
    if path == "-":
        sys.stdout.write(_text(result))
        return
    tmp = os.path.join(os.path.dirname(path) or ".", f".{os.path.basename(path)}.tmp-{os.getpid()}")
    try:
        # Written beside the path and renamed over it: a failure leaves the previous file.
        with open(tmp, "wb") as f:
            if path.lower().endswith(".npy"):
                np.save(f, result)
            else:
                f.write(_text(result).encode())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise io_error(f"--out {path}: {e.strerror or e}", e.errno, path) from None


def _check_kernel_options(a: argparse.Namespace, n: int) -> None:
    """Refuses a source out of the graph's ``n`` vertices, or a bad PageRank option, before
    Spark starts (which takes tens of seconds), with the messages the run would give."""
    if a.algo in ("bfs", "sssp") and not 0 <= a.source < n:
        raise VertexError(f"vertex {a.source} out of range (the graph has {n} vertices)")
    if a.algo == "pagerank":
        _pagerank_options(a.damping, a.max_iter, a.tol)


def _run(a: argparse.Namespace) -> None:
    why = missing_requirement()
    if why:
        raise SystemExit(f"error: cannot run on Spark: {why}")
    conf = _conf(a.conf)
    _check_master(a.master)
    if not re.fullmatch(r"\d+[kmgt]?", a.driver_memory, re.IGNORECASE):
        # The JVM's heap size form: pyspark's JVM would exit with "Invalid maximum heap size".
        raise InvalidArgumentError(f"--driver-memory {a.driver_memory}: expected a size such as 2g or 512m")
    if a.partitions is not None and a.partitions < 1:
        raise InvalidArgumentError(f"--partitions must be >= 1, got {a.partitions}")
    if a.out:
        _check_out(a.out, a.graph)
    with tempfile.TemporaryDirectory(prefix="ocgraph-spark-") as tmp:
        dataset = a.graph
        if not os.path.exists(os.path.join(a.graph, META)) and "://" not in a.graph:
            dataset = a.parquet or os.path.join(tmp, "dataset")
            if a.parquet is not None:
                check_target(a.parquet, a.graph, "--parquet")
            export_parquet(
                a.graph, dataset, partitions=max(16, a.partitions or 0), overwrite=a.parquet is not None
            )
        _check_kernel_options(a, int(read_meta(dataset)["num_vertices"]))
        from pyspark.sql import SparkSession

        # In a process that already runs a session (tests, notebooks), use it and leave it up.
        started = SparkSession.getActiveSession() is None
        spark = _start(a, conf, started)
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
        except Error:
            raise
        except Exception as e:
            # A failure inside Spark (a --conf value it takes at start and refuses when a job
            # runs, a lost executor): one line, worded while the JVM still runs, since pyspark's
            # exceptions need it to print.
            raise Error(f"Spark failed: {_reason(e)}") from None
        finally:
            if started:
                stop(spark)
    # With the values on standard output (`--out -`) the report goes to standard error.
    report = sys.stderr if a.out == "-" else sys.stdout
    print(f"{a.algo} on Spark ({a.design}, {a.master}, {g.partitions} partitions): {summary}", file=report)
    print(f"{seconds:.3f} s, {len(g.supersteps)} supersteps", file=report)
    if a.out:
        _write(a.out, result)


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
        # The Python API's remedy, as this command spells it.
        message = str(e).replace("pass overwrite=True", "pass --force")
        print(f"error: {message}", file=sys.stderr)
        return 2 if isinstance(e, ValueError) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
