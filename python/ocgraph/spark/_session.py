"""A Spark session on the loopback address, and stopping it together with its JVM."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

from .._errors import InvalidArgumentError

__all__ = ["missing_requirement", "session", "shutdown_gateway", "stop"]


def missing_requirement() -> str | None:
    """Why Spark cannot run here (``None`` when pyspark, pyarrow and Java are all present)."""
    for module in ("pyspark", "pyarrow"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install 'ocgraph[spark]')"
    java_home = os.environ.get("JAVA_HOME")
    if not (java_home and os.path.exists(os.path.join(java_home, "bin", "java"))) and not shutil.which(
        "java"
    ):
        return "no Java runtime (java on PATH or JAVA_HOME); Spark needs Java 17 or later"
    return None


def session(
    master: str = "local[2]",
    shuffle_partitions: int = 4,
    app_name: str = "ocgraph",
    driver_memory: str = "2g",
    conf: dict[str, Any] | None = None,
) -> Any:
    """Starts (or returns the running) ``SparkSession`` for ocgraph's Spark kernels.

    Everything listens on 127.0.0.1 unless the caller sets ``SPARK_LOCAL_IP`` or
    ``spark.driver.bindAddress`` in ``conf``; the web UI is off; executors run this interpreter
    (``PYSPARK_PYTHON``, unless set). ``conf`` adds or overrides Spark settings. Stop the
    session with :func:`stop`, which also ends the JVM.

    Raises:
        InvalidArgumentError: pyspark, pyarrow or Java is missing.
    """
    why = missing_requirement()
    if why:
        raise InvalidArgumentError(f"cannot start Spark: {why}")
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    settings: dict[str, Any] = {
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": str(shuffle_partitions),
        # Keep the partition counts the kernels ask for (the benchmark varies them).
        "spark.sql.adaptive.coalescePartitions.enabled": "false",
        "spark.driver.memory": driver_memory,
        "spark.sql.execution.arrow.maxRecordsPerBatch": "1000000",
    }
    settings.update({k: str(v) for k, v in (conf or {}).items()})
    builder = SparkSession.builder.master(master).appName(app_name)
    for k, v in settings.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def stop(spark: Any) -> None:
    """Stops ``spark`` and shuts down the JVM that pyspark started for it (the next
    :func:`session` starts a new one)."""
    spark.stop()
    shutdown_gateway()


def shutdown_gateway() -> None:
    """Shuts down the JVM that pyspark started, if any and no SparkContext runs on it (as after
    a session that failed to start)."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None or SparkContext._active_spark_context is not None:
        return
    proc = getattr(gateway, "proc", None)
    try:
        gateway.shutdown()
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except Exception:
                proc.kill()
        SparkContext._gateway = None
        SparkContext._jvm = None
