"""Vertex labels stored with a graph: imported from a label file over original ids, set from an
array, kept through reorder and compaction, and used by labelled patterns (checked against
networkx's ``GraphMatcher`` with a label ``node_match``) and by watches on a writable graph
(checked against the difference of static matches after every batch)."""

from __future__ import annotations

import re

import numpy as np
import pytest
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
    with ocgraph.open(tmp_path / "g") as g, pytest.raises(ocgraph.FormatError, match=r"labels\.u32"):
        g.vertex_labels()


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
