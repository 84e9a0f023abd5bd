"""pandas / Arrow / Parquet in and out: round trips on the real graphs of data/ (read with pandas
and scipy, not with ocgraph's parsers), results keyed by original id against networkx and scipy,
streaming in small batches, and the errors (nulls named by row)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.io
import scipy.sparse
import scipy.sparse.csgraph as csgraph

import ocgraph
from conftest import DATA

OCGRAPH_BIN = Path(
    os.environ.get("OCGRAPH_BIN", Path(__file__).resolve().parents[2] / "target" / "release" / "ocgraph")
)


@pytest.fixture(scope="module")
def astro_df():
    """ca-AstroPh as string ids ("a<id>"), both directions of each edge listed as in the file."""
    df = pd.read_csv(DATA / "ca-AstroPh.txt.gz", sep=r"\s+", comment="#", header=None, names=["src", "dst"])
    return pd.DataFrame({"src": "a" + df["src"].astype(str), "dst": "a" + df["dst"].astype(str)})


@pytest.fixture(scope="module")
def cnr_df():
    return pd.read_csv(DATA / "cnr-2000.el.gz", sep="\t", comment="#", header=None, names=["src", "dst"])


@pytest.fixture(scope="module")
def road_df():
    """road-usroads with its 1-based MatrixMarket ids and a weight column, each edge once."""
    m = scipy.io.mmread(DATA / "road-usroads.mtx.gz").tocoo()
    lower = m.row > m.col  # scipy gives both triangles of a symmetric file
    m = scipy.sparse.coo_matrix((m.data[lower], (m.row[lower], m.col[lower])), shape=m.shape)
    return pd.DataFrame({"src": m.row + 1, "dst": m.col + 1, "w": (m.row % 7 + 1).astype(np.float64)})


def undirected_edge_set(src, dst) -> set:
    return {(a, b) if a <= b else (b, a) for a, b in zip(src, dst)}


def test_pandas_round_trip_string_ids(tmp_path, astro_df):
    g = ocgraph.from_pandas(astro_df, tmp_path / "astro", directed=False, dedup=True)
    assert (g.num_vertices, g.num_edges) == (18772, 198110)
    ids = g.original_ids()
    assert isinstance(ids, list) and ids[0] == astro_df["src"].iloc[0]  # first seen is vertex 0
    out = g.to_pandas()
    assert list(out.columns) == ["src", "dst"]
    assert len(out) == 198110
    assert undirected_edge_set(out["src"], out["dst"]) == undirected_edge_set(
        astro_df["src"], astro_df["dst"]
    )


def test_pagerank_series_keyed_by_original_id_equals_networkx(tmp_path, astro_df):
    # Self-loops are left out: networkx counts an undirected self-loop twice in the degree.
    g = ocgraph.from_pandas(astro_df, tmp_path / "astro", directed=False, dedup=True, drop_self_loops=True)
    pr = g.pagerank(tol=1e-12, max_iter=500, as_series=True)
    assert isinstance(pr, pd.Series) and pr.index.name == "id"
    h = nx.from_pandas_edgelist(astro_df, "src", "dst")
    h.remove_edges_from(list(nx.selfloop_edges(h)))
    ref = pd.Series(nx.pagerank(h, tol=1e-12, max_iter=500))
    assert set(pr.index) == set(ref.index)
    np.testing.assert_allclose(pr.sort_index().to_numpy(), ref.sort_index().to_numpy(), rtol=1e-6, atol=1e-12)


def test_parquet_round_trip_directed(tmp_path, cnr_df):
    pq.write_table(
        pa.Table.from_pandas(cnr_df, preserve_index=False), tmp_path / "in.parquet", row_group_size=500_000
    )
    g = ocgraph.from_parquet(tmp_path / "in.parquet", tmp_path / "cnr")
    assert (g.num_vertices, g.num_edges) == (325557, 3216152)
    pq.write_table(g.to_arrow(), tmp_path / "out.parquet")
    back = pq.read_table(tmp_path / "out.parquet").to_pandas()
    a = back.sort_values(["src", "dst"]).to_numpy(dtype=np.int64)
    b = cnr_df.sort_values(["src", "dst"]).to_numpy(dtype=np.int64)
    np.testing.assert_array_equal(a, b)
    # Weakly connected components keyed by vertex agree with scipy's (label = smallest member).
    m = g.to_scipy()
    _, labels = csgraph.connected_components(m, directed=True, connection="weak")
    ours = g.wcc()
    assert len(np.unique(ours)) == len(np.unique(labels))
    pairs = pd.DataFrame({"ours": ours, "ref": labels}).drop_duplicates()
    assert len(pairs) == len(np.unique(labels))


def test_parquet_round_trip_weighted_sorted_relabel(tmp_path, road_df):
    pq.write_table(pa.Table.from_pandas(road_df, preserve_index=False), tmp_path / "road.parquet")
    g = ocgraph.from_parquet(
        tmp_path / "road.parquet", tmp_path / "road", weight="w", directed=False, relabel="sorted"
    )
    assert (g.num_vertices, g.num_edges) == (129164, 165435)
    np.testing.assert_array_equal(g.original_ids(), np.arange(1, 129165, dtype=np.uint64))
    pq.write_table(g.to_arrow(), tmp_path / "out.parquet")
    back = pq.read_table(tmp_path / "out.parquet").to_pandas()
    assert back["src"].dtype == np.uint64 and back["weight"].dtype == np.float32
    lo = np.minimum(road_df["src"], road_df["dst"])
    hi = np.maximum(road_df["src"], road_df["dst"])
    ref = pd.DataFrame({"src": lo, "dst": hi, "weight": road_df["w"]}).sort_values(["src", "dst"])
    got = back.sort_values(["src", "dst"])
    np.testing.assert_array_equal(
        got[["src", "dst"]].to_numpy(np.int64), ref[["src", "dst"]].to_numpy(np.int64)
    )
    np.testing.assert_array_equal(got["weight"].to_numpy(np.float64), ref["weight"].to_numpy())
    # Components keyed by original id equal networkx's.
    h = nx.from_pandas_edgelist(road_df, "src", "dst")
    comp = g.to_series(g.wcc())
    for c in nx.connected_components(h):
        labels = comp.loc[sorted(c)]
        assert labels.nunique() == 1
    assert comp.nunique() == nx.number_connected_components(h)
    # Weighted distances keyed by original id equal networkx's Dijkstra.
    nx.set_edge_attributes(h, {(a, b): w for a, b, w in road_df.itertuples(index=False)}, "weight")
    src_id = int(road_df["src"].iloc[0])
    dist = g.to_series(g.sssp(g.vertex(src_id)))
    ref_d = nx.single_source_dijkstra_path_length(h, src_id)
    reached = dist[np.isfinite(dist)]
    assert len(reached) == len(ref_d)
    np.testing.assert_allclose(reached.loc[list(ref_d)].to_numpy(), list(ref_d.values()))


def test_streaming_small_batches_and_budget(tmp_path, cnr_df):
    small = cnr_df.iloc[:200_000]
    table = pa.Table.from_pandas(small, preserve_index=False)
    one_shot = iter(table.to_batches(max_chunksize=7_001))  # a one-shot stream of batches
    g = ocgraph.from_arrow(one_shot, tmp_path / "s", memory="256KiB")
    ref = ocgraph.from_edges(small["src"], small["dst"], tmp_path / "r")
    np.testing.assert_array_equal(g.out_degrees(), ref.out_degrees())
    batches = list(g.iter_arrow_batches(batch_rows=10_000))
    assert len(batches) > 10
    assert all(b.num_rows < 40_000 for b in batches)
    t = pa.Table.from_batches(batches)
    assert t.num_rows == len(small)
    assert t.equals(g.to_arrow())
    with pytest.raises(ocgraph.InvalidArgumentError, match="twice"):
        ocgraph.from_arrow(iter(table.to_batches()), tmp_path / "x", relabel="sorted")


def test_first_seen_and_sorted_match_the_file_importer(tmp_path):
    text = "30 10\n10 20\n20 30\n40 10\n"
    (tmp_path / "e.txt").write_text(text)
    rows = [tuple(map(int, line.split())) for line in text.splitlines()]
    df = pd.DataFrame(rows, columns=["a", "b"])
    for relabel in ("first-seen", "sorted"):
        f = ocgraph.import_edges(tmp_path / "e.txt", tmp_path / f"f-{relabel}", relabel=relabel)
        p = ocgraph.from_pandas(df, tmp_path / f"p-{relabel}", source="a", target="b", relabel=relabel)
        np.testing.assert_array_equal(p.original_ids(), f.original_ids())
        np.testing.assert_array_equal(p.out_degrees(), f.out_degrees())


@pytest.mark.parametrize(
    "column",
    [
        pd.array([1, 2, 3, None, 5], dtype="Int64"),
        pd.array(["a", "b", "c", None, "e"], dtype="string"),
    ],
)
def test_nulls_refused_naming_the_row(tmp_path, column):
    df = pd.DataFrame({"src": column, "dst": column[::-1]})
    df["dst"] = column  # the null is in both columns at row 3; the source is checked first
    with pytest.raises(ocgraph.InputError, match=r"column 'src' \(source\) is null at row 3"):
        ocgraph.from_pandas(df, tmp_path / "g")
    assert not (tmp_path / "g").exists()
    # Read from a Parquet file, the error names the file too.
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp_path / "nulls.parquet")
    with pytest.raises(ocgraph.InputError, match=r"nulls\.parquet: column 'src' \(source\) is null at row 3"):
        ocgraph.from_parquet(tmp_path / "nulls.parquet", tmp_path / "g")


def test_empty_string_ids_refused_naming_the_row(tmp_path):
    # Text and CSV refuse an empty id; so do data frames, Arrow and Parquet (Python and CLI).
    df = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "", "a"]})
    with pytest.raises(ocgraph.InputError, match=r"column 'dst' \(target\) has an empty id at row 1"):
        ocgraph.from_pandas(df, tmp_path / "g")
    assert not (tmp_path / "g").exists()
    pq.write_table(pa.Table.from_pandas(df.astype("category"), preserve_index=False), tmp_path / "e.parquet")
    with pytest.raises(
        ocgraph.InputError, match=r"e\.parquet: column 'dst' \(target\) has an empty id at row 1"
    ):
        ocgraph.from_parquet(tmp_path / "e.parquet", tmp_path / "g")
    r = ocgraph_cli("import", tmp_path / "e.parquet", tmp_path / "g", ok=False)
    assert r.returncode == 1 and "e.parquet" in r.stderr and "row 1: column 'dst' has an empty id" in r.stderr
    assert not (tmp_path / "g").exists()


def test_null_in_a_later_batch_names_the_global_row(tmp_path):
    ok = pa.record_batch({"src": pa.array([0, 1, 2]), "dst": pa.array([1, 2, 0])})
    bad = pa.record_batch({"src": pa.array([3, 4]), "dst": pa.array([4, None], pa.int64())})
    with pytest.raises(ocgraph.InputError, match=r"column 'dst' \(target\) is null at row 4"):
        ocgraph.from_arrow([ok, bad], tmp_path / "g")


def test_input_errors(tmp_path):
    with pytest.raises(ocgraph.InputError, match="no column 'from'"):
        ocgraph.from_pandas(pd.DataFrame({"src": [0], "dst": [1]}), tmp_path / "a", source="from")
    with pytest.raises(ocgraph.InputError, match="negative id -1 at row 1"):
        ocgraph.from_pandas(pd.DataFrame({"src": [0, -1], "dst": [1, 2]}), tmp_path / "b")
    with pytest.raises(ocgraph.InputError, match="integers or strings"):
        ocgraph.from_pandas(pd.DataFrame({"src": [0.5], "dst": [1.0]}), tmp_path / "c")
    with pytest.raises(ocgraph.InputError, match="different id types"):
        ocgraph.from_pandas(pd.DataFrame({"src": ["x"], "dst": [1]}), tmp_path / "d")
    with pytest.raises(ocgraph.InputError, match="negative id -5 at row 0"):
        ocgraph.from_pandas(pd.DataFrame({"src": [-5], "dst": [1]}), tmp_path / "e", relabel="first-seen")


@pytest.mark.parametrize("relabel", [None, "first-seen", "sorted"])
def test_id_columns_of_different_integer_widths(tmp_path, relabel):
    t = pa.table({"src": pa.array([1, 2, 5], pa.int8()), "dst": pa.array([300, 2, 1], pa.int64())})
    g = ocgraph.from_arrow(t, tmp_path / "g", relabel=relabel)
    out = g.to_pandas()
    assert sorted(zip(out["src"], out["dst"])) == [(1, 300), (2, 2), (5, 1)]


def test_categorical_and_large_integer_ids(tmp_path):
    big = 2**40
    df = pd.DataFrame({"src": [big, big + 1, big + 2], "dst": [big + 1, big + 2, big]})
    g = ocgraph.from_pandas(df, tmp_path / "big", relabel="first-seen")
    out = g.to_pandas()
    assert sorted(zip(out["src"], out["dst"])) == sorted(zip(df["src"], df["dst"]))
    cat = pd.DataFrame({"src": pd.Categorical(["x", "y"]), "dst": pd.Categorical(["y", "z"])})
    h = ocgraph.from_pandas(cat, tmp_path / "cat")
    assert h.original_ids() == ["x", "y", "z"]
    assert h.to_series(h.bfs(0)).to_dict() == {"x": 0, "y": 1, "z": 2}


def test_empty_graph_to_arrow(tmp_path):
    g = ocgraph.from_edges(
        np.array([], dtype=np.int64), np.array([], dtype=np.int64), tmp_path / "e", num_vertices=3
    )
    t = g.to_arrow()
    assert t.num_rows == 0 and t.column_names == ["src", "dst"]


# ----- the CLI: `ocgraph import x.parquet`, CSV columns by name, `ocgraph export G x.parquet` ----------


def ocgraph_cli(*args, ok=True):
    """Runs the release CLI (built by `make test`); skips when it is not built."""
    if not OCGRAPH_BIN.exists():
        pytest.skip(f"{OCGRAPH_BIN} is not built (make cli)")
    r = subprocess.run([str(OCGRAPH_BIN), *map(str, args)], capture_output=True, text=True)
    assert (r.returncode == 0) == ok, r.stderr
    return r


def test_cli_parquet_round_trip_string_ids_and_weights(tmp_path, road_df):
    df = pd.DataFrame({"a": "r" + road_df["src"].astype(str), "b": "r" + road_df["dst"].astype(str)})
    df["len"] = road_df["w"]
    pq.write_table(
        pa.Table.from_pandas(df, preserve_index=False), tmp_path / "in.parquet", row_group_size=50_000
    )
    ocgraph_cli("import", tmp_path / "in.parquet", tmp_path / "g", "--undirected", "--source-col", "a",
                "--target-col", "b", "--weight-col", "len", "--quiet")  # fmt: skip
    g = ocgraph.open(tmp_path / "g")
    assert (g.num_vertices, g.num_edges, g.weighted) == (129164, 165435, True)
    ocgraph_cli("export", tmp_path / "g", tmp_path / "out.parquet", "--original-ids")
    back = pq.read_table(tmp_path / "out.parquet").to_pandas()
    assert list(back.columns) == ["src", "dst", "weight"]
    got = {(min(a, b), max(a, b)): w for a, b, w in back.itertuples(index=False)}
    ref = {(min(a, b), max(a, b)): w for a, b, w in df.itertuples(index=False)}
    assert got == ref


def test_cli_text_floats_read_back_exactly_with_pandas_default_parser(tmp_path):
    # Tiny and huge float32 weights in the CLI's CSV export, and the distances they sum to in
    # `run --out` text: pandas' default (approximate) parser reads the weights back exactly and
    # the float64 distances to within 1e-15, which plain decimals of 40-odd digits defeat (it
    # read float32's smallest weight as 0); its round-trip parser reads both exactly.
    w = np.array([np.float32(1e-45), np.float32(3.4028235e38), 0.5, 2.5e-7, 1e17], dtype=np.float32)
    src, dst = np.arange(5), np.arange(1, 6)
    ocgraph.from_edges(src, dst, tmp_path / "g", weights=w, num_vertices=6).close()
    ocgraph_cli("export", tmp_path / "g", tmp_path / "e.csv")
    back = pd.read_csv(tmp_path / "e.csv")
    assert back["weight"].astype(np.float32).tolist() == w.tolist()
    ocgraph_cli("run", "sssp", tmp_path / "g", "--source", 0, "--out", tmp_path / "d.txt")
    expected = ocgraph.open(tmp_path / "g").sssp(0)
    assert expected[1] == np.float64(np.float32(1e-45))
    dist = pd.read_csv(tmp_path / "d.txt", header=None)[0].to_numpy()
    np.testing.assert_allclose(dist, expected, rtol=1e-15)
    exact = pd.read_csv(tmp_path / "d.txt", header=None, float_precision="round_trip")[0]
    assert exact.tolist() == expected.tolist()


def test_arrow_id_types_follow_whether_the_graph_keeps_its_ids(tmp_path):
    """A relabelled graph gives its input ids as uint64, as documented, also when they happen
    to be 0..n-1 (they came out as uint32 vertex ids then); a graph keeping no ids gives
    uint32 vertex ids."""
    (tmp_path / "e.txt").write_text("0 1\n1 2\n2 0\n")
    kept = ocgraph.import_edges(tmp_path / "e.txt", tmp_path / "kept", relabel="first-seen")
    plain = ocgraph.import_edges(tmp_path / "e.txt", tmp_path / "plain")
    for g, t in [(kept, pa.uint64()), (plain, pa.uint32())]:
        table = g.to_arrow()
        assert table.schema.field("src").type == t and table.schema.field("dst").type == t
        assert sorted(zip(*(table.column(c).to_pylist() for c in ("src", "dst")))) == [(0, 1), (1, 2), (2, 0)]
        assert g.to_arrow(original_ids=False).schema.field("src").type == pa.uint32()
        assert g.to_pandas()["src"].dtype == t.to_pandas_dtype()


def test_cli_parquet_integer_ids_and_nulls(tmp_path, cnr_df):
    pq.write_table(pa.Table.from_pandas(cnr_df, preserve_index=False), tmp_path / "in.parquet")
    ocgraph_cli("import", tmp_path / "in.parquet", tmp_path / "g", "--quiet")
    ocgraph_cli("export", tmp_path / "g", tmp_path / "out.parquet")
    back = pq.read_table(tmp_path / "out.parquet")
    assert back.schema.field("src").type == pa.uint32()
    np.testing.assert_array_equal(back.column("src").to_numpy(), cnr_df["src"].to_numpy())
    np.testing.assert_array_equal(back.column("dst").to_numpy(), cnr_df["dst"].to_numpy())
    bad = pa.table({"src": pa.array([0, 1, 2, 3]), "dst": pa.array([1, 2, None, 0], pa.int64())})
    pq.write_table(bad, tmp_path / "bad.parquet")
    r = ocgraph_cli("import", tmp_path / "bad.parquet", tmp_path / "b", ok=False)
    assert "row 2: column 'dst' is null" in r.stderr and "bad.parquet" in r.stderr
    assert not (tmp_path / "b").exists()
    r = ocgraph_cli("import", tmp_path / "in.parquet", tmp_path / "c", "--source-col", "from", ok=False)
    assert "no column 'from' (columns: src, dst)" in r.stderr


def test_cli_parquet_categorical_ids_and_integer_weights(tmp_path):
    # pandas writes a categorical as a dictionary column; weights of any integer type are numbers.
    df = pd.DataFrame({"src": ["x", "y", "z", "x"], "dst": ["y", "z", "x", "z"]}).astype("category")
    for dtype in ("int8", "uint32", "int16", "uint64"):
        df["w"] = np.array([3, 1, 2, 5], dtype=dtype)
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp_path / f"{dtype}.parquet")
        ocgraph_cli("import", tmp_path / f"{dtype}.parquet", tmp_path / dtype, "--weight-col", "w", "--quiet")
        out = ocgraph.open(tmp_path / dtype).to_pandas(original_ids=True)
        got = sorted(zip(out["src"], out["dst"], out["weight"]))
        assert got == sorted(zip(df["src"], df["dst"], df["w"].astype(float))), dtype
    for bad, shown in ((np.inf, "inf"), (np.nan, "NaN"), (1e39, "1e39"), (1e-50, "1e-50")):
        t = pa.table({"src": [0, 1, 2], "dst": [1, 2, 0], "w": pa.array([1.0, bad, 2.0], pa.float64())})
        pq.write_table(t, tmp_path / "bad.parquet")
        r = ocgraph_cli("import", tmp_path / "bad.parquet", tmp_path / "b", "--weight-col", "w", ok=False)
        assert r.returncode == 1, r.stderr
        assert "bad.parquet" in r.stderr and f"row 1: column 'w' has the weight {shown}" in r.stderr, r.stderr
        assert not (tmp_path / "b").exists()


def test_cli_parquet_columns_by_name_any_order_codec_and_dictionary(tmp_path):
    """The CLI reads Parquet columns by name whatever their order in the file (it read them by
    position), compressed with any common codec, with dictionary-encoded integer ids; a column
    named for two roles is refused."""
    edges = [(5, 6, 7.0), (6, 8, 8.0), (8, 5, 9.0)]
    want = sorted(edges)
    src = pa.array([e[0] for e in edges], pa.int64())
    dst = pa.array([e[1] for e in edges], pa.int64())
    w = pa.array([e[2] for e in edges], pa.float32())
    cases = {
        "reordered": (pa.table({"w": w, "dst": dst, "src": src}), "none"),
        "zstd": (pa.table({"src": src, "dst": dst, "w": w}), "zstd"),
        "gzip": (pa.table({"src": src, "dst": dst, "w": w}), "gzip"),
        "lz4": (pa.table({"src": src, "dst": dst, "w": w}), "lz4"),
        "brotli": (pa.table({"src": src, "dst": dst, "w": w}), "brotli"),
        "dictionary": (
            pa.table({"src": src.dictionary_encode(), "dst": dst.dictionary_encode(), "w": w}),
            "snappy",
        ),
    }
    for name, (table, codec) in cases.items():
        pq.write_table(table, tmp_path / f"{name}.parquet", compression=codec)
        ocgraph_cli(
            "import",
            tmp_path / f"{name}.parquet",
            tmp_path / name,
            "--weight-col",
            "w",
            "--relabel",
            "--quiet",
        )
        out = ocgraph.open(tmp_path / name).to_pandas(original_ids=True)
        assert sorted(zip(out["src"], out["dst"], out["weight"])) == want, name
    r = ocgraph_cli(
        "import",
        tmp_path / "zstd.parquet",
        tmp_path / "twice",
        "--source-col",
        "src",
        "--target-col",
        "src",
        ok=False,
    )
    assert r.returncode == 2 and "column 'src' is named for two" in r.stderr, r.stderr
    assert not (tmp_path / "twice").exists()


def test_cli_text_export_refuses_ids_with_commas(tmp_path):
    (tmp_path / "c.csv").write_text('a,b\n"x,y",z\n')
    ocgraph_cli("import", tmp_path / "c.csv", tmp_path / "g", "--quiet")
    r = ocgraph_cli("export", tmp_path / "g", tmp_path / "out.txt", "--original-ids", ok=False)
    assert 'original id "x,y"' in r.stderr and "whitespace, a comma" in r.stderr
    assert not (tmp_path / "out.txt").exists()
    ocgraph_cli("export", tmp_path / "g", tmp_path / "out.parquet", "--original-ids")
    back = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert back == [{"src": "x,y", "dst": "z"}]


def test_cli_text_export_refuses_ids_with_a_nul_byte(tmp_path):
    """Text and CSV readers refuse a NUL byte, so an export never writes one."""
    df = pd.DataFrame({"src": ["a", "c\x00z"], "dst": ["b", "d"]})
    ocgraph.from_pandas(df, tmp_path / "g").close()
    for out in ("out.txt", "out.csv"):
        r = ocgraph_cli("export", tmp_path / "g", tmp_path / out, "--original-ids", ok=False)
        assert r.returncode == 2 and "NUL byte" in r.stderr and "vertex 2" in r.stderr, r.stderr
        assert not (tmp_path / out).exists()
    ocgraph_cli("export", tmp_path / "g", tmp_path / "out.parquet", "--original-ids")
    back = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert sorted(back, key=str) == sorted(df.to_dict("records"), key=str)


def test_negative_ids_are_named_with_a_sorted_relabel_of_unsigned_columns(tmp_path):
    t = pa.table({"src": pa.array([0, 2**64 - 1], pa.uint64()), "dst": pa.array([5, -1], pa.int8())})
    for relabel in ("first-seen", "sorted"):
        with pytest.raises(ocgraph.InputError, match="column 'dst' has the negative id -1 at row 1"):
            ocgraph.from_arrow(t, tmp_path / relabel, relabel=relabel)


def test_cli_csv_columns_by_header_name(tmp_path, astro_df):
    df = astro_df.rename(columns={"src": "author", "dst": "coauthor"})
    df.insert(0, "paper", np.arange(len(df)))
    df.to_csv(tmp_path / "e.csv", index=False)
    ocgraph_cli("import", tmp_path / "e.csv", tmp_path / "g", "--undirected", "--dedup",
                "--source-col", "author", "--target-col", "coauthor", "--quiet")  # fmt: skip
    g = ocgraph.open(tmp_path / "g")
    assert (g.num_vertices, g.num_edges) == (18772, 198110)
    out = g.to_pandas()
    assert undirected_edge_set(out["src"], out["dst"]) == undirected_edge_set(df["author"], df["coauthor"])
    r = ocgraph_cli("import", tmp_path / "e.csv", tmp_path / "h", "--source-col", "writer", ok=False)
    assert "e.csv:1: no column 'writer' in the header (columns: paper, author, coauthor" in r.stderr


def test_integer_column_labels_are_labels_not_positions(tmp_path):
    # A frame read without a header has integer column labels: they name columns, in any order.
    df = pd.DataFrame({0: [0, 1, 2], 1: [10, 11, 12], 2: ["x", "y", "z"], 3: [0.5, 0.25, 2.0]})
    g = ocgraph.from_pandas(df, tmp_path / "g", source=1, target=0, weight=3)
    out = g.to_pandas()
    assert list(zip(out["src"], out["dst"], out["weight"])) == list(zip(df[1], df[0], df[3]))
    with pytest.raises(ocgraph.InputError, match=r"column '2' \(weight\) must hold numbers"):
        ocgraph.from_pandas(df, tmp_path / "h", source=0, target=1, weight=2)
    for kw in (dict(source=0, target=0), dict(source=0, target=1, weight=1)):
        with pytest.raises(ocgraph.InvalidArgumentError, match="must be different columns"):
            ocgraph.from_pandas(df, tmp_path / "i", **kw)


def test_sparse_ids_are_refused_unless_asked_as_by_from_edges(tmp_path):
    df = pd.DataFrame({"src": [0, 1], "dst": [5_000_000, 2]})
    table = pa.Table.from_pandas(df)
    pq.write_table(table, tmp_path / "e.parquet")
    builds = {
        "pandas": lambda out, **kw: ocgraph.from_pandas(df, out, **kw),
        "arrow": lambda out, **kw: ocgraph.from_arrow(table, out, **kw),
        "parquet": lambda out, **kw: ocgraph.from_parquet(tmp_path / "e.parquet", out, **kw),
    }
    with pytest.raises(ocgraph.InputError) as e:
        ocgraph.from_edges(df["src"], df["dst"], tmp_path / "edges")
    for name, build in builds.items():
        with pytest.raises(ocgraph.InputError) as got:
            build(tmp_path / name)
        # The same threshold and wording; from_parquet names its file first.
        prefix = f"{tmp_path / 'e.parquet'}: " if name == "parquet" else ""
        assert str(got.value) == prefix + str(e.value)
        assert not (tmp_path / name).exists()
    g = builds["pandas"](tmp_path / "sparse", allow_sparse_ids=True)
    assert g.num_vertices == 5_000_001 and g.neighbors(0).tolist() == [5_000_000]
    g = builds["parquet"](tmp_path / "n", num_vertices=5_000_002)
    assert g.num_vertices == 5_000_002 and g.neighbors(1).tolist() == [2]
    with pytest.raises(
        ocgraph.InputError, match="column 'dst' has the id 5000000 at row 0, not below num_vertices 10"
    ):
        builds["arrow"](tmp_path / "small", num_vertices=10)
    with pytest.raises(ocgraph.InvalidArgumentError, match="num_vertices"):
        builds["arrow"](tmp_path / "relabelled", num_vertices=10, relabel="first-seen")
    assert builds["arrow"](tmp_path / "r", relabel="first-seen").num_vertices == 4


def test_import_edges_reads_parquet(tmp_path):
    src = ["B", "a", "é", "Z", "10", "9"]
    dst = ["a", "é", "Z", "10", "9", "B"]
    w = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    pq.write_table(pa.table({"src": src, "dst": dst, "weight": w}), tmp_path / "e.parquet")
    g = ocgraph.import_edges(tmp_path / "e.parquet", tmp_path / "g", relabel="sorted", weighted=True)
    assert g.original_ids() == sorted(set(src))
    out = g.to_pandas()
    assert sorted(zip(out["src"], out["dst"], out["weight"])) == sorted(zip(src, dst, w))
    ints = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0]})
    pq.write_table(pa.Table.from_pandas(ints), tmp_path / "i.bin")
    h = ocgraph.import_edges(tmp_path / "i.bin", tmp_path / "h", format="parquet", undirected=True)
    assert not h.directed and h.to_networkx().edges == nx.Graph(list(zip(ints["src"], ints["dst"]))).edges
    # A Parquet file without an extension (Spark's part files) is found by its magic bytes.
    k = ocgraph.import_edges(tmp_path / "i.bin", tmp_path / "k")
    assert k.to_networkx().edges == nx.DiGraph(list(zip(ints["src"], ints["dst"]))).edges
    with pytest.raises(ocgraph.InvalidArgumentError, match="set_labels"):
        ocgraph.import_edges(tmp_path / "e.parquet", tmp_path / "l", labels=tmp_path / "labels.txt")
    (tmp_path / "text.parquet").write_text("0 1\n")
    with pytest.raises(ocgraph.InputError, match="not a Parquet file"):
        ocgraph.import_edges(tmp_path / "text.parquet", tmp_path / "t")
    with pytest.raises(ocgraph.OcgraphIOError):
        ocgraph.import_edges(tmp_path / "missing.parquet", tmp_path / "m")
    # Parquet's magic at both ends around a footer that does not decode: the file's content.
    good = (tmp_path / "i.bin").read_bytes()
    (tmp_path / "footer.parquet").write_bytes(good[:4] + b"\0" * 64 + good[-8:-4] + b"PAR1")
    for build in (ocgraph.import_edges, ocgraph.from_parquet):
        with pytest.raises(ocgraph.InputError, match=r"footer\.parquet: not a Parquet file"):
            build(tmp_path / "footer.parquet", tmp_path / "f")
        assert not (tmp_path / "f").exists()


def test_one_column_named_for_two_roles_is_refused_by_every_builder(tmp_path):
    # Built silently from the wrong data otherwise: self-loops, or ids read as weights.
    table = pa.table({"src": [0, 1, 2], "dst": [1, 2, 0]})
    pq.write_table(table, tmp_path / "e.parquet")
    builds = {
        "arrow": lambda out, **kw: ocgraph.from_arrow(table, out, **kw),
        "pandas": lambda out, **kw: ocgraph.from_pandas(table.to_pandas(), out, **kw),
        "parquet": lambda out, **kw: ocgraph.from_parquet(tmp_path / "e.parquet", out, **kw),
    }
    for name, build in builds.items():
        for kw in (dict(target="src"), dict(weight="dst"), dict(weight="src")):
            with pytest.raises(ocgraph.InvalidArgumentError, match="must be different columns"):
                build(tmp_path / name, **kw)
            assert not (tmp_path / name).exists()


def test_damaged_or_empty_parquet_data_is_an_input_error_naming_the_file(tmp_path):
    # Damage past the footer shows only when the pages are read: a bad compressed page, a bad
    # encoding. Each damaged copy either builds (damage to values that still decode) or raises
    # InputError naming the file, never pyarrow's own OSError or ArrowInvalid.
    pq.write_table(pa.table({"src": np.arange(2000), "dst": np.arange(1, 2001)}), tmp_path / "e.parquet",
                   row_group_size=500, compression="snappy")  # fmt: skip
    good = (tmp_path / "e.parquet").read_bytes()
    footer = len(good) - 8 - int.from_bytes(good[-8:-4], "little")
    refused = 0
    for start in range(4, footer - 64, 97):
        bad = bytearray(good)
        for i in range(start, start + 64):
            bad[i] ^= 0x5A
        (tmp_path / "bad.parquet").write_bytes(bytes(bad))
        try:
            ocgraph.from_parquet(tmp_path / "bad.parquet", tmp_path / "g", overwrite=True)
        except ocgraph.InputError as e:
            assert str(e).startswith(f"{tmp_path / 'bad.parquet'}: ")
            refused += 1
    assert refused > 0
    pq.write_table(
        pa.table({"src": pa.array([], pa.int64()), "dst": pa.array([], pa.int64())}), tmp_path / "0.pq"
    )
    with pytest.raises(ocgraph.InputError, match=r"0\.pq: no edges"):
        ocgraph.from_parquet(tmp_path / "0.pq", tmp_path / "z")
    assert ocgraph.from_parquet(tmp_path / "0.pq", tmp_path / "z", num_vertices=3).num_vertices == 3


def test_a_parquet_column_named_twice_is_refused_by_both_importers(tmp_path):
    # Which of two columns called "src" holds the sources cannot be told: the CLI took the first.
    cols = [pa.array([0, 1]), pa.array([1, 2]), pa.array([5, 6])]
    pq.write_table(pa.Table.from_arrays(cols, names=["src", "dst", "src"]), tmp_path / "dup.parquet")
    with pytest.raises(ocgraph.InputError, match=r"dup\.parquet: 2 columns are named 'src'"):
        ocgraph.from_parquet(tmp_path / "dup.parquet", tmp_path / "g")
    assert not (tmp_path / "g").exists()
    r = ocgraph_cli("import", tmp_path / "dup.parquet", tmp_path / "h", "--quiet", ok=False)
    assert r.returncode == 1 and "dup.parquet: 2 columns are named 'src'" in r.stderr, r.stderr
    assert not (tmp_path / "h").exists()
    # A repeated column that is not read is no ambiguity.
    cols.append(pa.array([7, 8]))
    pq.write_table(pa.Table.from_arrays(cols, names=["src", "dst", "x", "x"]), tmp_path / "x.parquet")
    assert ocgraph.from_parquet(tmp_path / "x.parquet", tmp_path / "g").num_edges == 2
    ocgraph_cli("import", tmp_path / "x.parquet", tmp_path / "h", "--quiet")


def test_from_arrow_refuses_what_is_not_arrow_data(tmp_path):
    df = pd.DataFrame({"src": [0], "dst": [1]})
    with pytest.raises(ocgraph.InvalidArgumentError, match=r"pandas DataFrame.*from_pandas"):
        ocgraph.from_arrow(df, tmp_path / "a")
    for path in ("edges.parquet", tmp_path / "edges.parquet"):
        with pytest.raises(ocgraph.InvalidArgumentError, match=r"a path.*from_parquet"):
            ocgraph.from_arrow(path, tmp_path / "b")
    # An iterable holding something other than batches or tables names what it holds.
    for items in ([{"src": 0, "dst": 1}], iter([3])):
        with pytest.raises(ocgraph.InvalidArgumentError, match=r"item 0 of data is a (dict|int)"):
            ocgraph.from_arrow(items, tmp_path / "c")
        assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("relabel", [None, "first-seen"])
def test_from_arrow_reads_an_iterable_of_tables(tmp_path, relabel):
    t1 = pa.table({"src": [10, 11], "dst": [11, 12]})
    t2 = pa.concat_tables([pa.table({"src": [12], "dst": [10]}), pa.table({"src": [13], "dst": [10]})])
    g = ocgraph.from_arrow([t1, t2], tmp_path / "g", relabel=relabel)
    want = nx.DiGraph([(10, 11), (11, 12), (12, 10), (13, 10)])
    got = g.to_pandas()
    assert sorted(zip(got["src"], got["dst"])) == sorted(want.edges)
    depth = g.to_series(g.bfs(g.vertex(13)))
    assert {v: depth[v] for v in want} == nx.single_source_shortest_path_length(want, 13)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 1e300, 1e-50])
def test_a_bad_weight_in_a_later_batch_names_the_column_and_row(tmp_path, bad):
    b1 = pa.record_batch({"src": [0, 1, 2], "dst": [1, 2, 0], "w": [1.0, 2.0, 3.0]})
    b2 = pa.record_batch({"src": [3, 4, 5], "dst": [4, 5, 3], "w": [1.0, 2.0, bad]})
    with pytest.raises(ocgraph.InputError, match=r"column 'w' \(weight\) is .* at row 5: not a finite"):
        ocgraph.from_arrow([b1, b2], tmp_path / "g", weight="w")
    assert not (tmp_path / "g").exists()


def test_an_export_reads_one_snapshot_while_the_graph_changes(tmp_path):
    """iter_arrow_batches reads every slice, the degrees and the ids from the snapshot of its
    start: batches committed meanwhile (here between two slices) are not in it (it mixed
    states, and an id added meanwhile raised an ArrowIndexError)."""
    t = pa.table({"src": ["a", "b", "c"], "dst": ["b", "c", "a"]})
    ocgraph.from_arrow(t, tmp_path / "g").close()
    with ocgraph.open(tmp_path / "g", writable=True, durability="none") as g:
        before = sorted(zip(*(c.to_pylist() for c in g.to_arrow().columns)))
        batches = g.iter_arrow_batches(batch_rows=1)
        first = next(batches)
        g.add_edges(["c", "a"], ["new", "new"], ids="original")
        g.remove_edges(["b"], ["c"], ids="original")
        rest = list(batches)
        got = sorted(
            (s, d) for b in [first, *rest] for s, d in zip(b.column(0).to_pylist(), b.column(1).to_pylist())
        )
        assert got == before
        assert sorted(zip(*(c.to_pylist() for c in g.to_arrow().columns))) == sorted(
            [("a", "b"), ("c", "a"), ("c", "new"), ("a", "new")]
        )


def test_from_parquet_refuses_an_input_inside_the_graph_it_replaces(tmp_path):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g").close()
    pq.write_table(pa.table({"src": [0, 1, 2], "dst": [1, 2, 0]}), tmp_path / "g" / "e.parquet")
    with pytest.raises(ocgraph.InvalidArgumentError, match="inside the graph directory"):
        ocgraph.from_parquet(tmp_path / "g" / "e.parquet", tmp_path / "g", overwrite=True)
    assert (tmp_path / "g" / "e.parquet").exists()
    assert ocgraph.open(tmp_path / "g").num_edges == 2


def test_arrow_batches_are_never_empty(tmp_path):
    """A slice whose arcs are all second copies of undirected edges (or that has none) gave an
    empty batch; every batch holds rows now, and together they are the edge table."""
    g = ocgraph.from_edges([0, 0, 1, 5], [1, 2, 2, 6], tmp_path / "g", num_vertices=9, directed=False)
    batches = list(g.iter_arrow_batches(batch_rows=2, original_ids=False))
    assert all(b.num_rows > 0 for b in batches)
    rows = sorted((s, d) for b in batches for s, d in zip(b.column(0).to_pylist(), b.column(1).to_pylist()))
    assert rows == [(0, 1), (0, 2), (1, 2), (5, 6)]
    # Bad arguments are refused at the call, naming the argument (not at the first batch).
    with pytest.raises(ocgraph.InvalidArgumentError, match="batch_rows must be an integer from 1"):
        g.iter_arrow_batches(batch_rows=0)
    for bad in (1.5, None, True, "2"):
        with pytest.raises(TypeError, match=r"^batch_rows must be an integer, got"):
            g.iter_arrow_batches(batch_rows=bad)
    with pytest.raises(TypeError, match=r"^original_ids must be True or False"):
        g.iter_arrow_batches(original_ids="no")


def test_edges_gives_the_edge_list_in_each_format(tmp_path):
    df = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "a"], "w": [1.5, 2.0, 0.25]})
    g = ocgraph.from_pandas(df, weight="w", path=tmp_path / "g")
    want = sorted(df.itertuples(index=False, name=None))
    assert isinstance(g.edges(), pa.Table)
    assert sorted(g.edges().to_pandas().itertuples(index=False, name=None)) == want
    assert sorted(g.edges("pandas").itertuples(index=False, name=None)) == want
    batches = list(g.edges("batches", source="from"))
    assert sum(b.num_rows for b in batches) == 3 and batches[0].schema.names[0] == "from"
    dense = g.edges("pandas", original_ids=False)
    ids = g.original_ids()
    assert sorted((ids[u], ids[v]) for u, v in zip(dense["src"], dense["dst"])) == [
        (a, b) for a, b, _ in want
    ]
    with pytest.raises(ocgraph.InvalidArgumentError, match="format"):
        g.edges("csv")
    # Columns that would not read back by name are refused before any batch.
    for names in (dict(source="x", target="x"), dict(weight="src"), dict(source=None), dict(target="")):
        for fmt in ("arrow", "pandas", "batches"):
            with pytest.raises(ocgraph.InvalidArgumentError, match="distinct non-empty strings"):
                g.edges(fmt, **names)


def test_cli_parquet_export_has_the_types_of_to_arrow(tmp_path):
    (tmp_path / "e.txt").write_text("0 1\n1 2\n")
    ocgraph_cli("import", tmp_path / "e.txt", tmp_path / "k", "--quiet")
    (tmp_path / "s.txt").write_text("a b\nb c\n")
    ocgraph_cli("import", tmp_path / "s.txt", tmp_path / "s", "--quiet")
    for name in ("k", "s"):
        ocgraph_cli("export", tmp_path / name, tmp_path / f"{name}.parquet", "--original-ids")
        got = pq.read_table(tmp_path / f"{name}.parquet")
        with ocgraph.open(tmp_path / name) as g:
            want = g.to_arrow()
        assert got.schema.types == want.schema.types and got.to_pylist() == want.to_pylist(), name


def test_cli_parquet_import_numbers_ids_as_the_text_importer_does(tmp_path):
    # First-seen numbering goes edge by edge, source before target (it numbered the whole
    # source column of a batch first: a c b d), for string ids and relabelled integers.
    strs = {"src": ["a", "c", "a"], "dst": ["b", "d", "c"]}
    ints = {"src": [10, 30, 10], "dst": [20, 40, 30]}
    for name, cols, extra in (("s", strs, ()), ("i", ints, ("--relabel",))):
        pq.write_table(pa.table(cols), tmp_path / f"{name}.parquet")
        (tmp_path / f"{name}.txt").write_text("".join(f"{a} {b}\n" for a, b in zip(cols["src"], cols["dst"])))
        ocgraph_cli("import", tmp_path / f"{name}.parquet", tmp_path / f"{name}-pq", *extra, "--quiet")
        ocgraph_cli("import", tmp_path / f"{name}.txt", tmp_path / f"{name}-txt", *extra, "--quiet")
        from_parquet = ocgraph.open(tmp_path / f"{name}-pq")
        from_text = ocgraph.open(tmp_path / f"{name}-txt")
        assert list(from_parquet.original_ids()) == list(from_text.original_ids())
        assert list(from_parquet.original_ids())[:4] == [
            cols["src"][0],
            cols["dst"][0],
            cols["src"][1],
            cols["dst"][1],
        ]
        np.testing.assert_array_equal(from_parquet.out_degrees(), from_text.out_degrees())
    # --num-vertices applies to kept integer ids only (it was ignored with string ids).
    r = ocgraph_cli("import", tmp_path / "s.parquet", tmp_path / "n", "--num-vertices", "10", ok=False)
    assert "--num-vertices applies to integer ids" in r.stderr and not (tmp_path / "n").exists()
    # Extensionless Parquet (a Spark part file) is read as Parquet, not as text of its bytes.
    (tmp_path / "part-00000").write_bytes((tmp_path / "i.parquet").read_bytes())
    ocgraph_cli("import", tmp_path / "part-00000", tmp_path / "part", "--quiet")
    assert ocgraph.open(tmp_path / "part").num_edges == 3
    r = ocgraph_cli("import", tmp_path / "part-00000", tmp_path / "t", "--format", "text", ok=False)
    assert "NUL byte" in r.stderr


def test_cli_parquet_weights_of_half_floats_and_dictionaries(tmp_path):
    w = [0.5, 2.0, 1.5]
    for name, col in (
        ("f16", pa.array(np.array(w, dtype=np.float16))),
        ("dict", pa.array(w).dictionary_encode()),
    ):
        pq.write_table(pa.table({"src": [0, 1, 2], "dst": [1, 2, 0], "w": col}), tmp_path / f"{name}.parquet")
        ocgraph_cli("import", tmp_path / f"{name}.parquet", tmp_path / name, "--weight-col", "w", "--quiet")
        g = ocgraph.open(tmp_path / name)
        assert sorted(zip(*[g.to_pandas()[c] for c in ("src", "dst", "weight")])) == [
            (0, 1, 0.5),
            (1, 2, 2.0),
            (2, 0, 1.5),
        ]


def test_cli_text_export_refuses_a_first_line_that_reads_back_as_a_header(tmp_path):
    # Words, then integer-looking string ids: the text importer takes the first line for a
    # header. The export refuses it; CSV reads back.
    (tmp_path / "e.csv").write_text("src,dst\nann,bob\n1,2\n")
    ocgraph_cli("import", tmp_path / "e.csv", tmp_path / "g", "--quiet")
    r = ocgraph_cli("export", tmp_path / "g", tmp_path / "out.txt", "--original-ids", ok=False)
    assert "read the first line back as a header" in r.stderr and not (tmp_path / "out.txt").exists()
    ocgraph_cli("export", tmp_path / "g", tmp_path / "out.csv", "--original-ids")
    ocgraph_cli("import", tmp_path / "out.csv", tmp_path / "back", "--quiet")
    assert ocgraph.open(tmp_path / "back").original_ids() == ["ann", "bob", "1", "2"]
    # Words further down are fine: a line past the first is words.
    (tmp_path / "f.csv").write_text("src,dst\nann,bob\ncat,dan\n1,2\n")
    ocgraph_cli("import", tmp_path / "f.csv", tmp_path / "h", "--quiet")
    ocgraph_cli("export", tmp_path / "h", tmp_path / "h.txt", "--original-ids")
    ocgraph_cli("import", tmp_path / "h.txt", tmp_path / "h2", "--quiet")
    assert ocgraph.open(tmp_path / "h2").original_ids() == ["ann", "bob", "cat", "dan", "1", "2"]
    # A first line with one integer-looking id is an edge to the importer, not a header; and a
    # target may start with a comment mark (only a line's first byte makes it a comment).
    for name, text in (("one", "x 1\n007 1\n5 6\n"), ("mark", "x 1\n007 #y\n5 %z\n")):
        (tmp_path / f"{name}.txt").write_text(text)
        ocgraph_cli("import", tmp_path / f"{name}.txt", tmp_path / name, "--quiet")
        ocgraph_cli("export", tmp_path / name, tmp_path / f"{name}-out.txt", "--original-ids")
        assert (tmp_path / f"{name}-out.txt").read_text() == text
    ocgraph.from_pandas(pd.DataFrame({"src": ["#a"], "dst": ["b"]}), tmp_path / "lead")
    r = ocgraph_cli("export", tmp_path / "lead", tmp_path / "lead.txt", "--original-ids", ok=False)
    assert "comment mark first in a line" in r.stderr


def test_from_pandas_refuses_what_arrow_cannot_convert_as_input_errors(tmp_path):
    lone = pd.DataFrame({"src": ["a", "\ud800"], "dst": ["b", "c"]})
    with pytest.raises(ocgraph.InputError, match="rows 0 to 1"):
        ocgraph.from_pandas(lone, tmp_path / "g")
    sparse = pd.DataFrame({"src": pd.arrays.SparseArray([0, 1, 0]), "dst": [1, 2, 2]})
    with pytest.raises(ocgraph.InputError, match="rows 0 to 2"):
        ocgraph.from_pandas(sparse, tmp_path / "h")


def test_from_pandas_takes_pyarrow_backed_columns_of_several_chunks(tmp_path):
    """read_parquet(dtype_backend="pyarrow") of a file of several row groups gives columns of
    several chunks (they were refused: "Cannot convert ChunkedArray to Array")."""
    pq.write_table(
        pa.table({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0], "w": pa.array([0.5, 1.5, 2.5, 3.5], "float32")}),
        tmp_path / "e.parquet",
        row_group_size=2,
    )
    df = pd.read_parquet(tmp_path / "e.parquet", dtype_backend="pyarrow")
    assert df["src"].array._pa_array.num_chunks == 2
    g = ocgraph.from_pandas(df, tmp_path / "g", weight="w")
    got = g.to_pandas().sort_values("src").reset_index(drop=True)
    assert got.to_dict("list") == {"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0], "weight": [0.5, 1.5, 2.5, 3.5]}

    # String ids in dictionary chunks with different dictionaries.
    def chunks(*parts):
        encoded = [pa.array(p).dictionary_encode() for p in parts]
        return pd.arrays.ArrowExtensionArray(pa.chunked_array(encoded))

    frame = pd.DataFrame({"src": chunks(["x", "y"], ["z", "x"]), "dst": chunks(["y", "z"], ["x", "w"])})
    h = ocgraph.from_pandas(frame, tmp_path / "h", relabel="first-seen")
    rows = sorted(zip(*h.to_pandas().to_dict("list").values()))
    assert rows == [("x", "w"), ("x", "y"), ("y", "z"), ("z", "x")]


def test_cli_outputs_are_checked_before_the_work_and_written_whole(tmp_path):
    (tmp_path / "e.txt").write_text("0 1\n1 2\n")
    g = tmp_path / "g"
    ocgraph_cli("import", tmp_path / "e.txt", g, "--quiet")
    (tmp_path / "u.txt").write_text("+ 2 0\n")
    # A --json in a missing directory is refused before the stream applies its updates.
    r = ocgraph_cli(
        "stream", g, "--updates", tmp_path / "u.txt", "--json", tmp_path / "no" / "s.json", ok=False
    )
    assert r.returncode == 2 and "the directory" in r.stderr and str(tmp_path / "no") in r.stderr
    assert ocgraph.open(g).num_edges == 2
    for args in (
        ("export", g, tmp_path / "no" / "x.txt"),
        ("mine", "cliques", g, "--k", "3", "--list", "--out", tmp_path / "no" / "c.txt"),
        ("workload", "fof", g, "--count", "3", "--out", tmp_path / "no" / "w.txt"),
    ):
        r = ocgraph_cli(*args, ok=False)
        assert r.returncode == 2 and "does not exist" in r.stderr and ".tmp" not in r.stderr, r.stderr
    # Export formats by extension in any case (OUT.CSV was written as text).
    ocgraph_cli("export", g, tmp_path / "OUT.CSV")
    assert (tmp_path / "OUT.CSV").read_text().splitlines()[0] == "src,dst"
    # workload updates writes like the other outputs: through a link to its file, to "-".
    (tmp_path / "target.txt").write_text("old\n")
    (tmp_path / "link.txt").symlink_to(tmp_path / "target.txt")
    ocgraph_cli("workload", "updates", g, "--count", "3", "--out", tmp_path / "link.txt")
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "target.txt").read_text().count("\n") == 3
    r = ocgraph_cli("workload", "updates", g, "--count", "3", "--out", "-")
    assert [line.split()[0] for line in r.stdout.splitlines()] == ["+"] * 3 and "written to -" in r.stderr
    assert not (tmp_path / "-").exists()


def test_cli_csv_export_quotes_the_ids_csv_can_carry(tmp_path):
    (tmp_path / "q.csv").write_text('src,dst\n"Smith, J",bob\n"a b",bob\n" lead",x\n"q""uote",y\n#hash,z\n')
    ocgraph_cli("import", tmp_path / "q.csv", tmp_path / "g", "--quiet")
    ocgraph_cli("export", tmp_path / "g", tmp_path / "out.csv", "--original-ids")
    back = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(zip(back["src"], back["dst"])) == [
        ("Smith, J", "bob"),
        ("a b", "bob"),
        (" lead", "x"),
        ('q"uote', "y"),
        ("#hash", "z"),
    ]
    ocgraph_cli("import", tmp_path / "out.csv", tmp_path / "back", "--quiet")
    assert ocgraph.open(tmp_path / "back").original_ids() == ocgraph.open(tmp_path / "g").original_ids()
