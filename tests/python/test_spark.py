"""ocgraph.spark against the single-machine kernels (and networkx): both designs, on random
graphs (directed and weighted with isolated vertices; undirected with string ids) and on
subsets of the real graphs in data/, with one Spark session on local[2] for the whole run."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

import ocgraph
from conftest import DATA, random_edges
from ocgraph import spark as osp

_MISSING = osp.missing_requirement()
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=f"Spark tests need Spark: {_MISSING}")

# Real graphs (import options) and the size of the subset kept: the vertices below that id
# with the edges between them (design A runs one Spark superstep per BFS level).
REAL = {
    "ca-AstroPh.txt.gz": (dict(undirected=True, dedup=True, relabel="first-seen"), 400),
    "cnr-2000.el.gz": ({}, 400),
    "road-usroads.mtx.gz": (dict(undirected=True), 100),
}


@pytest.fixture(scope="session")
def spark():
    """One local[2] session for every Spark test; stopped (with its JVM) even on failure."""
    s = osp.session("local[2]", shuffle_partitions=2, app_name="ocgraph-tests", driver_memory="1g")
    try:
        yield s
    finally:
        osp.stop(s)


def _subset(g: ocgraph.Graph, k: int, path):
    """The graph induced by the vertices ``0 .. k-1`` of ``g``."""
    indptr, indices, weights = g._csr()
    n = min(k, g.num_vertices)
    src = np.repeat(np.arange(n), np.diff(indptr[: n + 1]))
    dst = indices[: indptr[n]].astype(np.int64)
    keep = dst < n
    if not g.directed:
        keep &= src <= dst
    w = None if weights is None else weights[: indptr[n]][keep]
    return ocgraph.from_edges(src[keep], dst[keep], path, num_vertices=n, weights=w, directed=g.directed)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """``name -> (graph, dataset path)`` for every test graph, exported with 6 parts."""
    base = tmp_path_factory.mktemp("spark")
    rng = np.random.default_rng(43)
    out = {}
    src, dst, w = random_edges(rng, 40, 120, weighted=True)
    # 8 isolated vertices (40 .. 47); self-loops kept.
    out["random-directed"] = ocgraph.from_edges(src, dst, base / "rd", num_vertices=48, weights=w, dedup=True)
    names = [f"v{i:03d}" for i in range(40)]
    a, b, _ = random_edges(rng, 40, 90)
    (base / "names.txt").write_text("".join(f"{names[i]} {names[j]}\n" for i, j in zip(a, b)))
    # Undirected, duplicate edges and self-loops kept.
    out["string-ids"] = ocgraph.import_edges(base / "names.txt", base / "names", undirected=True)
    for name, (opts, k) in REAL.items():
        full = ocgraph.import_edges(DATA / name, base / f"full-{name}", **opts)
        out[name] = _subset(full, k, base / name.split(".")[0])
        full.close()
    for name, g in out.items():
        path = str(base / f"{name}.parquet")
        osp.export_parquet(g, path, partitions=6)
        out[name] = (g, path)
    return out


CASES = ["random-directed", "string-ids", *REAL]


@pytest.fixture(params=osp.DESIGNS)
def design(request):
    return request.param


def _open(spark, datasets, name, design, partitions=3):
    g, path = datasets[name]
    return g, osp.SparkGraph(spark, path, partitions=partitions, design=design)


def _source(g):
    """The vertex of highest out-degree (a large reach)."""
    return int(np.argmax(g.out_degrees()))


def _check_parents(g, depth, parent):
    reached = np.flatnonzero(depth >= 0)
    for v in reached.tolist():
        if depth[v] > 0:
            assert depth[parent[v]] == depth[v] - 1 and v in g.neighbors(parent[v]).tolist()
    assert (parent[depth < 0] == -1).all()


@pytest.mark.parametrize("name", CASES)
def test_bfs_sssp(spark, datasets, design, name):
    g, sg = _open(spark, datasets, name, design)
    s = _source(g)
    depth, parent = sg.bfs(s, parents=True)
    np.testing.assert_array_equal(depth, g.bfs(s))
    _check_parents(g, depth, parent)
    np.testing.assert_allclose(sg.sssp(s), g.sssp(s), rtol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_wcc(spark, datasets, design, name):
    g, sg = _open(spark, datasets, name, design)
    labels = sg.wcc()
    assert labels.dtype == np.uint32
    np.testing.assert_array_equal(labels, g.wcc())


@pytest.mark.parametrize("name", CASES)
def test_pagerank(spark, datasets, design, name):
    g, sg = _open(spark, datasets, name, design)
    # A loose tolerance: few supersteps, and the same iterates as the single-machine kernel.
    np.testing.assert_allclose(sg.pagerank(tol=1e-3), g.pagerank(tol=1e-3), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("name", CASES)
def test_triangle_count(spark, datasets, design, name):
    g, sg = _open(spark, datasets, name, design)
    assert sg.triangle_count() == g.triangle_count()


def test_networkx_and_personalization(spark, datasets, design):
    g, sg = _open(spark, datasets, "random-directed", design)
    h = g.to_networkx()
    ref = nx.pagerank(h, tol=1e-8)
    got = sg.pagerank(tol=1e-8)
    assert math.isclose(got.sum(), 1.0) and np.allclose(
        got, [ref[v] for v in range(g.num_vertices)], atol=1e-9
    )
    pers = {3: 1.0, 7: 2.0}
    np.testing.assert_allclose(sg.pagerank(personalization=pers), g.pagerank(personalization=pers), rtol=1e-9)
    hu = h.to_undirected()
    hu.remove_edges_from(nx.selfloop_edges(hu))
    assert sg.triangle_count() == sum(nx.triangles(hu).values()) // 3


def test_dataframe_results_carry_original_ids(spark, datasets, design):
    g, sg = _open(spark, datasets, "string-ids", design)
    rows = sg.wcc(collect=False).orderBy("id").collect()
    assert [r.original_id for r in rows] == g.original_ids()
    assert [r.label for r in rows] == g.wcc().tolist()
    reached = sg.bfs(0, collect=False)
    assert set(reached.columns) >= {"id", "original_id", "depth", "parent"}
    assert reached.count() == int((g.bfs(0) >= 0).sum())


@pytest.mark.parametrize("partitions", [1, 6, 8])
def test_partition_counts(spark, datasets, partitions):
    g, sg = _open(spark, datasets, "ca-AstroPh.txt.gz", "partitions", partitions)
    np.testing.assert_array_equal(sg.wcc(), g.wcc())
    assert len(sg.supersteps) >= 1


def test_errors(spark, datasets, tmp_path):
    g, sg = _open(spark, datasets, "random-directed", "partitions")
    with pytest.raises(ocgraph.VertexError):
        sg.bfs(g.num_vertices)
    with pytest.raises(ocgraph.InvalidArgumentError, match="design"):
        osp.SparkGraph(spark, sg.path, design="graphx")
    with pytest.raises(ocgraph.FormatError, match="not an ocgraph Parquet dataset"):
        osp.SparkGraph(spark, str(tmp_path))
    with pytest.raises(ocgraph.OcgraphIOError, match="exists"):
        osp.export_parquet(g, sg.path)


@pytest.mark.parametrize("name", ["random-directed", "string-ids"])
def test_parquet_round_trip(datasets, tmp_path, name):
    g, path = datasets[name]
    back = osp.import_parquet(path, tmp_path / "back")
    assert (back.num_vertices, back.num_edges, back.directed, back.weighted) == (
        g.num_vertices,
        g.num_edges,
        g.directed,
        g.weighted,
    )
    for v in range(g.num_vertices):
        np.testing.assert_array_equal(back.neighbors(v), g.neighbors(v))
        np.testing.assert_array_equal(back.edge_weights(v), g.edge_weights(v))


def test_command_line(spark, datasets, tmp_path, capsys):
    from ocgraph.spark.__main__ import main

    g, path = datasets["string-ids"]
    assert main(["run", "wcc", path, "--partitions", "2", "--out", str(tmp_path / "wcc.npy")]) == 0
    assert f"{len(np.unique(g.wcc()))} components" in capsys.readouterr().out
    np.testing.assert_array_equal(np.load(tmp_path / "wcc.npy"), g.wcc())
    assert main(["export", g.path, str(tmp_path / "d"), "--partitions", "3"]) == 0
    assert main(["import", str(tmp_path / "d"), str(tmp_path / "back")]) == 0
    assert ocgraph.open(tmp_path / "back").num_edges == g.num_edges
    assert main(["import", str(tmp_path / "nothing"), str(tmp_path / "x")]) == 1
    assert "not an ocgraph Parquet dataset" in capsys.readouterr().err
