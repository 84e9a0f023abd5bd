//! The hub index (`ocgraph layout hubs`): its entries are each vertex's in-neighbours of highest
//! out-degree (brute force); BFS and WCC that read it equal the plain kernels and a brute-force
//! reference on random directed, undirected and weighted graphs, through pools far smaller than
//! the graph and on mmap; `auto` reads it only while the graph has no pending updates, and
//! compaction indexes the new base; a corrupted index is refused by `check` and by a kernel
//! (naming the file); removing it leaves the graph as it was.

use crate::common::{bfs_distances, pool, random_graph, restamp, store, TestGraph};
use ocgraph_algo::{bfs, bfs_with_hubs, verify_bfs, verify_wcc, wcc, wcc_with_hubs};
use ocgraph_core::format::check_graph;
use ocgraph_core::ingest::{index_hubs, remove_hubs, NoProgress};
use ocgraph_core::update::{WritableGraph, WriteOptions};
use ocgraph_core::{Adjacency, Graph, GraphView, Hubs, Layout, OpenOptions, Vertex};

/// Each vertex's in-neighbours of highest out-degree (ties: smaller id), at most three, by
/// sorting its whole in-list, and whether it has more.
fn brute_force_hubs(t: &TestGraph) -> Vec<(Vec<Vertex>, bool)> {
    let arcs = t.arcs();
    let mut outs = vec![std::collections::BTreeSet::new(); t.n];
    let mut ins = vec![std::collections::BTreeSet::new(); t.n];
    for &(u, v, _) in &arcs {
        outs[u as usize].insert(v);
        ins[v as usize].insert(u);
    }
    ins.iter()
        .map(|list| {
            let mut l: Vec<Vertex> = list.iter().copied().collect();
            l.sort_by_key(|&u| (std::cmp::Reverse(outs[u as usize].len()), u));
            let more = l.len() > Hubs::PER_VERTEX;
            l.truncate(Hubs::PER_VERTEX);
            (l, more)
        })
        .collect()
}

/// Every vertex's hubs as the index holds them.
fn stored_hubs(g: &Graph) -> Vec<(Vec<Vertex>, bool)> {
    let mut all = Vec::new();
    g.hubs().expect("indexed").for_each_in_range(0..g.num_vertices() as Vertex, |v, h, more| {
        assert_eq!(v as usize, all.len());
        all.push((h.to_vec(), more));
    });
    all
}

#[test]
fn bfs_and_wcc_through_the_hub_index_equal_the_plain_kernels_and_a_reference() {
    let cases = [
        (false, false, 3_001, 12_000),
        (true, false, 9_000, 30_000),
        (true, true, 3_001, 12_000),
        (false, true, 10_007, 25_000),
    ];
    for (i, &(directed, weighted, n, m)) in cases.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        let t = random_graph(n, m, directed, weighted, 70 + i as u64);
        store(&path, &t, true);
        let r = index_hubs(&path, &NoProgress).unwrap();
        assert_eq!(r.bytes, n as u64 * 12);
        check_graph(&path).unwrap();
        let want_hubs = brute_force_hubs(&t);
        assert_eq!(r.more, want_hubs.iter().filter(|h| h.1).count() as u64);
        for opts in [pool(6), pool(64), OpenOptions::default()] {
            let g = Graph::open(&path, &opts).unwrap();
            assert_eq!(stored_hubs(&g), want_hubs, "case {i}");
            let (out, inn, hubs) = (g.out(), g.in_(), g.hubs().unwrap());
            // The source of highest out-degree (most of the graph found through hubs), vertex
            // 0, and the last vertex (often isolated).
            let hub = (0..n as Vertex).max_by_key(|&v| out.degree(v)).unwrap();
            for s in [hub, 0, n as Vertex - 1] {
                let got = bfs_with_hubs(&out, &inn, Some(&hubs), s).unwrap();
                verify_bfs(&out, s, &got).unwrap();
                let want: Vec<i64> =
                    bfs_distances(&t, s).iter().map(|d| d.map_or(-1, |d| d as i64)).collect();
                assert_eq!(got.depth_i64(), want, "bfs from {s}, case {i}");
                assert_eq!(got.depth, bfs(&out, &inn, s).unwrap().depth);
            }
            let labels = wcc_with_hubs(&out, &inn, &hubs).unwrap();
            verify_wcc(&out, &labels).unwrap();
            assert_eq!(labels, wcc(&out, &inn).unwrap(), "wcc, case {i}");
        }
    }
}

#[test]
fn auto_reads_the_hub_index_until_the_graph_changes_and_compaction_indexes_the_new_base() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let t = random_graph(4_000, 20_000, false, false, 5);
    store(&path, &t, true);
    let view = || GraphView::open(&path, &pool(16)).unwrap();
    let v = view();
    assert!(v.choose_hubs(Layout::Auto).unwrap().is_none());
    let err = v.choose_hubs(Layout::Hubs).err().expect("refused").to_string();
    assert!(err.contains("no hub index") && err.contains("ocgraph layout hubs"), "{err}");
    drop(v);
    index_hubs(&path, &NoProgress).unwrap();
    let v = view();
    assert!(v.choose_hubs(Layout::Auto).unwrap().is_some());
    assert!(v.choose_hubs(Layout::Hubs).unwrap().is_some());
    assert!(v.choose_hubs(Layout::Csr).unwrap().is_none());
    drop(v);
    // Updates not compacted: the index describes the base only, and is not read.
    let w = WritableGraph::open(&path, &WriteOptions::default()).unwrap();
    // A snapshot that reads exactly the base is served by its index.
    let s = w.snapshot();
    assert!(s.is_base());
    let base_hubs = s.base().hubs().unwrap();
    let got = bfs_with_hubs(&s.out(), &s.in_(), Some(&base_hubs), 0).unwrap();
    assert_eq!(got.depth, bfs(&s.out(), &s.in_(), 0).unwrap().depth);
    drop(s);
    w.add_edges(&[(0, 3_999), (1, 3_998), (3_998, 3_999)], None).unwrap();
    w.remove_edges(&[(t.edges[0].0, t.edges[0].1)]).unwrap();
    // The kernels refuse the base's index for a snapshot with updates (they answered for the
    // base's arcs: a removed edge still joined its ends).
    let s = w.snapshot();
    let stale = s.base().hubs().unwrap();
    let err = bfs_with_hubs(&s.out(), &s.in_(), Some(&stale), 0).unwrap_err().to_string();
    assert!(err.contains("the hub index is not of these lists"), "{err}");
    let err = wcc_with_hubs(&s.out(), &s.in_(), &stale).unwrap_err().to_string();
    assert!(err.contains("the hub index is not of these lists"), "{err}");
    drop(s);
    w.close().unwrap();
    let v = view();
    assert!(v.choose_hubs(Layout::Auto).unwrap().is_none());
    let err = v.choose_hubs(Layout::Hubs).err().expect("refused").to_string();
    assert!(err.contains("ocgraph compact"), "{err}");
    drop(v);
    let w = WritableGraph::open(&path, &WriteOptions::default()).unwrap();
    w.compact().unwrap();
    w.close().unwrap();
    check_graph(&path).unwrap();
    let data = {
        let g = Graph::open(&path, &pool(8)).unwrap();
        let (out, inn) = (g.out(), g.in_());
        let hubs = g.hubs().expect("compaction indexes the new base");
        let got = bfs_with_hubs(&out, &inn, Some(&hubs), 0).unwrap();
        assert_eq!(got.depth, bfs(&out, &inn, 0).unwrap().depth);
        assert_eq!(wcc_with_hubs(&out, &inn, &hubs).unwrap(), wcc(&out, &inn).unwrap());
        g.data_path()
    };
    // An entry naming no vertex: `check` and open name the file, and so does a kernel when
    // the damage passed open (the file's checksum matching, as on a graph too large to be
    // checked whole on open).
    let f = data.join("hubs.u32");
    let good = std::fs::read(&f).unwrap();
    let mut bad = good.clone();
    bad[12 * 100..12 * 100 + 4].copy_from_slice(&4_000_000u32.to_le_bytes());
    std::fs::write(&f, &bad).unwrap();
    let err = check_graph(&path).unwrap_err().to_string();
    assert!(err.contains("hubs.u32"), "{err}");
    let err = Graph::open(&path, &pool(8)).expect_err("refused").to_string();
    assert!(err.contains("hubs.u32") && err.contains("checksum mismatch"), "{err}");
    assert!(err.contains("`ocgraph layout remove-hubs`"), "{err}");
    let manifest = std::fs::read(path.join("manifest")).unwrap();
    restamp(&path, "hubs.u32");
    let err = check_graph(&path).unwrap_err().to_string();
    assert!(err.contains("hubs.u32") && err.contains("vertex 100"), "{err}");
    let g = Graph::open(&path, &pool(8)).unwrap();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wcc_with_hubs(&g.out(), &g.in_(), &g.hubs().unwrap()).unwrap()
    }))
    .expect_err("a corrupted entry is refused");
    let msg = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("hubs.u32") && msg.contains("vertex 100"), "{msg}");
    drop(g);
    std::fs::write(&f, &good).unwrap();
    std::fs::write(path.join("manifest"), &manifest).unwrap();
    assert!(remove_hubs(&path).unwrap());
    assert!(!remove_hubs(&path).unwrap());
    check_graph(&path).unwrap();
    assert!(!f.exists());
    assert!(Graph::open(&path, &OpenOptions::default()).unwrap().hubs().is_none());
}
