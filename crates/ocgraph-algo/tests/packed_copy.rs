//! Packed copies of the lists beside the plain ones (`ocgraph layout pack`): BFS, SSSP, WCC and
//! PageRank read through them equal the plain lists' results and a brute-force reference, on
//! random directed, undirected and weighted graphs through pools far smaller than the graph;
//! `auto` picks the copies only under a pool smaller than the plain lists; compaction packs the
//! new base again; a corrupted copy is refused by `check`; removing the copies leaves a plain
//! graph.

use crate::common::{bfs_distances, pool, random_graph, store};
use ocgraph_algo::{bfs, pagerank, sssp, wcc, PageRankOptions};
use ocgraph_core::format::check_graph;
use ocgraph_core::ingest::{pack_copy, remove_packed_copy, NoProgress};
use ocgraph_core::update::{WritableGraph, WriteOptions};
use ocgraph_core::{Graph, GraphView, Layout, OpenOptions};

/// BFS depths, SSSP distances, WCC labels and PageRank scores of `g` as it reads its lists now.
fn results(g: &Graph) -> (Vec<i64>, Vec<f64>, Vec<u32>, Vec<f64>) {
    let (out, inn) = (g.out(), g.in_());
    let depth = bfs(&out, &inn, 0).unwrap().depth_i64();
    let dist = sssp(&out, 0, None).unwrap();
    let labels = wcc(&out, &inn).unwrap();
    let opts = PageRankOptions { tol: 1e-12, max_iter: 300, ..PageRankOptions::default() };
    let scores = pagerank(&out, &inn, &opts).unwrap().scores;
    (depth, dist, labels, scores)
}

#[test]
fn kernels_on_packed_copies_equal_the_plain_lists_and_a_reference() {
    for (i, (directed, weighted)) in
        [(false, false), (true, false), (true, true), (false, true)].into_iter().enumerate()
    {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        // 3,001 vertices: not a multiple of any block; isolated vertices included.
        let t = random_graph(3_001, 12_000, directed, weighted, 40 + i as u64);
        store(&path, &t, true);
        let r = pack_copy(&path, &NoProgress).unwrap();
        assert_eq!(
            r.arcs,
            Graph::open(&path, &OpenOptions::default()).unwrap().num_arcs() * (1 + directed as u64)
        );
        check_graph(&path).unwrap();
        let g = Graph::open(&path, &pool(8)).unwrap();
        assert!(g.manifest().has_packed_copy() && !g.manifest().is_packed());
        assert!(!g.reads_packed());
        let plain = results(&g);
        g.read_packed_copy(true);
        assert!(g.reads_packed() && g.out().is_packed());
        let packed = results(&g);
        assert_eq!(plain.0, packed.0, "bfs, case {i}");
        assert_eq!(plain.2, packed.2, "wcc, case {i}");
        for (a, b) in plain.1.iter().zip(&packed.1) {
            assert!(a == b || (a - b).abs() <= 1e-9 * a.abs(), "sssp {a} vs {b}, case {i}");
        }
        for (a, b) in plain.3.iter().zip(&packed.3) {
            assert!((a - b).abs() <= 1e-9, "pagerank {a} vs {b}, case {i}");
        }
        // An independent reference: BFS hop counts by brute force on the test graph.
        let want: Vec<i64> = bfs_distances(&t, 0).iter().map(|d| d.map_or(-1, |d| d as i64)).collect();
        assert_eq!(packed.0, want, "bfs vs reference, case {i}");
    }
}

#[test]
fn auto_reads_the_packed_copies_only_under_a_pool_smaller_than_the_plain_lists() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    store(&path, &random_graph(5_000, 40_000, false, false, 7), true);
    let view = |o: &OpenOptions| GraphView::open(&path, o).unwrap();
    // Without copies, auto reads the plain lists and `packed` is refused.
    let v = view(&pool(4));
    v.choose_layout(Layout::Auto, false).unwrap();
    assert!(!v.base().reads_packed());
    let err = v.choose_layout(Layout::Packed, false).err().expect("refused").to_string();
    assert!(err.contains("no packed copy") && err.contains("ocgraph layout pack"), "{err}");
    pack_copy(&path, &NoProgress).unwrap();
    let plain_bytes: u64 =
        ["out.offsets", "out.neighbors"].iter().map(|f| std::fs::metadata(path.join(f)).unwrap().len()).sum();
    for (opts, want) in [
        (pool(4), true),
        (pool(plain_bytes / 4096 - 1), true),
        (pool(plain_bytes / 4096 + 2), false),
        (OpenOptions::default(), false),
    ] {
        let v = view(&opts);
        let (grid, why) = v.choose_layout(Layout::Auto, false).unwrap();
        assert!(grid.is_none());
        assert_eq!(v.base().reads_packed(), want, "{why}");
        v.choose_layout(Layout::Csr, false).unwrap();
        assert!(!v.base().reads_packed());
        v.choose_layout(Layout::Packed, false).unwrap();
        assert!(v.base().reads_packed());
    }
}

#[test]
fn compaction_packs_the_new_base_and_removal_leaves_a_plain_graph() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let t = random_graph(2_000, 9_000, true, true, 11);
    store(&path, &t, true);
    pack_copy(&path, &NoProgress).unwrap();
    let w = WritableGraph::open(&path, &WriteOptions::default()).unwrap();
    w.add_edges(&[(0, 1_999), (5, 1_998)], Some(&[0.5, 2.0])).unwrap();
    w.remove_edges(&[(t.edges[0].0, t.edges[0].1)]).unwrap();
    w.compact().unwrap();
    w.close().unwrap();
    check_graph(&path).unwrap();
    let g = Graph::open(&path, &pool(6)).unwrap();
    assert!(g.manifest().has_packed_copy());
    let plain = results(&g);
    g.read_packed_copy(true);
    let packed = results(&g);
    assert_eq!(plain.0, packed.0);
    assert_eq!(plain.2, packed.2);
    drop(g);
    // A flipped byte in a packed copy: `check` names the file.
    let data = Graph::open(&path, &OpenOptions::default()).unwrap().data_path();
    let f = data.join("out.packed");
    let mut bytes = std::fs::read(&f).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x5a;
    std::fs::write(&f, &bytes).unwrap();
    let err = check_graph(&path).unwrap_err().to_string();
    assert!(err.contains("out.packed"), "{err}");
    bytes[mid] ^= 0x5a;
    std::fs::write(&f, &bytes).unwrap();
    assert!(remove_packed_copy(&path).unwrap());
    assert!(!remove_packed_copy(&path).unwrap());
    check_graph(&path).unwrap();
    let g = Graph::open(&path, &pool(6)).unwrap();
    assert!(!g.manifest().has_packed_copy() && !data.join("out.packed").exists());
    g.read_packed_copy(true);
    assert!(!g.reads_packed());
    assert_eq!(results(&g).0, plain.0);
}
