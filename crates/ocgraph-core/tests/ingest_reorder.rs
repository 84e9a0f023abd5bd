//! `reorder` against a brute-force renumbering: the copy is the same graph (through its kept
//! original ids), its degrees never increase with the id, and it is read-only.

mod ingest_common;

use ingest_common::{open_lists, reference, Lists};
use ocgraph_core::ids::OriginalId;
use ocgraph_core::ingest::{reorder, BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::{Adjacency, Graph, OpenOptions};
use proptest::prelude::*;

/// Builds the graph of `edges` over `n` vertices with the original ids `ids` at `dir`.
fn build(dir: &std::path::Path, n: usize, edges: &[(u32, u32, f32)], o: &BuildOptions, ids: IdMap) {
    let mut b = GraphBuilder::new(dir, o.clone()).unwrap();
    b.reserve_vertices(n as u64);
    let s: Vec<u32> = edges.iter().map(|e| e.0).collect();
    let d: Vec<u32> = edges.iter().map(|e| e.1).collect();
    let w: Vec<f32> = edges.iter().map(|e| e.2).collect();
    b.push(&s, &d, Some(&w)).unwrap();
    b.finish(ids, &NoProgress).unwrap();
}

/// `lists` renumbered by `new_of` (old vertex -> new vertex), each list sorted again.
fn renumber(lists: &Lists, new_of: &[u32]) -> Lists {
    let mut out = vec![Vec::new(); lists.len()];
    for (u, l) in lists.iter().enumerate() {
        let mut l: Vec<(u32, u32)> = l.iter().map(|&(v, w)| (new_of[v as usize], w)).collect();
        l.sort_by(|a, b| a.0.cmp(&b.0).then(f32::from_bits(a.1).total_cmp(&f32::from_bits(b.1))));
        out[new_of[u] as usize] = l;
    }
    out
}

/// `memory`: the builder's budget (a few bytes force sorted runs on disk).
fn check_reorder(
    n: usize,
    edges: &[(u32, u32, f32)],
    directed: bool,
    weighted: bool,
    strings: bool,
    memory: u64,
) {
    let tmp = ingest_common::scratch();
    let (src, dst) = (tmp.path().join("g"), tmp.path().join("r"));
    let o = BuildOptions { directed, weighted, ..BuildOptions::default() };
    // Original ids: strings, or integers that are not the vertex ids.
    let ids = if strings {
        IdMap::Strings((0..n).map(|v| format!("v{v}")).collect())
    } else {
        IdMap::U64((0..n as u64).map(|v| 1000 + 7 * v).collect())
    };
    build(&src, n, edges, &o, ids);
    let arcs = reorder(&src, &dst, memory, false, &NoProgress).unwrap();
    let (want_out, want_in) = reference(n, edges, &o);
    assert_eq!(arcs as usize, want_out.iter().map(Vec::len).sum::<usize>());
    let (g, out, inn) = open_lists(&dst);
    // The new order, read back from the copy's original ids.
    let ids = g.ids().unwrap();
    let mut new_of = vec![u32::MAX; n];
    for p in 0..n as u32 {
        let old = match ids.original(p) {
            OriginalId::Int(i) => (i - 1000) / 7,
            OriginalId::Str(s) => s[1..].parse().unwrap(),
        };
        assert_eq!(new_of[old as usize], u32::MAX, "old vertex {old} appears twice");
        new_of[old as usize] = p;
    }
    assert_eq!(out, renumber(&want_out, &new_of));
    assert_eq!(inn, if directed { renumber(&want_in, &new_of) } else { Vec::new() });
    // Degrees (out + in) never increase; equal degrees keep the old order.
    let degree = |p: usize| out[p].len() + inn.get(p).map_or(0, Vec::len);
    let old_of: Vec<usize> = (0..n).map(|p| new_of.iter().position(|&x| x == p as u32).unwrap()).collect();
    for p in 1..n {
        assert!(degree(p - 1) > degree(p) || (degree(p - 1) == degree(p) && old_of[p - 1] < old_of[p]));
    }
    assert_eq!(
        (g.is_directed(), g.is_weighted(), g.num_edges()),
        (directed, weighted, {
            let s = Graph::open(&src, &OpenOptions::default()).unwrap();
            s.num_edges()
        })
    );
}

fn edge_list() -> impl Strategy<Value = (usize, Vec<(u32, u32, f32)>)> {
    (1usize..40).prop_flat_map(|n| {
        let e = (0..n as u32, 0..n as u32, (-2i32..6).prop_map(|w| w as f32 * 0.5));
        (Just(n), prop::collection::vec(e, 0..150))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn reorder_is_a_degree_ordered_renumbering((n, edges) in edge_list(), bits in 0u8..16) {
        let memory = if bits & 8 != 0 { 64 } else { 1 << 20 };
        check_reorder(n, &edges, bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, memory);
    }
}

#[test]
fn graphs_without_edges_and_single_vertices() {
    for bits in 0u8..8 {
        check_reorder(4, &[], bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, 1 << 20);
        check_reorder(1, &[(0, 0, 1.5)], bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, 64);
    }
}

#[test]
fn reordered_copies_take_updates_by_original_id_and_updates_must_be_compacted() {
    let tmp = ingest_common::scratch();
    let (src, dst) = (tmp.path().join("g"), tmp.path().join("r"));
    let edges: Vec<(u32, u32, f32)> = (0..50).map(|v| (v, (v * 7 + 3) % 50, 1.0)).collect();
    build(&src, 50, &edges, &BuildOptions::default(), IdMap::Identity);
    reorder(&src, &dst, 1 << 20, false, &NoProgress).unwrap();
    let e = reorder(&src, &dst, 1 << 20, false, &NoProgress).unwrap_err().to_string();
    assert!(e.contains("exists"), "{e}");
    reorder(&src, &dst, 1 << 20, true, &NoProgress).unwrap();
    // A reordered copy keeps the original ids: it takes updates by them, not plain new vertices.
    let copy = ocgraph_core::update::WritableGraph::open(&dst, &Default::default()).unwrap();
    let (a, b) = (OriginalId::Int(1), OriginalId::Int(2));
    copy.add_edges_by_id(&[(a.clone(), b.clone())], None).unwrap();
    let (va, vb) = (copy.vertex_of(&a).unwrap().unwrap(), copy.vertex_of(&b).unwrap().unwrap());
    assert!(copy.snapshot().out().neighbors(va).contains(&vb));
    assert!(copy.add_vertices(1).unwrap_err().to_string().contains("original ids"));
    drop(copy);
    let w = ocgraph_core::update::WritableGraph::open(&src, &Default::default()).unwrap();
    w.add_edges(&[(1, 2)], None).unwrap();
    drop(w);
    let e = reorder(&src, &tmp.path().join("q"), 1 << 20, false, &NoProgress).unwrap_err().to_string();
    assert!(e.contains("compact"), "{e}");
    assert!(!tmp.path().join("q").exists());
}

/// A source whose lists were damaged after the import (here one neighbour id changed to
/// another valid id, and one past the vertex count) is refused by every copy and layout built
/// from its lists, naming the file: `reorder` and `pack` sealed the changed edge into a copy
/// with fresh checksums that `ocgraph check` then passed, and an id past the vertex count
/// panicked `reorder` and `layout hubs` ("index out of bounds").
#[test]
fn copies_and_layouts_refuse_a_source_damaged_after_its_import() {
    use ocgraph_core::ingest::{build_grid, compress_adjacency, index_hubs, pack, pack_copy, GridOptions};
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("g");
    let edges: Vec<(u32, u32, f32)> = (0..200).map(|i| (i % 40, (i * 7 + 1) % 40, 1.0)).collect();
    let o = BuildOptions { weighted: true, ..BuildOptions::default() };
    build(&src, 40, &edges, &o, IdMap::Identity);
    let good = std::fs::read(src.join("out.neighbors")).unwrap();
    for (what, value) in [("another valid id", good[0] ^ 1), ("an id past the vertex count", 200)] {
        let mut b = good.clone();
        b[0] = value;
        std::fs::write(src.join("out.neighbors"), &b).unwrap();
        let grid = GridOptions {
            cells_per_side: None,
            memory: 1 << 20,
            codec: ocgraph_core::format::grid::Codec::None,
        };
        let results = [
            ("reorder", reorder(&src, &tmp.path().join("r"), 1 << 20, true, &NoProgress).err()),
            ("pack", pack(&src, &tmp.path().join("p"), true, &NoProgress).err()),
            ("packed lists", pack_copy(&src, &NoProgress).err()),
            ("hubs", index_hubs(&src, &NoProgress).err()),
            ("grid", build_grid(&src, &grid, &NoProgress).err()),
            ("compress", compress_adjacency(&src, 16384, &NoProgress).err()),
        ];
        for (op, err) in results {
            let e = err.unwrap_or_else(|| panic!("{op} took a source with {what}")).to_string();
            assert!(e.contains("out.neighbors") && e.contains("checksum mismatch"), "{op}, {what}: {e}");
        }
    }
}
