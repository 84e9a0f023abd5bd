"""ocgraph.spark against the single-machine kernels (and networkx): both designs, on random
graphs (directed and weighted with isolated vertices; undirected with string ids) and on
subsets of the real graphs in data/, with one Spark session on local[2] for the whole run.

Without OCGRAPH_SLOW=1 the kernels run on the first real graph only, and the DataFrame design
on the random graphs only: a superstep there is a Spark job of joins, and these cases took
most of the suite's time (pytest --durations)."""

from __future__ import annotations

import json
import math
import os
import re

import networkx as nx
import numpy as np
import pandas as pd
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


SLOW = os.environ.get("OCGRAPH_SLOW") == "1"


def _open(spark, datasets, name, design, partitions=3):
    if name in REAL and not SLOW:
        if design == "dataframe":
            pytest.skip("the DataFrame design on the real graphs runs with OCGRAPH_SLOW=1")
        if name != next(iter(REAL)):
            pytest.skip("the real graphs after the first run with OCGRAPH_SLOW=1")
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
    if design == "dataframe" and not SLOW:
        pytest.skip("PageRank to 1e-8 on the DataFrame design runs with OCGRAPH_SLOW=1")
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


def test_damaged_datasets_are_format_errors_naming_the_file(spark, tmp_path):
    """Metadata that is not JSON or lacks a key, an edge file without a column or with string
    ids, a file that is not Parquet and a missing part: each a FormatError naming the file, from
    the import and from SparkGraph (before Spark reads anything on the executors)."""
    import json
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    g = ocgraph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], tmp_path / "g", weights=[1.0, 2.0, 3.0, 4.0])

    def dataset(name):
        osp.export_parquet(g, tmp_path / name, partitions=2)
        return tmp_path / name, sorted((tmp_path / name / "edges").glob("*/*.parquet"))

    bad_json, _ = dataset("bad_json")
    (bad_json / "_ocgraph.json").write_text("{bad")
    no_bounds, _ = dataset("no_bounds")
    meta = json.loads((no_bounds / "_ocgraph.json").read_text())
    del meta["bounds"]
    (no_bounds / "_ocgraph.json").write_text(json.dumps(meta))
    renamed, files = dataset("renamed")
    pq.write_table(pq.ParquetFile(files[1]).read().rename_columns(["a", "dst", "weight"]), files[1])
    garbage, files = dataset("garbage")
    files[1].write_bytes(b"not parquet" * 10)
    # A part gone (its arcs would be missing from every result) and ids that are not integers.
    no_part, _ = dataset("no_part")
    shutil.rmtree(no_part / "edges" / "part=00001")
    no_in_part, _ = dataset("no_in_part")
    shutil.rmtree(no_in_part / "in_edges" / "part=00000")
    strings, files = dataset("strings")
    t = pq.ParquetFile(files[0]).read()
    pq.write_table(t.set_column(0, "src", t.column("src").cast(pa.string())), files[0])
    for path, what in [
        (bad_json, "_ocgraph.json: not the metadata"),
        (no_bounds, "_ocgraph.json: bounds is missing"),
        (renamed, "part=00001/data.parquet: an edge file without the column 'src'"),
        (garbage, "Parquet magic bytes"),
        (no_part, "edges/part=00001: a part of the dataset is missing (_ocgraph.json lists 2)"),
        (no_in_part, "in_edges/part=00000: a part of the dataset is missing"),
        (strings, "part=00000/data.parquet: column 'src' holds string, not numbers"),
    ]:
        with pytest.raises(ocgraph.FormatError, match=re.escape(what)):
            osp.import_parquet(path, tmp_path / f"{path.name}_back")
        with pytest.raises(ocgraph.FormatError, match=re.escape(what)):
            osp.SparkGraph(spark, path)
    # A graph without an id map does not need the vertex table to import, but it must be whole.
    vertices, _ = dataset("vertices")
    (vertices / "vertices" / "data.parquet").write_bytes(b"not parquet" * 10)
    with pytest.raises(ocgraph.FormatError, match=re.escape("vertices/data.parquet")):
        osp.import_parquet(vertices, tmp_path / "vertices_back")
    no_vertices, _ = dataset("no_vertices")
    shutil.rmtree(no_vertices / "vertices")
    with pytest.raises(ocgraph.FormatError, match=re.escape("no_vertices/vertices: missing")):
        osp.import_parquet(no_vertices, tmp_path / "no_vertices_back")
    # An arc past the vertex count is the dataset's fault (it was an InputError naming neither).
    outside, files = dataset("outside")
    t = pq.ParquetFile(files[1]).read()
    pq.write_table(t.set_column(1, "dst", pa.array([99] * t.num_rows, t.column("dst").type)), files[1])

    # SparkGraph took it, and its kernels dropped the arcs (PageRank summing to 0.27) or failed
    # with an IndexError: it is refused from the footers' statistics, or (a file written
    # without statistics) by reading the ids; so are a negative and a null id.
    def changed(name, column, values, **write):
        path, files = dataset(name)
        t = pq.ParquetFile(files[1]).read()
        i = t.schema.get_field_index(column)
        pq.write_table(t.set_column(i, column, pa.array(values, t.column(column).type)), files[1], **write)
        return path

    for path, what in [
        (outside, "part=00001/data.parquet: column 'dst' holds the id 99, outside the vertices 0..3"),
        (changed("no_stats", "dst", [99, 0], write_statistics=False), "column 'dst' holds the id 99"),
        (changed("negative", "src", [-1, 3]), "column 'src' holds the id -1, outside"),
        (changed("null", "dst", [None, 0]), "column 'dst' holds 1 null ids"),
        (changed("null_no_stats", "src", [None, 3], write_statistics=False), "column 'src' holds 1 null"),
    ]:
        with pytest.raises(ocgraph.FormatError, match=re.escape(what)):
            osp.SparkGraph(spark, path)
        with pytest.raises(ocgraph.FormatError, match=re.escape(what)):
            osp.import_parquet(path, tmp_path / f"{path.name}_back")


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
    assert back._keeps_ids() == g._keeps_ids()
    assert list(back.original_ids()) == list(g.original_ids())
    assert back.to_pandas().equals(g.to_pandas())


def test_parquet_round_trip_keeps_integer_ids_past_2_63(tmp_path):
    ids = np.array([2**64 - 1, 2**63, 5, 2**63 + 7], dtype=np.uint64)
    df = pd.DataFrame({"src": ids[[0, 1, 2]], "dst": ids[[1, 2, 3]]})
    g = ocgraph.from_pandas(df, path=tmp_path / "g", relabel="sorted")
    osp.export_parquet(g, str(tmp_path / "d"), partitions=2)
    back = osp.import_parquet(str(tmp_path / "d"), tmp_path / "back")
    assert back.original_ids().tolist() == g.original_ids().tolist()
    assert back.vertex(2**64 - 1) == g.vertex(2**64 - 1)
    pd.testing.assert_series_equal(back.pagerank(as_series=True), g.pagerank(as_series=True))


def test_integer_ids_past_2_63_stay_positive_on_the_cluster(spark, tmp_path):
    ids = np.array([2**64 - 2, 1, 2**63], dtype=np.uint64)
    g = ocgraph.from_pandas(pd.DataFrame({"src": ids[:2], "dst": ids[1:]}), tmp_path / "g", relabel="sorted")
    osp.export_parquet(g, str(tmp_path / "d"), partitions=2)
    sg = osp.SparkGraph(spark, str(tmp_path / "d"), partitions=2)
    rows = sg.pagerank(collect=False).orderBy("id").collect()
    assert [int(r.original_id) for r in rows] == g.original_ids().tolist()
    assert sg.original_ids().tolist() == g.original_ids().tolist()
    # Ids below 2^63 keep Spark's long type.
    small = ocgraph.from_pandas(pd.DataFrame({"src": [7], "dst": [2**40]}), tmp_path / "s", relabel="sorted")
    osp.export_parquet(small, str(tmp_path / "ds"), partitions=1)
    df = osp.SparkGraph(spark, str(tmp_path / "ds"), partitions=1).wcc(collect=False)
    assert dict(df.dtypes)["original_id"] == "bigint"


@pytest.mark.parametrize("design", osp.DESIGNS)
def test_dataset_paths_are_not_patterns(spark, tmp_path, design, monkeypatch):
    # Spark's readers expand `[1]` as a pattern: `run[1].parquet` read its sibling `run1.parquet`.
    a = ocgraph.from_pandas(pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"]}), tmp_path / "a")
    b = ocgraph.from_pandas(pd.DataFrame({"src": ["p", "q", "r"], "dst": ["q", "p", "r"]}), tmp_path / "b")
    osp.export_parquet(a, str(tmp_path / "run[1].parquet"), partitions=2)
    osp.export_parquet(b, str(tmp_path / "run1.parquet"), partitions=2)
    sg = osp.SparkGraph(spark, str(tmp_path / "run[1].parquet"), partitions=2, design=design)
    np.testing.assert_array_equal(sg.wcc(), a.wcc())
    if design == "partitions" or SLOW:
        # The same edges again; on the DataFrame design these took most of the test's time.
        np.testing.assert_array_equal(sg.bfs(0), a.bfs(0))
        pd.testing.assert_series_equal(sg.pagerank(as_series=True), a.pagerank(as_series=True))
    rows = sg.wcc(collect=False).orderBy("id").collect()
    assert [r.original_id for r in rows] == ["a", "b", "c"]
    # Hadoop reads a relative `g-10:30.pq` as a URI of scheme `g-10`: it is made absolute.
    monkeypatch.chdir(tmp_path)
    osp.export_parquet(a, "g-10:30.pq", partitions=2)
    rows = osp.SparkGraph(spark, "g-10:30.pq", partitions=2, design=design).wcc(collect=False).collect()
    assert sorted(r.original_id for r in rows) == ["a", "b", "c"]


def test_command_line(spark, datasets, tmp_path, capsys, monkeypatch):
    from ocgraph.spark.__main__ import main

    g, path = datasets["string-ids"]
    assert main(["run", "wcc", path, "--partitions", "2", "--out", str(tmp_path / "wcc.npy")]) == 0
    assert f"{len(np.unique(g.wcc()))} components" in capsys.readouterr().out
    np.testing.assert_array_equal(np.load(tmp_path / "wcc.npy"), g.wcc())
    assert main(["export", g.path, str(tmp_path / "d"), "--partitions", "3"]) == 0
    assert main(["import", str(tmp_path / "d"), str(tmp_path / "back")]) == 0
    assert ocgraph.open(tmp_path / "back").num_edges == g.num_edges
    assert main(["run", "triangle-count", path]) == 0
    assert f"{g.triangle_count()} triangles" in capsys.readouterr().out
    assert main(["import", str(tmp_path / "nothing"), str(tmp_path / "x")]) == 1
    assert "not an ocgraph Parquet dataset" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "d"), str(tmp_path / "d" / "g")]) == 2
    assert "is the dataset" in capsys.readouterr().err and not (tmp_path / "d" / "g").exists()
    # The remedy for an existing target is the command's flag.
    assert main(["export", g.path, str(tmp_path / "d")]) == 1
    assert "exists (pass --force to replace it)" in capsys.readouterr().err
    # --out as `ocgraph run` takes it: `-` is standard output (the report goes to standard
    # error), a directory is refused before the run.
    assert main(["run", "bfs", path, "--partitions", "2", "--out", "-"]) == 0
    out, err = capsys.readouterr()
    assert [int(x) for x in out.split()] == g.bfs(0).tolist() and "supersteps" in err
    assert main(["run", "bfs", path, "--out", str(tmp_path)]) == 2
    assert f"--out {tmp_path}: is a directory" in capsys.readouterr().err

    # A failure inside Spark once it runs (such as a setting it takes at start and refuses when
    # a job runs): one line naming it, not a traceback.
    def fail(self, *args, **kwargs):
        raise RuntimeError("executor lost\nat org.apache.spark...")

    monkeypatch.setattr(osp.SparkGraph, "wcc", fail)
    assert main(["run", "wcc", path]) == 1
    assert capsys.readouterr().err == "error: Spark failed: executor lost\n"


def test_rows_of_a_part_in_any_order_give_the_same_results(spark, tmp_path):
    """A part's edge rows rewritten in another order (by a Spark job, say) are read by source;
    a source outside its part's vertex range is a FormatError naming the dataset."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    g = ocgraph.from_edges([0, 0, 1, 2, 3, 4], [1, 3, 2, 3, 4, 0], tmp_path / "g", num_vertices=6)
    osp.export_parquet(g, tmp_path / "d", partitions=2)
    for f in sorted((tmp_path / "d").glob("*edges/*/*.parquet")):
        t = pq.ParquetFile(f).read()
        pq.write_table(t.take(np.arange(len(t))[::-1]), f)
    for design in osp.DESIGNS:
        sg = osp.SparkGraph(spark, str(tmp_path / "d"), partitions=2, design=design)
        np.testing.assert_array_equal(sg.bfs(0), g.bfs(0))
        np.testing.assert_allclose(sg.pagerank(max_iter=5, tol=0), g.pagerank(max_iter=5, tol=0), rtol=1e-9)
    # Read as a partition's worker reads it.
    from ocgraph.spark import _dataset, _partitions

    f = sorted((tmp_path / "d").glob("edges/*/*.parquet"))[0]
    t = pq.ParquetFile(f).read()
    pq.write_table(t.set_column(0, "src", pa.array(np.full(len(t), 5, dtype=np.int64))), f)
    layout = _partitions.Layout(str(tmp_path / "d"), _dataset.read_meta(str(tmp_path / "d")), 2, [0, 1])
    with pytest.raises(ocgraph.FormatError, match=r"edges: src 5 lies outside its parts' vertex range 0\.\."):
        layout.arcs(0)
    # A target past the vertices (which SparkGraph refuses from the footers) as the worker sees it.
    f = sorted((tmp_path / "d").glob("edges/*/*.parquet"))[1]
    t = pq.ParquetFile(f).read()
    pq.write_table(t.set_column(1, "dst", pa.array(np.full(len(t), 6, dtype=np.int64))), f)
    with pytest.raises(ocgraph.FormatError, match=r"edges: dst 6 lies outside the vertices 0\.\.5"):
        layout.arcs(1)


def test_kernels_take_the_arguments_of_graphs_methods(spark, datasets):
    g, sg = _open(spark, datasets, "string-ids", "partitions")
    np.testing.assert_array_equal(sg.bfs(0, threads=2, layout="auto"), g.bfs(0, threads=2, layout="auto"))
    np.testing.assert_array_equal(sg.sssp(0, threads=1, layout="csr"), g.sssp(0, threads=1, layout="csr"))
    np.testing.assert_array_equal(sg.wcc(threads=2, layout="auto"), g.wcc(threads=2, layout="auto"))
    assert sg.triangle_count(threads=2) == g.triangle_count(threads=2)
    on_spark = sg.pagerank(threads=2, method="jacobi", as_series=True, layout="auto")
    local = g.pagerank(threads=2, method="jacobi", as_series=True, layout="auto")
    pd.testing.assert_series_equal(on_spark, local, rtol=1e-9)
    assert on_spark.index.tolist() == g.original_ids()
    # A Series is read by its index (the original ids), not by position.
    pers = pd.Series(np.arange(1.0, g.num_vertices + 1), index=g.original_ids()).iloc[::-1]
    np.testing.assert_allclose(sg.pagerank(personalization=pers), g.pagerank(personalization=pers), rtol=1e-9)
    with pytest.raises(ocgraph.InvalidArgumentError, match="jacobi"):
        sg.pagerank(method="gauss-seidel")
    # The layout checks that do not depend on a graph's stored layouts, with the same errors.
    _same_error(g.wcc, sg.wcc, layout="rows")
    _same_error(g.sssp, sg.sssp, 0, layout="hubs")
    _same_error(g.pagerank, sg.pagerank, layout="hubs")
    with pytest.raises(ocgraph.FormatError, match="export it first"):
        osp.SparkGraph(spark, g.path)


def _same_error(local, on_spark, *args, **kwargs):
    """``on_spark(*args, **kwargs)`` raises what ``local(...)`` (the single-machine API) raises:
    the same type and message."""
    with pytest.raises(Exception) as expected:
        local(*args, **kwargs)
    with pytest.raises(expected.type) as got:
        on_spark(*args, **kwargs)
    assert str(got.value) == str(expected.value)


def test_reexport_to_the_same_path(spark, tmp_path):
    # Same out-degrees (so the same part bounds), different arcs: one chain, then four pairs.
    a = ocgraph.from_edges(list(range(7)), list(range(1, 8)), tmp_path / "a", num_vertices=8)
    b = ocgraph.from_edges([0, 1, 2, 3, 4, 5, 6], [1, 0, 3, 2, 5, 4, 7], tmp_path / "b", num_vertices=8)
    path = str(tmp_path / "g.parquet")
    tokens = []
    for g in (a, b):
        meta = osp.export_parquet(g, path, partitions=2, overwrite=True)
        sg = osp.SparkGraph(spark, path, partitions=2)
        np.testing.assert_array_equal(sg.wcc(), g.wcc())
        np.testing.assert_array_equal(sg.bfs(0), g.bfs(0))
        tokens.append(meta.get("token"))
    assert tokens[0] != tokens[1]


def test_negative_weights(spark, design, tmp_path):
    # No negative cycle; the first negative arc in CSR order is 1 -> 2.
    g = ocgraph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], tmp_path / "g", weights=[1.0, -2.0, 3.0, -0.5])
    path = tmp_path / "g.parquet"
    meta = osp.export_parquet(g, str(path), partitions=2)
    sg = osp.SparkGraph(spark, str(path), partitions=2, design=design)
    _same_error(g.sssp, sg.sssp, 0)
    _same_error(g.pagerank, sg.pagerank)
    assert meta["negative_arc"] == [1, 2, -2.0]
    # A dataset whose metadata does not record the arc: found by reading the weights.
    meta = json.loads((path / "_ocgraph.json").read_text())
    del meta["negative_arc"]
    (path / "_ocgraph.json").write_text(json.dumps(meta))
    old = osp.SparkGraph(spark, str(path), partitions=2, design=design)
    _same_error(g.sssp, old.sssp, 3)
    _same_error(g.pagerank, old.pagerank)
    if design == "partitions":
        kw = dict(weight=False, max_iter=3, tol=0)
        np.testing.assert_allclose(sg.pagerank(**kw), g.pagerank(**kw), rtol=1e-9)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(damping=1.5),
        dict(damping=-0.5),
        dict(damping=float("nan")),
        dict(damping="0.5"),
        dict(tol=-1),
        dict(tol=float("nan")),
        dict(max_iter=-1),
        dict(max_iter=1.5),
        dict(personalization={0: -1.0}),
        dict(personalization={0: 0.0}),
    ],
)
def test_pagerank_arguments(spark, datasets, kwargs):
    g, sg = _open(spark, datasets, "random-directed", "partitions")
    _same_error(g.pagerank, sg.pagerank, **kwargs)


def test_vertex_and_partition_arguments(spark, datasets):
    g, sg = _open(spark, datasets, "random-directed", "partitions")
    for source in (1.5, "1", -1, g.num_vertices, True):
        _same_error(g.bfs, sg.bfs, source)
        _same_error(g.sssp, sg.sssp, source)
    # Flags are checked before a kernel runs (`parents` was checked after the whole BFS,
    # `as_series` not at all).
    for call in (
        lambda: sg.bfs(0, parents="x"),
        lambda: sg.wcc(collect="no"),
        lambda: sg.pagerank(as_series="yes"),
    ):
        with pytest.raises(TypeError, match="must be True or False"):
            call()
    for partitions in (0, -2):
        with pytest.raises(ocgraph.InvalidArgumentError, match=rf"partitions .* got {partitions}"):
            osp.SparkGraph(spark, sg.path, partitions=partitions)
    with pytest.raises(TypeError, match="float"):
        osp.SparkGraph(spark, sg.path, partitions=1.5)
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"partitions .* got 0"):
        osp.export_parquet(g, sg.path + "-x", partitions=0)


def test_empty_partitions(spark, tmp_path):
    # 3 vertices in 16 parts: parts 3 .. 15 are empty, and so is the second of 2 partitions.
    g = ocgraph.from_edges([], [], tmp_path / "edgeless", num_vertices=3)
    meta = osp.export_parquet(g, str(tmp_path / "edgeless.parquet"), partitions=16)
    sg = osp.SparkGraph(spark, str(tmp_path / "edgeless.parquet"), partitions=2)
    np.testing.assert_array_equal(sg.wcc(), g.wcc())
    np.testing.assert_array_equal(sg.bfs(1), g.bfs(1))
    np.testing.assert_array_equal(sg.sssp(2), g.sssp(2))
    np.testing.assert_allclose(sg.pagerank(), g.pagerank(), rtol=1e-12)
    assert sg.triangle_count() == 0
    assert meta["bounds"] == [0, 1, 2] + [3] * 14


def test_every_part_gets_a_vertex(spark, tmp_path):
    n = 20
    star = ocgraph.from_edges([0] * (n - 1), list(range(1, n)), tmp_path / "star", num_vertices=n)
    meta = osp.export_parquet(star, str(tmp_path / "star.parquet"), partitions=16)
    assert (np.diff(meta["bounds"]) >= 1).all()
    sg = osp.SparkGraph(spark, str(tmp_path / "star.parquet"), partitions=4)
    np.testing.assert_array_equal(sg.wcc(), star.wcc())


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_command_line_bad_settings(spark, datasets, capsys, monkeypatch):
    from ocgraph.spark import __main__ as cli

    path = datasets["string-ids"][1]
    assert cli.main(["run", "wcc", path, "--conf", "foo"]) == 2
    assert "--conf foo" in _error_line(capsys)
    for master in ("bogus://x", "local[0]"):
        assert cli.main(["run", "wcc", path, "--master", master]) == 2
        assert f"--master {master}" in _error_line(capsys)

    def fail(*args, **kwargs):
        raise RuntimeError("no master there\n  (details)")

    monkeypatch.setattr(cli, "session", fail)
    # The failure may come from any setting: each is named.
    assert cli.main(["run", "wcc", path, "--master", "spark://nowhere:7077", "--conf", "spark.x=1"]) == 2
    given = "--master spark://nowhere:7077, --driver-memory 2g, --conf spark.x=1"
    assert f"cannot start Spark with {given}: no master there" in _error_line(capsys)
    monkeypatch.undo()
    # The JVM would refuse this heap size at start.
    assert cli.main(["run", "wcc", path, "--driver-memory", "abc"]) == 2
    assert "--driver-memory abc: expected a size such as 2g" in _error_line(capsys)
    assert cli.main(["run", "wcc", path, "--partitions", "0"]) == 2
    assert "--partitions" in _error_line(capsys)


def test_command_line_parquet_target(tmp_path, capsys):
    from ocgraph.spark import __main__ as cli

    # --parquet: never the graph directory, inside it or above it, nor a directory of other files.
    small = ocgraph.from_edges([0, 1], [1, 2], tmp_path / "sub" / "g")
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    graph_dir = str(small.path)
    for target in (graph_dir, f"{graph_dir}/ds", str(tmp_path / "sub"), str(other)):
        assert cli.main(["run", "wcc", graph_dir, "--parquet", target]) == 2
        assert f"--parquet {target}" in _error_line(capsys)
    assert (other / "keep.txt").read_text() == "mine"
    assert ocgraph.open(graph_dir).num_edges == 2
    # --out: never inside the graph (it overwrote its manifest), nor in a missing directory;
    # export --force: the same rule as --parquet (it deleted any directory, the graph too).
    for out in (f"{graph_dir}/manifest", str(tmp_path / "missing" / "x.npy")):
        assert cli.main(["run", "wcc", graph_dir, "--out", out]) == 2
        assert f"--out {out}" in _error_line(capsys)
    for target in (graph_dir, str(other)):
        assert cli.main(["export", graph_dir, target, "--force"]) == 2
        assert f"out {target}" in _error_line(capsys)
    assert (other / "keep.txt").read_text() == "mine"
    assert ocgraph.open(graph_dir).num_edges == 2


def test_command_line_checks_kernel_options_before_spark_starts(tmp_path, capsys, monkeypatch):
    from ocgraph.spark import __main__ as cli

    def started(*args, **kwargs):
        raise AssertionError("Spark was started")

    monkeypatch.setattr(cli, "_start", started)
    graph_dir = str(ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").path)
    for args, needle in [
        (["bfs", "--source", "3"], "vertex 3 out of range (the graph has 3 vertices)"),
        (["sssp", "--source", "-1"], "vertex -1 out of range"),
        (["pagerank", "--damping", "1.5"], "damping must be in [0, 1], got 1.5"),
        (["pagerank", "--tol", "nan"], "tol must be non-negative and finite"),
        (["pagerank", "--max-iter", "-1"], "max_iter must be an integer from 0"),
    ]:
        assert cli.main(["run", args[0], graph_dir, *args[1:]]) == 2
        assert needle in _error_line(capsys)


def test_command_line_replaces_a_dataset_and_writes_text(spark, datasets, tmp_path, capsys):
    from ocgraph.spark.__main__ import main

    g, _ = datasets["random-directed"]
    ds = tmp_path / "ds"
    osp.export_parquet(datasets["string-ids"][0], str(ds), partitions=2)
    out = tmp_path / "res.txt"
    args = ["run", "sssp", str(g.path), "--parquet", str(ds), "--partitions", "2", "--out", str(out)]
    assert main([*args, "--source", str(_source(g))]) == 0
    assert osp.read_meta(str(ds))["num_vertices"] == g.num_vertices
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "res.txt"]
    expected = g.sssp(_source(g))
    assert out.read_text().splitlines() == [
        "inf" if np.isinf(x) else np.format_float_positional(x, unique=True, trim="-") for x in expected
    ]
    np.testing.assert_array_equal(np.loadtxt(out), expected)


def test_export_is_one_snapshot_and_a_failed_export_keeps_the_previous_dataset(tmp_path, monkeypatch):
    import threading

    from ocgraph.spark import _dataset

    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=3, directed=False).close()
    g = ocgraph.open(tmp_path / "g", writable=True)
    path = str(tmp_path / "d")
    osp.export_parquet(g, path)
    # Another thread adds vertices and edges while exports run: each export is one snapshot
    # (its vertex table, arcs and counts agree) and reads back as that snapshot's graph.
    stop = threading.Event()
    errors = []

    def updates():
        v = 3
        try:
            while not stop.is_set():
                g.add_edges([v - 1], [v], ids="original")  # vertex v is added with its edge
                v += 1
        except Exception as e:  # reported by the assertion below
            errors.append(e)

    t = threading.Thread(target=updates)
    t.start()
    try:
        for i in range(15):
            meta = osp.export_parquet(g, path, partitions=3, overwrite=True)
            back = osp.import_parquet(path, tmp_path / f"back{i}")
            n = meta["num_vertices"]
            assert (back.num_vertices, back.num_edges) == (n, meta["num_edges"])
            # A path 0 - 1 - ... - n-1: one edge fewer than vertices, every vertex named.
            assert meta["num_edges"] == n - 1 and list(back.original_ids()) == list(range(n))
            back.close()
    finally:
        stop.set()
        t.join()
    assert not errors and meta["num_vertices"] > 3, (errors, meta["num_vertices"])
    # An export that fails midway removes what it wrote and leaves the previous dataset.
    before = osp.export_parquet(g, path, overwrite=True)

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(_dataset, "_write_dataset", fail)
    # pyarrow's own error names no file: the one raised names the dataset.
    with pytest.raises(ocgraph.OcgraphIOError, match=f"{path}: write failed: disk full"):
        osp.export_parquet(g, path, overwrite=True)
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == sorted(x for x in os.listdir(tmp_path) if ".tmp-" not in x)
    assert json.load(open(os.path.join(path, "_ocgraph.json")))["token"] == before["token"]
    back = osp.import_parquet(path, tmp_path / "kept")
    assert back.num_edges == before["num_edges"]
    g.close()
