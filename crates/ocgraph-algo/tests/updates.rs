//! Kernels on a snapshot of an updated graph equal the same kernels on the graph rebuilt from
//! scratch (GraphBuilder) from a brute-force model of the updates: before compaction (base +
//! levels + delta), after compaction, and after reopening.

use std::collections::BTreeMap;
use std::path::Path;

use ocgraph_algo::{bfs, dijkstra, pagerank, triangle_count, wcc, PageRankOptions};
use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::update::{Durability, Snapshot, WritableGraph, WriteOptions};
use ocgraph_core::{Adjacency, Graph, Vertex};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

type Edges = BTreeMap<(Vertex, Vertex), f32>;

fn build(dir: &Path, n: u32, directed: bool, weighted: bool, edges: &Edges) {
    let o = BuildOptions { directed, weighted, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(dir, o).unwrap();
    b.reserve_vertices(n as u64);
    let s: Vec<u32> = edges.keys().map(|e| e.0).collect();
    let d: Vec<u32> = edges.keys().map(|e| e.1).collect();
    let w: Vec<f32> = edges.values().copied().collect();
    b.push(&s, &d, Some(&w)).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
}

/// Canonical form of a component labelling: each vertex mapped to the first vertex of its
/// component.
fn canonical(labels: &[Vertex]) -> Vec<usize> {
    let mut first = BTreeMap::new();
    labels.iter().enumerate().map(|(v, l)| *first.entry(*l).or_insert(v)).collect()
}

fn same_results<O: Adjacency, I: Adjacency, P: Adjacency, Q: Adjacency>(
    a: (&O, &I),
    b: (&P, &Q),
    weighted: bool,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.0.num_vertices(), b.0.num_vertices());
    prop_assert_eq!(a.0.num_arcs(), b.0.num_arcs());
    let n = a.0.num_vertices() as Vertex;
    for s in [0, n / 2, n - 1] {
        prop_assert_eq!(bfs(a.0, a.1, s).unwrap().depth, bfs(b.0, b.1, s).unwrap().depth);
        if weighted {
            prop_assert_eq!(dijkstra(a.0, s).unwrap(), dijkstra(b.0, s).unwrap());
        }
    }
    prop_assert_eq!(canonical(&wcc(a.0, a.1).unwrap()), canonical(&wcc(b.0, b.1).unwrap()));
    let o = PageRankOptions::default();
    let (pa, pb) = (pagerank(a.0, a.1, &o).unwrap(), pagerank(b.0, b.1, &o).unwrap());
    for (x, y) in pa.scores.iter().zip(&pb.scores) {
        prop_assert!((x - y).abs() < 1e-9, "pagerank {} vs {}", x, y);
    }
    prop_assert_eq!(triangle_count(a.0, a.1).unwrap(), triangle_count(b.0, b.1).unwrap());
    Ok(())
}

fn compare(
    snap: &Snapshot,
    n: u32,
    directed: bool,
    weighted: bool,
    edges: &Edges,
) -> Result<(), TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ref");
    build(&dir, n, directed, weighted, edges);
    let g = Graph::open(&dir, &Default::default()).unwrap();
    same_results((&snap.out(), &snap.in_()), (&g.out(), &g.in_()), weighted)
}

fn run(seed: u64, directed: bool, weighted: bool) -> Result<(), TestCaseError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let key = |u: Vertex, v: Vertex| if directed || u <= v { (u, v) } else { (v, u) };
    let mut n = rng.gen_range(2..40u32);
    let mut edges = Edges::new();
    for _ in 0..rng.gen_range(0..3 * n) {
        let (u, v) = (rng.gen_range(0..n), rng.gen_range(0..n));
        edges.insert(key(u, v), rng.gen_range(1..5) as f32);
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, n, directed, weighted, &edges);
    let opts = WriteOptions {
        durability: Durability::None,
        freeze_threshold: 4000,
        auto_compact_levels: None,
        ..WriteOptions::default()
    };
    let g = WritableGraph::open(&dir, &opts).unwrap();
    for round in 0..6 {
        for _ in 0..rng.gen_range(1..6) {
            match rng.gen_range(0..10) {
                0..=5 => {
                    let batch: Vec<(Vertex, Vertex)> = (0..rng.gen_range(1..10))
                        .map(|_| (rng.gen_range(0..n), rng.gen_range(0..n)))
                        .collect();
                    let ws: Vec<f32> = batch.iter().map(|_| rng.gen_range(1..5) as f32).collect();
                    g.add_edges(&batch, weighted.then_some(&ws[..])).unwrap();
                    for (&(u, v), &w) in batch.iter().zip(&ws) {
                        edges.insert(key(u, v), if weighted { w } else { 1.0 });
                    }
                }
                6..=7 => {
                    let batch: Vec<(Vertex, Vertex)> = if edges.is_empty() || rng.gen_bool(0.3) {
                        vec![(rng.gen_range(0..n), rng.gen_range(0..n))]
                    } else {
                        let i = rng.gen_range(0..edges.len());
                        vec![*edges.keys().nth(i).unwrap()]
                    };
                    g.remove_edges(&batch).unwrap();
                    for &(u, v) in &batch {
                        edges.remove(&key(u, v));
                    }
                }
                8 => {
                    let k = rng.gen_range(1..4);
                    g.add_vertices(k).unwrap();
                    n += k;
                }
                _ => {
                    let v = rng.gen_range(0..n);
                    g.remove_vertices(&[v]).unwrap();
                    edges.retain(|&(a, b), _| a != v && b != v);
                }
            }
        }
        if round % 2 == 1 {
            g.freeze().unwrap();
        }
        compare(&g.snapshot(), n, directed, weighted, &edges)?;
    }
    prop_assert!(g.num_levels() >= 2);
    g.compact().unwrap();
    compare(&g.snapshot(), n, directed, weighted, &edges)?;
    g.close().unwrap();
    let g = WritableGraph::open(&dir, &opts).unwrap();
    compare(&g.snapshot(), n, directed, weighted, &edges)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn kernels_on_snapshots_match_a_rebuilt_graph(seed in any::<u64>(), directed in any::<bool>(), weighted in any::<bool>()) {
        run(seed, directed, weighted)?;
    }
}

/// Readers during writes: threads run every kernel on snapshots while another thread adds and
/// removes edges, freezes and compacts; each result equals the kernel on the graph rebuilt from
/// the model of the batches its snapshot had seen.
#[test]
fn kernels_on_snapshots_taken_during_writes_match_their_batch_prefix() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let n = 48u32;
    build(&dir, n, false, true, &Edges::new());
    let opts = WriteOptions {
        durability: Durability::None,
        freeze_threshold: 3000,
        auto_compact_levels: Some(2),
        ..WriteOptions::default()
    };
    let g = Arc::new(WritableGraph::open(&dir, &opts).unwrap());
    // The model after each batch, by sequence number.
    let models = Arc::new(Mutex::new(BTreeMap::from([(0u64, Edges::new())])));
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (g, models, done) = (g.clone(), models.clone(), done.clone());
        std::thread::spawn(move || {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
            let key = |u: Vertex, v: Vertex| if u <= v { (u, v) } else { (v, u) };
            let mut edges = Edges::new();
            for i in 0..300 {
                let seq = if rng.gen_bool(0.7) || edges.is_empty() {
                    let batch: Vec<(Vertex, Vertex)> =
                        (0..8).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n))).collect();
                    let ws: Vec<f32> = batch.iter().map(|_| rng.gen_range(1..5) as f32).collect();
                    for (&(u, v), &w) in batch.iter().zip(&ws) {
                        edges.insert(key(u, v), w);
                    }
                    g.add_edges(&batch, Some(&ws)).unwrap()
                } else {
                    let k = rng.gen_range(0..edges.len());
                    let e = *edges.keys().nth(k).unwrap();
                    edges.remove(&e);
                    g.remove_edges(&[e]).unwrap()
                };
                models.lock().unwrap().insert(seq, edges.clone());
                if i % 60 == 59 {
                    g.compact().unwrap();
                }
            }
            done.store(true, Ordering::Release);
        })
    };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (g, models, done) = (g.clone(), models.clone(), done.clone());
            std::thread::spawn(move || {
                let mut checked = 0;
                while !done.load(Ordering::Acquire) || checked == 0 {
                    let snap = g.snapshot();
                    // The kernels run on the snapshot while the writer goes on.
                    let depth = bfs(&snap.out(), &snap.in_(), 0).unwrap().depth;
                    let comp = canonical(&wcc(&snap.out(), &snap.in_()).unwrap());
                    let pr = pagerank(&snap.out(), &snap.in_(), &PageRankOptions::default()).unwrap().scores;
                    let dist = dijkstra(&snap.out(), 0).unwrap();
                    // The writer records a batch's model just after the batch returns.
                    let edges = loop {
                        if let Some(e) = models.lock().unwrap().get(&snap.seq()) {
                            break e.clone();
                        }
                        std::thread::yield_now();
                    };
                    let rtmp = tempfile::tempdir().unwrap();
                    let rdir = rtmp.path().join("ref");
                    build(&rdir, n, false, true, &edges);
                    let r = Graph::open(&rdir, &Default::default()).unwrap();
                    assert_eq!(depth, bfs(&r.out(), &r.in_(), 0).unwrap().depth, "bfs at {}", snap.seq());
                    assert_eq!(comp, canonical(&wcc(&r.out(), &r.in_()).unwrap()));
                    let rpr = pagerank(&r.out(), &r.in_(), &PageRankOptions::default()).unwrap().scores;
                    assert!(
                        pr.iter().zip(&rpr).all(|(a, b)| (a - b).abs() < 1e-9),
                        "pagerank at {}",
                        snap.seq()
                    );
                    assert_eq!(dist, dijkstra(&r.out(), 0).unwrap());
                    checked += 1;
                }
                checked
            })
        })
        .collect();
    writer.join().unwrap();
    let checked: usize = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(checked >= 2, "readers checked {checked} snapshots");
    assert!(g.num_levels() <= 3);
}
