"""Design A: every superstep is a few DataFrame joins and aggregations (as GraphFrames does).

State lives in DataFrames keyed by vertex id; each superstep joins the vertices that changed
with the edge table, aggregates the messages by destination, and cuts the lineage with
``localCheckpoint`` (without it, plans and lineage grow with every superstep).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["bfs", "pagerank", "sssp", "triangle_count", "wcc"]


def _F():
    from pyspark.sql import functions

    return functions


def _cut(df: Any) -> Any:
    """Materializes ``df`` and cuts its lineage."""
    return df.localCheckpoint(eager=True)


def _edges(sg: Any, weighted: bool = False) -> Any:
    F = _F()
    cols = [F.col("src"), F.col("dst")]
    if weighted:
        cols.append(F.col("weight").cast("double").alias("w") if sg.weighted else F.lit(1.0).alias("w"))
    return sg.edges.select(*cols)


def bfs(sg: Any, source: int) -> Any:
    """Level-synchronous BFS: ``(id, depth, parent)`` for every reached vertex (the smallest
    parent id on the previous level)."""
    F = _F()
    spark = sg.spark
    edges = _edges(sg)
    visited = _cut(spark.createDataFrame([(source, 0, source)], "id long, depth long, parent long"))
    frontier = visited.select("id")
    depth = 0
    while True:
        depth += 1
        sg._superstep()
        reached = (
            frontier.join(edges, frontier.id == edges.src)
            .groupBy(F.col("dst").alias("id"))
            .agg(F.min("src").alias("parent"))
            .join(visited, "id", "left_anti")
            .select("id", F.lit(depth).cast("long").alias("depth"), "parent")
        )
        reached = _cut(reached)
        if reached.isEmpty():
            return visited
        visited = _cut(visited.unionByName(reached))
        frontier = reached.select("id")


def sssp(sg: Any, source: int) -> Any:
    """Bellman-Ford from the vertices improved in the last superstep: ``(id, dist)`` for every
    reached vertex."""
    F = _F()
    spark = sg.spark
    edges = _edges(sg, weighted=True)
    dist = _cut(spark.createDataFrame([(source, 0.0)], "id long, dist double"))
    active = dist
    while True:
        sg._superstep()
        cand = (
            active.join(edges, active.id == edges.src)
            .groupBy(F.col("dst").alias("id"))
            .agg(F.min(F.col("dist") + F.col("w")).alias("cand"))
        )
        improved = (
            cand.join(dist, "id", "left")
            .where(F.col("dist").isNull() | (F.col("cand") < F.col("dist")))
            .select("id", F.col("cand").alias("dist"))
        )
        improved = _cut(improved)
        if improved.isEmpty():
            return dist
        dist = _cut(dist.join(improved, "id", "left_anti").unionByName(improved))
        active = improved


def wcc(sg: Any) -> Any:
    """Min-label propagation over both edge directions, messages only from vertices whose label
    changed: ``(id, label)`` for every vertex."""
    F = _F()
    spark = sg.spark
    arcs = _edges(sg)
    if sg.directed:
        arcs = arcs.unionByName(arcs.select(F.col("dst").alias("src"), F.col("src").alias("dst")))
    arcs = arcs.where(F.col("src") != F.col("dst"))
    labels = _cut(spark.range(sg.num_vertices).select("id", F.col("id").alias("label")))
    active = labels
    while True:
        sg._superstep()
        changed = (
            active.join(arcs, active.id == arcs.src)
            .groupBy(F.col("dst").alias("id"))
            .agg(F.min("label").alias("m"))
            .join(labels, "id")
            .where(F.col("m") < F.col("label"))
            .select("id", F.col("m").alias("label"))
        )
        changed = _cut(changed)
        if changed.isEmpty():
            return labels
        labels = _cut(labels.join(changed, "id", "left_anti").unionByName(changed))
        active = changed


def pagerank(
    sg: Any, damping: float, max_iter: int, tol: float, personalization: np.ndarray | None, weight: bool
) -> Any:
    """networkx's power iteration: ``(id, rank)`` for every vertex."""
    F = _F()
    spark = sg.spark
    n = sg.num_vertices
    use_w = weight and sg.weighted
    edges = _edges(sg, weighted=True)
    if not use_w:
        edges = edges.withColumn("w", F.lit(1.0))
    out_w = edges.groupBy(F.col("src").alias("id")).agg(F.sum("w").alias("out_w")).where(F.col("out_w") > 0)
    norm = _cut(
        edges.join(out_w, edges.src == out_w.id).select(
            "src", "dst", (F.col("w") / F.col("out_w")).alias("w")
        )
    )
    if personalization is None:
        pvec = spark.range(n).select("id", F.lit(1.0 / n).alias("p"))
    else:
        pdf = [(int(i), float(x)) for i, x in enumerate(personalization) if x != 0]
        pvec = (
            spark.range(n)
            .join(spark.createDataFrame(pdf, "id long, p double"), "id", "left")
            .fillna(0.0, ["p"])
        )
    pvec = _cut(pvec)
    dangling = _cut(spark.range(n).join(out_w, "id", "left_anti"))
    x = _cut(spark.range(n).select("id", F.lit(1.0 / n).alias("x")))
    for _ in range(max_iter):
        sg._superstep()
        dsum = x.join(dangling, "id").agg(F.sum("x")).first()[0] or 0.0
        contrib = (
            x.join(norm, x.id == norm.src)
            .groupBy(F.col("dst").alias("id"))
            .agg(F.sum(F.col("x") * F.col("w")).alias("c"))
        )
        new = _cut(
            pvec.join(contrib, "id", "left").select(
                "id",
                (
                    damping * (F.coalesce(F.col("c"), F.lit(0.0)) + dsum * F.col("p"))
                    + (1 - damping) * F.col("p")
                ).alias("x"),
            )
        )
        err = (
            new.alias("a").join(x.alias("b"), "id").agg(F.sum(F.abs(F.col("a.x") - F.col("b.x")))).first()[0]
        )
        x = new
        if err < n * tol:
            break
    return x


def triangle_count(sg: Any) -> int:
    """Triangles of the underlying simple undirected graph: edges oriented from lower to higher
    (out-degree, id), wedges ``a -> b -> c`` closed by an edge ``a -> c``."""
    F = _F()
    n = sg.num_vertices
    deg = sg.vertices.select("id", (F.col("out_degree") * n + F.col("id")).alias("rank"))
    e = _edges(sg).where(F.col("src") != F.col("dst"))
    e = (
        e.join(deg.withColumnRenamed("id", "src").withColumnRenamed("rank", "rs"), "src")
        .join(deg.withColumnRenamed("id", "dst").withColumnRenamed("rank", "rd"), "dst")
        .select(
            F.when(F.col("rs") < F.col("rd"), F.col("src")).otherwise(F.col("dst")).alias("a"),
            F.when(F.col("rs") < F.col("rd"), F.col("dst")).otherwise(F.col("src")).alias("b"),
        )
        .distinct()
    )
    e = _cut(e)
    sg._superstep()
    wedges = (
        e.alias("e1")
        .join(e.alias("e2"), F.col("e1.b") == F.col("e2.a"))
        .select(F.col("e1.a").alias("a"), F.col("e2.b").alias("b"))
    )
    return int(wedges.join(e, ["a", "b"]).count())
