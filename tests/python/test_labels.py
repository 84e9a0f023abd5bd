"""Vertex labels stored with a graph: imported from a label file over original ids, set from an
array, kept through reorder and compaction, and used by labelled patterns (checked against
networkx's ``GraphMatcher`` with a label ``node_match``) and by watches on a writable graph
(checked against the difference of static matches after every batch)."""

from __future__ import annotations

import re

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms import isomorphism
from test_mining import PATTERNS, key, nx_matches, simple_view

import ocgraph
from conftest import random_edges

LABELLED = [(PATTERNS[1], [0, 0, 1]), (PATTERNS[2], [0, 1, 0, 1]), (PATTERNS[3], [1, 0, 0, 1])]


def string_id_graph(tmp_path, rng, n=40, m=160):
    """A graph imported from a text edge list with string ids, and a label file naming most
    vertices by those ids: (edge file, label file, {string id: label})."""
    src, dst, _ = random_edges(rng, n, m)
    edges = tmp_path / "edges.txt"
    edges.write_text("".join(f"v{s} v{d}\n" for s, d in zip(src, dst)))
    want = {f"v{v}": int(rng.integers(0, 3)) for v in range(n) if v % 7 != 3}
    labels = tmp_path / "labels.txt"
    labels.write_text("# vertex label\n" + "".join(f"{v},{lab}\n" for v, lab in want.items()))
    return edges, labels, want


def expected(g: ocgraph.Graph, by_id: dict) -> np.ndarray:
    """The label array ``by_id`` (original id -> label) gives ``g``'s vertices."""
    return np.array([by_id.get(g.original_id(v), ocgraph.NO_LABEL) for v in range(g.num_vertices)], np.uint32)


def test_imported_labels_drive_labelled_patterns(tmp_path):
    rng = np.random.default_rng(7)
    edges, labels, by_id = string_id_graph(tmp_path, rng)
    g = ocgraph.import_edges(edges, tmp_path / "g", undirected=True, relabel="first-seen", labels=labels)
    with g:
        stored = g.vertex_labels()
        assert stored.dtype == np.uint32
        np.testing.assert_array_equal(stored, expected(g, by_id))
        h = simple_view(g)
        for pattern, pl in LABELLED:
            for induced in (False, True):
                want = nx_matches(h, pattern, induced, stored.astype(np.int64), pl)
                rows = g.match(pattern, induced=induced, pattern_labels=pl)
                assert {key(r, pattern) for r in rows.tolist()} == want
                assert g.count_matches(pattern, induced=induced, pattern_labels=pl) == len(want)


def test_a_label_series_lands_on_its_ids_or_is_refused_if_the_graph_is_replaced(tmp_path, monkeypatch):
    edges = tmp_path / "e.txt"
    edges.write_text("a b\nb c\nc d\n")
    ocgraph.import_edges(edges, tmp_path / "g", relabel="first-seen").close()
    pd = pytest.importorskip("pandas")
    series = pd.Series([1, 2, 3, 4], index=["a", "b", "c", "d"])

    def stored() -> dict:
        with ocgraph.open(tmp_path / "g") as g:
            labels = g.vertex_labels()
            return None if labels is None else {g.original_id(v): int(labels[v]) for v in range(4)}

    assert ocgraph.set_labels(tmp_path / "g", series) == 4
    assert stored() == {"a": 1, "b": 2, "c": 3, "d": 4}
    # Another process replaces the graph (same vertex count, another numbering) after the
    # Series was put in vertex order: the labels must not land on the new numbering.
    edges.write_text("d c\nc b\nb a\n")
    by_vertex = ocgraph.Graph._by_vertex

    def then_replaced(self, values, what):
        ordered = by_vertex(self, values, what)
        ocgraph.import_edges(edges, tmp_path / "g", relabel="first-seen", overwrite=True).close()
        return ordered

    monkeypatch.setattr(ocgraph.Graph, "_by_vertex", then_replaced)
    with pytest.raises(ocgraph.InvalidArgumentError, match="replaced"):
        ocgraph.set_labels(tmp_path / "g", pd.Series([5, 6, 7, 8], index=["a", "b", "c", "d"]))
    assert stored() is None


def test_reorder_and_pack_keep_each_vertex_label(tmp_path):
    rng = np.random.default_rng(8)
    edges, labels, by_id = string_id_graph(tmp_path, rng)
    ocgraph.import_edges(edges, tmp_path / "g", undirected=True, relabel="first-seen", labels=labels).close()
    with (
        ocgraph.reorder(tmp_path / "g", tmp_path / "r") as r,
        ocgraph.pack(tmp_path / "r", tmp_path / "p") as p,
    ):
        for g in (r, p):
            np.testing.assert_array_equal(g.vertex_labels(), expected(g, by_id))
        with ocgraph.open(tmp_path / "g") as g:
            for pattern, pl in LABELLED:
                assert r.count_matches(pattern, pattern_labels=pl) == g.count_matches(
                    pattern, pattern_labels=pl
                )


def test_set_and_remove_labels(tmp_path):
    rng = np.random.default_rng(9)
    src, dst, _ = random_edges(rng, 30, 90)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=30, directed=False).close()
    with ocgraph.open(tmp_path / "g") as g:
        assert g.vertex_labels() is None
    arr = rng.integers(0, 2, 30)
    assert ocgraph.set_labels(tmp_path / "g", arr) == 30
    with ocgraph.open(tmp_path / "g") as g:
        np.testing.assert_array_equal(g.vertex_labels(), arr)
        h = simple_view(g)
        want = nx_matches(h, PATTERNS[1], False, arr, [0, 0, 1])
        assert {key(r, PATTERNS[1]) for r in g.match(PATTERNS[1], pattern_labels=[0, 0, 1]).tolist()} == want
        # Labels given to the call take precedence over the stored ones.
        other = 1 - arr
        want = nx_matches(h, PATTERNS[1], False, other, [0, 0, 1])
        assert g.count_matches(PATTERNS[1], labels=other, pattern_labels=[0, 0, 1]) == len(want)
    labels = tmp_path / "l.txt"
    labels.write_text("% identity ids\n3 5\n4\t6\n")
    assert ocgraph.set_labels(tmp_path / "g", labels) == 2
    with ocgraph.open(tmp_path / "g") as g:
        got = g.vertex_labels()
        assert (got[3], got[4]) == (5, 6) and (np.delete(got, [3, 4]) == ocgraph.NO_LABEL).all()
    assert ocgraph.remove_labels(tmp_path / "g") and not ocgraph.remove_labels(tmp_path / "g")
    with ocgraph.open(tmp_path / "g") as g:
        assert g.vertex_labels() is None
        with pytest.raises(ocgraph.InvalidArgumentError, match="labelled"):
            g.count_matches(PATTERNS[1], pattern_labels=[0, 0, 1])


@pytest.mark.parametrize(
    "bad", [[1.5, 2.9, 0.7, 3.0], [1.0, 2.0, 0.0, 3.0], [True, False, True, False], list("abcd")]
)
def test_set_labels_refuses_labels_that_are_not_integers(tmp_path, bad):
    ocgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "g", num_vertices=4).close()
    ocgraph.set_labels(tmp_path / "g", [0, 1, 2, 0])
    with pytest.raises(ocgraph.InvalidArgumentError, match="labels must be integers, got dtype"):
        ocgraph.set_labels(tmp_path / "g", bad)
    with ocgraph.open(tmp_path / "g") as g:
        assert g.vertex_labels().tolist() == [0, 1, 2, 0]  # unchanged, not truncated


@pytest.mark.parametrize(
    "text,line,what",
    [
        ("0 1\n1\n", 2, "expected `vertex label`"),
        ("0 1\n99 2\n", 2, "not in the graph"),
        ("0 1\n\n0 2\n", 3, "labelled twice"),
        ("0 4294967295\n", 1, "not an integer below"),
        ("x 1\n", 1, "not an integer id"),
    ],
)
def test_bad_label_files_name_the_line(tmp_path, text, line, what):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=3).close()
    bad = tmp_path / "bad.txt"
    bad.write_text(text)
    with pytest.raises(ocgraph.InputError, match=rf"bad\.txt:{line}.*{re.escape(what)}"):
        ocgraph.set_labels(tmp_path / "g", bad)
    with pytest.raises(ocgraph.InputError, match=rf"bad\.txt:{line}"):
        ocgraph.import_edges(_edges(tmp_path), tmp_path / "i", labels=bad)
    assert not (tmp_path / "i").exists(), "a failed import leaves no graph"
    with pytest.raises(ocgraph.InvalidArgumentError, match="3 vertices"):
        ocgraph.set_labels(tmp_path / "g", [1, 2])


def _edges(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("0 1\n1 2\n")
    return path


def test_corrupted_labels_are_refused(tmp_path):
    ocgraph.from_edges([0, 1], [1, 2], tmp_path / "g", num_vertices=3).close()
    ocgraph.set_labels(tmp_path / "g", [1, 2, 3])
    f = tmp_path / "g" / "labels.u32"
    data = bytearray(f.read_bytes())
    data[4] ^= 0xFF
    f.write_bytes(bytes(data))
    damaged = r"labels\.u32: .*checksum mismatch.*`ocgraph labels remove`"
    with pytest.raises(ocgraph.FormatError, match=damaged):
        ocgraph.open(tmp_path / "g")
    # The way out the message gives: the graph opens without its labels.
    ocgraph.remove_labels(tmp_path / "g")
    with ocgraph.open(tmp_path / "g") as g:
        assert g.vertex_labels() is None


def test_watch_and_compaction_use_stored_labels(tmp_path):
    rng = np.random.default_rng(11)
    n = 30
    src, dst, _ = random_edges(rng, n, 110)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n, directed=False, dedup=True).close()
    labels = rng.integers(0, 2, n)
    ocgraph.set_labels(tmp_path / "g", labels)
    pattern, pl = LABELLED[0]
    with ocgraph.open(tmp_path / "g", writable=True, durability="none") as g:
        w = g.watch(pattern, pattern_labels=pl)

        def current() -> set:
            return {key(r, pattern) for r in g.match(pattern, pattern_labels=pl).tolist()}

        before = current()
        for step in range(10):
            if step == 4:
                g.add_vertices(3)  # unlabelled: no labelled pattern vertex matches them
            k = g.num_vertices
            s, d = rng.integers(0, k, 6), rng.integers(0, k, 6)
            (g.remove_edges if step % 3 == 2 else g.add_edges)(s, d)
            added, removed = w.changes()
            after = current()
            assert {key(r, pattern) for r in added.tolist()} == after - before
            assert {key(r, pattern) for r in removed.tolist()} == before - after
            before = after
        stored = g.vertex_labels()
        np.testing.assert_array_equal(stored, np.concatenate([labels, [ocgraph.NO_LABEL] * 3]))
        g.compact()
        np.testing.assert_array_equal(g.vertex_labels(), stored)
        assert current() == before


# Labelled patterns with wildcard vertices (None or -1).
WILDCARD = [
    (PATTERNS[1], [1, None, 2]),
    (PATTERNS[0], [None, 1, -1]),
    (PATTERNS[3], [None, 2, None, 1]),
]


def nx_positions(h, edges, induced: bool, labels, plabels) -> set:
    """Every match of the pattern (``None``/-1 labels: wildcards) by networkx's ``GraphMatcher``,
    as the data vertices in pattern-vertex order, the smallest such tuple over the pattern's
    label-preserving automorphisms (so one match has one key)."""
    p = ocgraph_pattern(edges, plabels)
    h = h.copy()
    for v in h:
        h.nodes[v]["l"] = int(labels[v])

    def node_match(data, pat):
        return pat["l"] is None or data["l"] == pat["l"]

    auts = automorphisms(p)
    gm = isomorphism.GraphMatcher(h, p, node_match=node_match)
    it = gm.subgraph_isomorphisms_iter() if induced else gm.subgraph_monomorphisms_iter()
    out = set()
    for m in it:
        inv = {b: a for a, b in m.items()}
        out.add(min(tuple(inv[s[a]] for a in range(len(p))) for s in auts))
    return out


def automorphisms(p) -> list:
    """The label-preserving automorphisms of the networkx pattern ``p``."""
    gm = isomorphism.GraphMatcher(p, p, node_match=lambda a, b: a["l"] == b["l"])
    return [dict(m) for m in gm.isomorphisms_iter()]


def ocgraph_pattern(edges, plabels):
    """The pattern as a networkx graph with an ``l`` attribute (None for a wildcard)."""
    p = nx.Graph(edges)
    for a in p:
        p.nodes[a]["l"] = None if plabels[a] in (None, -1) else plabels[a]
    return p


def position_keys(rows, edges, plabels) -> list:
    """The keys of ocgraph's rows as ``nx_positions`` makes them."""
    auts = automorphisms(ocgraph_pattern(edges, plabels))
    return [min(tuple(int(r[s[a]]) for a in range(len(plabels))) for s in auts) for r in rows.tolist()]


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("pattern,pl", WILDCARD)
def test_watch_reports_label_changes(tmp_path, pattern, pl, induced):
    """A watched labelled pattern with wildcards on a graph that starts without labels, over
    batches of label changes (some vertices several times, labels removed), edge additions and
    removals: after each batch ``added``/``removed`` equal the difference of networkx's match
    sets and ``modified`` the matches in both whose vertices' labels changed."""
    rng = np.random.default_rng(len(pattern) * 10 + induced)
    n = 24
    src, dst, _ = random_edges(rng, n, 90)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n, directed=False, dedup=True).close()
    labels = np.full(n, ocgraph.NO_LABEL, dtype=np.uint32)
    kinds = {"added": 0, "removed": 0, "modified": 0}
    with ocgraph.open(tmp_path / "g", writable=True, durability="none") as g:
        w = g.watch(pattern, induced=induced, pattern_labels=pl)
        before = nx_positions(simple_view(g), pattern, induced, labels, pl)
        for step in range(16):
            old = labels.copy()
            if step % 4 == 1:
                s, d = rng.integers(0, n, 6), rng.integers(0, n, 6)
                g.add_edges(s, d)
            elif step % 4 == 3:
                s, d = rng.integers(0, n, 6), rng.integers(0, n, 6)
                g.remove_edges(s, d)
            else:
                vs = rng.integers(0, n, int(rng.integers(1, 16)))
                vs[: len(vs) // 3] = vs[0]  # one vertex relabelled several times
                ls = rng.integers(0, 4, len(vs)).astype(np.uint32)
                ls[ls == 3] = ocgraph.NO_LABEL
                g.set_vertex_labels(vs, ls)
                labels[vs] = ls  # numpy: the last assignment per vertex wins, as in the batch
            ch = w.changes()
            added, removed = ch  # unpacks as before
            after = nx_positions(simple_view(g), pattern, induced, labels, pl)
            changed = {m for m in before & after if any(old[v] != labels[v] for v in m)}
            for name, rows, want in [
                ("added", added, after - before),
                ("removed", removed, before - after),
                ("modified", ch.modified, changed),
            ]:
                assert rows.shape[1] == len(pl)
                got = position_keys(rows, pattern, pl)
                assert len(got) == len(set(got)), f"duplicate {name}"
                assert set(got) == want, f"step {step}: {name}"
                kinds[name] += len(want)
            before = after
        np.testing.assert_array_equal(g.vertex_labels(), labels)
    assert kinds["modified"] > 0 and kinds["added"] > 0 and kinds["removed"] > 0, kinds


def test_label_updates_are_durable(tmp_path):
    """Labels set by update batches on a graph without labels survive reopen, freeze and
    compaction and reach readers; bad calls raise and change nothing."""
    rng = np.random.default_rng(4)
    n = 20
    src, dst, _ = random_edges(rng, n, 40)
    ocgraph.from_edges(src, dst, tmp_path / "g", num_vertices=n, directed=False).close()
    want = np.full(n + 2, ocgraph.NO_LABEL, dtype=np.uint32)
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        assert g.vertex_labels() is None
        g.set_vertex_labels([1, 2, 1], [4, 5, 6])
        g.freeze()
        g.add_vertices(2)
        g.set_vertex_labels(np.array([n + 1, 2]), np.array([7, ocgraph.NO_LABEL]))
        want[[1, n + 1]] = [6, 7]
        np.testing.assert_array_equal(g.vertex_labels(), want)
        with pytest.raises(IndexError):
            g.set_vertex_labels([n + 5], [1])
        with pytest.raises(ocgraph.InvalidArgumentError):
            g.set_vertex_labels([1, 2], [1])
        np.testing.assert_array_equal(g.vertex_labels(), want)
    with ocgraph.open(tmp_path / "g") as g:
        np.testing.assert_array_equal(g.vertex_labels(), want)
        with pytest.raises(ocgraph.InvalidArgumentError):
            g.set_vertex_labels([1], [1])  # read-only
    with ocgraph.open(tmp_path / "g", writable=True) as g:
        g.compact()
        np.testing.assert_array_equal(g.vertex_labels(), want)
        rows = g.match(PATTERNS[0], pattern_labels=[6, None, None])
        assert all(r[0] == 1 for r in rows.tolist())
