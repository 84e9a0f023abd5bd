//! Maintained results (BFS, SSSP, WCC, PageRank) equal a full static recomputation on the
//! snapshot after every batch of a random stream (additions, removals of tree and non-tree
//! edges, whole vertices, weight increases and decreases, added vertices), on the in-memory
//! delta with the base on mmap or on a buffer pool far smaller than the graph, also when batches
//! stop part-way and recompute (tiny arc limits); and saved results are reused on reopen only
//! when current.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use ocgraph_algo::incremental::{
    saved_path, Bfs, Maintained, Maintainer, Program, Spec, Sssp, Tree, Values, Wcc,
};
use ocgraph_algo::{bfs, dijkstra, pagerank, verify_pagerank, wcc, PageRankOptions, PageRankResult};
use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::page::BackendKind;
use ocgraph_core::update::{
    BatchChanges, ChangeSubscriber, Durability, Snapshot, WalItem, WritableGraph, WriteOptions,
};
use ocgraph_core::{Adjacency, Vertex};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const TOL: f64 = 1e-8;

fn build(dir: &Path, n: u32, directed: bool, weighted: bool, edges: &BTreeMap<(Vertex, Vertex), f32>) {
    let o = BuildOptions { directed, weighted, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(dir, o).unwrap();
    b.reserve_vertices(n as u64);
    let s: Vec<u32> = edges.keys().map(|e| e.0).collect();
    let d: Vec<u32> = edges.keys().map(|e| e.1).collect();
    let w: Vec<f32> = edges.values().copied().collect();
    b.push(&s, &d, Some(&w)).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
}

fn specs() -> Vec<Spec> {
    vec![
        Spec::Bfs { source: 0 },
        Spec::Sssp { source: 0 },
        Spec::Wcc,
        Spec::PageRank { damping: 0.85, tol: TOL },
    ]
}

/// Checks `got` (the maintained result of `spec`) against the static kernels on `snap`.
fn check(spec: &Spec, got: &Values, snap: &Snapshot, what: &str) -> Result<(), TestCaseError> {
    let (out, in_) = (snap.out(), snap.in_());
    match (spec, got) {
        (Spec::Bfs { source }, Values::Int(d)) => {
            prop_assert_eq!(d, &bfs(&out, &in_, *source).unwrap().depth_i64(), "bfs {}", what);
        }
        (Spec::Sssp { source }, Values::Float(d)) => {
            let want = dijkstra(&out, *source).unwrap();
            prop_assert_eq!(d.len(), want.len());
            for (v, (a, b)) in d.iter().zip(&want).enumerate() {
                prop_assert!(
                    a == b || (a - b).abs() <= 1e-9 * b.max(1.0),
                    "sssp {} vertex {}: {} vs {}",
                    what,
                    v,
                    a,
                    b
                );
            }
        }
        (Spec::Wcc, Values::Int(l)) => {
            let want: Vec<i64> = wcc(&out, &in_).unwrap().into_iter().map(i64::from).collect();
            prop_assert_eq!(l, &want, "wcc {}", what);
        }
        (Spec::PageRank { damping, tol }, Values::Float(x)) => {
            let opts = PageRankOptions { damping: *damping, tol: *tol, ..PageRankOptions::default() };
            let r = PageRankResult { scores: x.clone(), iterations: 1, converged: true };
            let v = verify_pagerank(&out, &opts, &r);
            prop_assert!(v.is_ok(), "pagerank {}: {:?}", what, v);
            let want = pagerank(&out, &in_, &opts).unwrap().scores;
            let l1: f64 = x.iter().zip(&want).map(|(a, b)| (a - b).abs()).sum();
            let bound = 2.0 * x.len() as f64 * tol / (1.0 - damping);
            prop_assert!(
                l1 <= bound,
                "pagerank {}: L1 distance {} to the static result (bound {})",
                what,
                l1,
                bound
            );
        }
        _ => prop_assert!(false, "{:?} gave {:?}", spec, got),
    }
    Ok(())
}

/// One random stream on one random graph; every maintained result checked after every batch
/// (maintained in the background: after every third batch, so batches queue up meanwhile).
fn run_stream(
    seed: u64,
    directed: bool,
    weighted: bool,
    batch: usize,
    pool: bool,
    background: bool,
) -> Result<(), TestCaseError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let n0: u32 = rng.gen_range(2..60);
    let weight = |rng: &mut Xoshiro256PlusPlus| if weighted { rng.gen_range(0..5) as f32 } else { 1.0 };
    let mut edges = BTreeMap::new();
    for _ in 0..rng.gen_range(0..3 * n0) {
        let (u, v) = (rng.gen_range(0..n0), rng.gen_range(0..n0));
        let key = if directed { (u, v) } else { (u.min(v), u.max(v)) };
        edges.insert(key, weight(&mut rng));
    }
    build(&dir, n0, directed, weighted, &edges);
    let backend = if pool {
        // Two 4 KiB frames: far smaller than the graph's files. Each background result reads
        // on its own thread, holding up to two slices: two frames each, and one to evict.
        let frames = if background { 2 * specs().len() as u64 + 1 } else { 2 };
        BackendKind::Pool { capacity: 4096 * frames, page_size: 4096, policy: "clock".into() }
    } else {
        BackendKind::default()
    };
    let opts = WriteOptions {
        backend,
        durability: Durability::None,
        auto_compact_levels: None,
        ..Default::default()
    };
    let w = WritableGraph::open(&dir, &opts).unwrap();
    let start = if background { Maintainer::start_background } else { Maintainer::start };
    let ms: Vec<Maintainer> = specs().into_iter().map(|s| start(&w, s).unwrap()).collect();
    for (m, s) in ms.iter().zip(specs()) {
        check(&s, &m.result(&w).unwrap(), &w.snapshot(), "initial")?;
    }
    let mut n = n0;
    for round in 0..(24 / batch).max(3) {
        let items = random_batch(&mut rng, &w, &mut n, batch, weighted);
        w.update(&items).unwrap();
        if round % 4 == 3 {
            w.freeze().unwrap();
        }
        if background && round % 3 != 2 {
            continue;
        }
        let snap = w.snapshot();
        prop_assert_eq!(snap.num_vertices(), n as usize);
        for (m, s) in ms.iter().zip(specs()) {
            prop_assert_eq!(m.seq(&w).unwrap(), snap.seq());
            check(&s, &m.result(&w).unwrap(), &snap, &format!("after batch {round}"))?;
        }
    }
    Ok(())
}

/// A random batch of `batch` updates on `w` (`n` vertices, raised by the vertices it adds):
/// additions, removals of existing edges (tree edges among them, often disconnecting ones) and
/// of missing ones, weight changes, vertex removals and additions.
fn random_batch(
    rng: &mut Xoshiro256PlusPlus,
    w: &WritableGraph,
    n: &mut u32,
    batch: usize,
    weighted: bool,
) -> Vec<WalItem> {
    let weight = |rng: &mut Xoshiro256PlusPlus| if weighted { rng.gen_range(0..5) as f32 } else { 1.0 };
    let mut items = Vec::new();
    let mut live: Vec<(Vertex, Vertex)> = Vec::new();
    let snap = w.snapshot();
    for u in 0..*n {
        for &v in snap.out().neighbors(u).iter() {
            live.push((u, v));
        }
    }
    {
        let n = &mut *n;
        for _ in 0..batch {
            let roll = rng.gen_range(0..100);
            let pick = |rng: &mut Xoshiro256PlusPlus| live.get(rng.gen_range(0..live.len().max(1))).copied();
            let item = match roll {
                0..=44 => Some(WalItem::AddEdge {
                    src: rng.gen_range(0..*n),
                    dst: rng.gen_range(0..*n),
                    weight: weight(rng),
                }),
                45..=74 => pick(rng).map(|(src, dst)| WalItem::RemoveEdge { src, dst }),
                75..=84 if weighted => {
                    pick(rng).map(|(src, dst)| WalItem::SetWeight { src, dst, weight: weight(rng) })
                }
                85..=92 => Some(WalItem::RemoveVertex { v: rng.gen_range(0..*n) }),
                93..=96 => Some(WalItem::RemoveEdge { src: rng.gen_range(0..*n), dst: rng.gen_range(0..*n) }),
                97..=99 => {
                    let count = rng.gen_range(1..3);
                    *n += count;
                    Some(WalItem::AddVertices { count })
                }
                _ => None,
            };
            items.extend(item);
        }
    }
    items
}

/// A [`Tree`] kept current by the change feed directly, with its own recomputation limit.
struct Kept<P: Program>(Mutex<Tree<P>>);

impl<P: Program> ChangeSubscriber for Kept<P> {
    fn on_batch(&self, changes: &BatchChanges, snap: &Snapshot) {
        self.0.lock().unwrap().apply(changes, snap).unwrap();
    }
}

/// How [`run_limited`] sets up its trees and graphs.
struct Tuning {
    /// Arcs a batch may read before it recomputes.
    limit: u64,
    /// WCC relabels components of this many vertices or more by re-rooting, when given.
    relabel: Option<u32>,
    /// Threads warming the lists of the repairs.
    warm: usize,
    /// Graphs of up to `60 scale` vertices.
    scale: u32,
    /// Read through a pool of this many 4 KiB frames (else mmap).
    frames: Option<u64>,
}

/// Keeps BFS, SSSP and WCC trees set up by `tuning`: every result equals the static kernels
/// after every batch, whichever way each batch went.
fn run_limited(
    seed: u64,
    directed: bool,
    weighted: bool,
    batch: usize,
    tuning: Tuning,
) -> Result<(), TestCaseError> {
    let Tuning { limit, relabel, warm, scale, frames } = tuning;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let n0: u32 = rng.gen_range(2..60 * scale);
    let mut edges = BTreeMap::new();
    for _ in 0..rng.gen_range(0..3 * n0) {
        let (u, v) = (rng.gen_range(0..n0), rng.gen_range(0..n0));
        let key = if directed { (u, v) } else { (u.min(v), u.max(v)) };
        edges.insert(key, if weighted { rng.gen_range(0..5) as f32 } else { 1.0 });
    }
    build(&dir, n0, directed, weighted, &edges);
    let backend = match frames {
        Some(f) => BackendKind::Pool { capacity: 4096 * f, page_size: 4096, policy: "clock".into() },
        None => BackendKind::default(),
    };
    let opts = WriteOptions {
        backend,
        durability: Durability::None,
        auto_compact_levels: None,
        ..Default::default()
    };
    let w = WritableGraph::open(&dir, &opts).unwrap();
    let snap = w.snapshot();
    let kept = |t: &mut dyn Maintained| t.rebuild(&snap).unwrap();
    let (mut b, mut s, mut c) = (
        Tree::empty(Bfs { source: 0 }).with_recompute_after(limit).with_warm_threads(warm),
        Tree::empty(Sssp { source: 0 }).with_recompute_after(limit).with_warm_threads(warm),
        match relabel {
            Some(r) => Tree::empty(Wcc).with_recompute_after(limit).with_relabel_from(r),
            None => Tree::empty(Wcc).with_recompute_after(limit),
        }
        .with_warm_threads(warm),
    );
    kept(&mut b);
    kept(&mut s);
    kept(&mut c);
    let (b, s, c) =
        (Arc::new(Kept(Mutex::new(b))), Arc::new(Kept(Mutex::new(s))), Arc::new(Kept(Mutex::new(c))));
    w.subscribe(b.clone()).unwrap();
    w.subscribe(s.clone()).unwrap();
    w.subscribe(c.clone()).unwrap();
    let mut n = n0;
    for round in 0..(24 / batch).max(3) {
        let items = random_batch(&mut rng, &w, &mut n, batch, weighted);
        w.update(&items).unwrap();
        let snap = w.snapshot();
        let what = format!("limit {limit}, after batch {round}");
        check(&Spec::Bfs { source: 0 }, &b.0.lock().unwrap().result(), &snap, &what)?;
        check(&Spec::Sssp { source: 0 }, &s.0.lock().unwrap().result(), &snap, &what)?;
        check(&Spec::Wcc, &c.0.lock().unwrap().result(), &snap, &what)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn maintained_results_equal_static_recomputation(
        seed in any::<u64>(),
        directed in any::<bool>(),
        weighted in any::<bool>(),
        batch in prop_oneof![Just(1usize), 2usize..8, Just(20usize)],
        pool in any::<bool>(),
        background in any::<bool>(),
    ) {
        run_stream(seed, directed, weighted, batch, pool, background)?;
    }

    #[test]
    fn batches_past_their_limit_recompute(
        seed in any::<u64>(),
        directed in any::<bool>(),
        weighted in any::<bool>(),
        batch in prop_oneof![Just(1usize), 2usize..8, Just(20usize)],
        limit in prop_oneof![Just(0u64), 1u64..60],
        warm in 0usize..3,
    ) {
        run_limited(seed, directed, weighted, batch, Tuning { limit, relabel: None, warm, scale: 1, frames: None })?;
    }

    #[test]
    fn wcc_relabelled_by_rerooting_equals_static(
        seed in any::<u64>(),
        directed in any::<bool>(),
        batch in prop_oneof![Just(1usize), 2usize..8, Just(20usize)],
        relabel in 1u32..6,
    ) {
        let tuning = Tuning { limit: u64::MAX, relabel: Some(relabel), warm: 2, scale: 1, frames: None };
        run_limited(seed, directed, false, batch, tuning)?;
    }
}

/// Batches of 150 updates on graphs of hundreds of vertices through a pool of 9 frames (two for
/// each warming thread, one for the batch), so that the removed tree arcs of a batch and the
/// levels of its invalidated subtrees are many enough, and missing from the pool, to be warmed
/// on threads.
#[test]
fn warmed_batches_on_larger_graphs_equal_static() {
    for seed in 0..6 {
        let tuning = Tuning { limit: u64::MAX, relabel: None, warm: 4, scale: 20, frames: Some(9) };
        run_limited(seed, seed % 2 == 1, seed % 3 == 2, 150, tuning).unwrap();
    }
}

/// `changes` lists exactly the vertices whose value differs from the previous call, with the old
/// and new values.
#[test]
fn changes_report_old_and_new_values() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let edges: BTreeMap<(Vertex, Vertex), f32> = [((0, 1), 1.0), ((1, 2), 1.0), ((3, 4), 1.0)].into();
    build(&dir, 5, false, false, &edges);
    let opts = WriteOptions { durability: Durability::None, ..Default::default() };
    let w = WritableGraph::open(&dir, &opts).unwrap();
    let bfs = Maintainer::start(&w, Spec::Bfs { source: 0 }).unwrap();
    let comp = Maintainer::start(&w, Spec::Wcc).unwrap();
    assert!(bfs.changes(&w).unwrap().vertices.is_empty());
    w.add_edges(&[(2, 3)], None).unwrap();
    let c = bfs.changes(&w).unwrap();
    assert_eq!(c.vertices, vec![3, 4]);
    assert_eq!(c.old, Values::Int(vec![-1, -1]));
    assert_eq!(c.new, Values::Int(vec![3, 4]));
    let c = comp.changes(&w).unwrap();
    assert_eq!((c.vertices, c.old, c.new), (vec![3, 4], Values::Int(vec![3, 3]), Values::Int(vec![0, 0])));
    // Removing the bridge and putting it back: no net change.
    w.remove_edges(&[(1, 2)]).unwrap();
    w.add_edges(&[(1, 2)], None).unwrap();
    assert!(bfs.changes(&w).unwrap().vertices.is_empty());
    w.remove_vertices(&[1]).unwrap();
    assert_eq!(bfs.changes(&w).unwrap().vertices, vec![1, 2, 3, 4]);
    assert_eq!(comp.result(&w).unwrap(), Values::Int(vec![0, 1, 2, 2, 2]));
}

/// A re-rooting that would push hops past their limit (a state whose deepest member is near
/// `u32::MAX` hops) is found part-way through relabelling the component: the batch recomputes,
/// and the labels and the changes reported (each vertex once, with its value before the batch)
/// are those of a recomputation.
#[test]
fn wcc_rerooting_near_the_hops_limit_recomputes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    // A path 1 - 2 - ... - 10; 0 and 11 alone.
    let edges: BTreeMap<(Vertex, Vertex), f32> = (1..10).map(|v| ((v, v + 1), 1.0)).collect();
    build(&dir, 12, false, false, &edges);
    let opts = WriteOptions { durability: Durability::None, ..Default::default() };
    let w = WritableGraph::open(&dir, &opts).unwrap();
    // The path rooted at 1, hops rising along it, the last one close to the limit: members 1-9
    // are relabelled before vertex 10's shifted hops are found past it.
    let mut state = 12u64.to_le_bytes().to_vec();
    for v in 0..12u32 {
        let (label, hops, parent) = match v {
            1..=9 => (1, v - 1, if v == 1 { 1 } else { v - 1 }),
            10 => (1, u32::MAX - 13, 9),
            _ => (v, 0, v),
        };
        for x in [label, hops, parent] {
            state.extend_from_slice(&x.to_le_bytes());
        }
    }
    let mut t = Tree::empty(Wcc).with_relabel_from(2);
    t.decode(w.snapshot().seq(), 12, &state).expect("a valid state");
    assert_eq!(t.result(), Values::Int(vec![0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 11]));
    let t = Arc::new(Kept(Mutex::new(t)));
    w.subscribe(t.clone()).unwrap();
    w.add_edges(&[(0, 5)], None).unwrap();
    let mut t = t.0.lock().unwrap();
    assert_eq!(t.result(), Values::Int(vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11]));
    let c = t.changes();
    assert_eq!(c.vertices, (1..=10).collect::<Vec<Vertex>>());
    assert_eq!((c.old, c.new), (Values::Int(vec![1; 10]), Values::Int(vec![0; 10])));
}

/// A saved result is reused on reopen when its sequence number matches the graph's, and
/// recomputed (correctly) when the graph moved on without it or the file is corrupt.
#[test]
fn saved_results_are_reused_only_when_current() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let edges: BTreeMap<(Vertex, Vertex), f32> =
        (0..300).map(|_| ((rng.gen_range(0..100), rng.gen_range(0..100)), 1.0)).collect();
    build(&dir, 100, true, false, &edges);
    let opts = WriteOptions { durability: Durability::None, ..Default::default() };
    let check_all = |w: &WritableGraph, ms: &[Maintainer]| {
        for (m, s) in ms.iter().zip(specs()) {
            check(&s, &m.result(w).unwrap(), &w.snapshot(), "reopened").unwrap();
        }
    };
    {
        let w = WritableGraph::open(&dir, &opts).unwrap();
        let ms: Vec<Maintainer> = specs().into_iter().map(|s| Maintainer::start(&w, s).unwrap()).collect();
        assert!(ms.iter().all(|m| !m.loaded()));
        w.add_edges(&[(0, 50), (50, 99)], None).unwrap();
        w.remove_vertices(&[7]).unwrap();
        for m in &ms {
            m.save(&w).unwrap();
        }
        w.close().unwrap();
    }
    {
        let w = WritableGraph::open(&dir, &opts).unwrap();
        let ms: Vec<Maintainer> = specs().into_iter().map(|s| Maintainer::start(&w, s).unwrap()).collect();
        assert!(ms.iter().all(|m| m.loaded()));
        check_all(&w, &ms);
        // The graph moves on; the saved files are not rewritten (a crash mid-stream).
        w.remove_edges(&[(0, 50)]).unwrap();
        w.add_edges(&[(3, 4)], None).unwrap();
        w.close().unwrap();
    }
    let w = WritableGraph::open(&dir, &opts).unwrap();
    let ms: Vec<Maintainer> = specs().into_iter().map(|s| Maintainer::start(&w, s).unwrap()).collect();
    assert!(ms.iter().all(|m| !m.loaded()), "stale results must not be reused");
    check_all(&w, &ms);
    for m in &ms {
        m.save(&w).unwrap();
    }
    // A torn or corrupt file is recomputed.
    let path = saved_path(&dir, &Spec::Wcc);
    let mut b = std::fs::read(&path).unwrap();
    b[20] ^= 1;
    std::fs::write(&path, &b).unwrap();
    let again = Maintainer::start(&w, Spec::Wcc).unwrap();
    assert!(!again.loaded());
    assert_eq!(again.result(&w).unwrap(), ms[2].result(&w).unwrap());
    // So is one whose checksum holds but whose payload (a vertex's label, label and hops and
    // parent, 12 bytes each, after the vertex count) names a label or a count past the graph's
    // (written by hand or by a bug): they panicked (`fuzz/regressions/saved_result/`).
    ms[2].save(&w).unwrap();
    let good = std::fs::read(&path).unwrap();
    let (body, n) = (good.len() - 4, w.snapshot().num_vertices());
    let count_at = body - n * 12 - 8;
    assert_eq!(good[count_at..count_at + 8], (n as u64).to_le_bytes());
    let patched = |at: usize, with: &[u8]| {
        let mut b = good.clone();
        b[at..at + with.len()].copy_from_slice(with);
        let crc = crc32c::crc32c(&b[..body]);
        b[body..].copy_from_slice(&crc.to_le_bytes());
        b
    };
    for b in [
        patched(body - 12, &(u32::MAX - 1).to_le_bytes()),
        patched(body - 4, &(n as u32).to_le_bytes()),
        patched(count_at, &(1u64 << 62).to_le_bytes()),
    ] {
        std::fs::write(&path, b).unwrap();
        let m = Maintainer::start(&w, Spec::Wcc).unwrap();
        assert!(!m.loaded());
        assert_eq!(m.result(&w).unwrap(), ms[2].result(&w).unwrap());
    }
    // Two results of one name saved at once from two threads each write a temporary file of
    // their own (they shared one, and a rename failed); a save cut short in another process
    // leaves a temporary file that the next start removes.
    std::thread::scope(|s| {
        for m in [&ms[2], &again] {
            let w = &w;
            s.spawn(move || (0..30).for_each(|_| drop(m.save(w).unwrap())));
        }
    });
    let maintained = dir.join(ocgraph_algo::incremental::MAINTAINED_DIR);
    let left = maintained.join(".wcc.bin.tmp-999999999-0");
    std::fs::write(&left, b"cut short").unwrap();
    assert!(Maintainer::start(&w, Spec::Wcc).unwrap().loaded());
    assert!(!left.exists());
    let names: Vec<_> = std::fs::read_dir(&maintained).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(names.iter().all(|n| !n.to_string_lossy().contains("tmp")), "{names:?}");
}

/// A saved result is tied to the directory it was saved in: two copies of one graph that took
/// different batches under the same numbers do not reuse each other's files, and a copied
/// directory recomputes its results once.
#[test]
fn saved_results_copied_from_another_graph_are_recomputed() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    let edges: BTreeMap<(Vertex, Vertex), f32> =
        (0..200).map(|_| ((rng.gen_range(0..80), rng.gen_range(0..80)), 1.0)).collect();
    build(&a, 80, false, false, &edges);
    build(&b, 80, false, false, &edges);
    let opts = WriteOptions { durability: Durability::None, ..Default::default() };
    // Batch 1 differs: an edge to an isolated new vertex in `a`, none in `b`.
    for (dir, batch) in [(&a, vec![(0, 80)]), (&b, vec![(1, 2)])] {
        let w = WritableGraph::open(dir, &opts).unwrap();
        let ms: Vec<Maintainer> = specs().into_iter().map(|s| Maintainer::start(&w, s).unwrap()).collect();
        w.add_vertices(1).unwrap();
        w.add_edges(&batch, None).unwrap();
        for m in &ms {
            m.save(&w).unwrap();
        }
        w.close().unwrap();
    }
    let maintained = |d: &Path| d.join(ocgraph_algo::incremental::MAINTAINED_DIR);
    for e in std::fs::read_dir(maintained(&b)).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), maintained(&a).join(e.file_name())).unwrap();
    }
    let w = WritableGraph::open(&a, &opts).unwrap();
    let ms: Vec<Maintainer> = specs().into_iter().map(|s| Maintainer::start(&w, s).unwrap()).collect();
    assert!(ms.iter().all(|m| !m.loaded()), "files saved in another graph must not be reused");
    for (m, s) in ms.iter().zip(specs()) {
        check(&s, &m.result(&w).unwrap(), &w.snapshot(), "copied files").unwrap();
        m.save(&w).unwrap();
    }
    w.close().unwrap();
    let w = WritableGraph::open(&a, &opts).unwrap();
    assert!(specs().into_iter().all(|s| Maintainer::start(&w, s).unwrap().loaded()));
}

/// A saved result never claims a batch the log could still lose: while other threads commit
/// batches that are not made durable (`Durability::None`), every save leaves the log durable up
/// to the batch its file records (the saved file is otherwise loaded, after a crash that lost
/// those batches, as current for the different batches that reuse their numbers).
#[test]
fn a_saved_result_is_never_ahead_of_the_durable_log() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 200, false, false, &BTreeMap::new());
    let opts = WriteOptions { durability: Durability::None, ..Default::default() };
    let w = WritableGraph::open(&dir, &opts).unwrap();
    let m = Maintainer::start(&w, Spec::Wcc).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    // A deadlock fails the test binary instead of hanging it.
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = finished.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(120));
        if !watchdog.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!("a_saved_result_is_never_ahead_of_the_durable_log: saves and updates deadlocked");
            std::process::exit(1);
        }
    });
    let ahead = std::thread::scope(|s| {
        // Two updaters: one delivers its batch to the result while the other waits with the
        // writer's state held (a save that synced the whole log under the result's lock
        // deadlocked with them).
        for seed in [9, 10] {
            let (w, stop) = (&w, &stop);
            s.spawn(move || {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    w.add_edges(&[(rng.gen_range(0..200), rng.gen_range(0..200))], None).unwrap();
                }
            });
        }
        let ahead: Vec<(u64, u64)> = (0..40)
            .filter_map(|_| {
                let path = m.save(&w).unwrap();
                let saved = u64::from_le_bytes(std::fs::read(&path).unwrap()[8..16].try_into().unwrap());
                let durable = w.durable_seq();
                (saved > durable).then_some((saved, durable))
            })
            .collect();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        ahead
    });
    finished.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(ahead.is_empty(), "saved batches past the durable log (saved, durable): {ahead:?}");
}

/// The first computation of a result reads through a pool of two frames with one thread, as
/// its batches do: with a thread per core, SSSP and PageRank over lists of many pages held
/// the two frames from two threads that each waited for another, and failed after the pool's
/// stall timeout.
#[test]
fn first_computations_through_a_two_frame_pool_use_one_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
    let edges: BTreeMap<(Vertex, Vertex), f32> = (0..16_000)
        .map(|_| ((rng.gen_range(0..2000), rng.gen_range(0..2000)), rng.gen_range(1..9) as f32))
        .collect();
    build(&dir, 2000, true, true, &edges);
    let backend = BackendKind::Pool { capacity: 2 * 4096, page_size: 4096, policy: "clock".into() };
    let opts = WriteOptions { backend, durability: Durability::None, ..Default::default() };
    let w = WritableGraph::open(&dir, &opts).unwrap();
    let pool = |threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    for s in specs() {
        let m = pool(2).install(|| Maintainer::start(&w, s.clone())).unwrap();
        // The static kernels of the check read through the pool too: on one thread.
        pool(1).install(|| check(&s, &m.result(&w).unwrap(), &w.snapshot(), "two frames")).unwrap();
    }
}

/// A result saved for a batch that recovery then dropped (a damaged last frame of the log) is
/// not taken for the different batch that reuses its number: the file names the batch by its
/// number only, so the writer's open that drops the batch removes the file, also when that
/// writer maintains nothing (`ocgraph update`) and a later session maintains the result.
#[test]
fn a_result_saved_for_a_dropped_batch_is_not_reused_for_the_batch_that_takes_its_number() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 8, false, false, &[(0, 1), (2, 3), (4, 5), (6, 7)].map(|e| (e, 1.0)).into());
    let opts = WriteOptions::default();
    {
        let w = WritableGraph::open(&dir, &opts).unwrap();
        let m = Maintainer::start(&w, Spec::Wcc).unwrap();
        w.add_edges(&[(1, 2)], None).unwrap();
        m.save(&w).unwrap();
        // No close, as at a crash: a close records its batches as durable, and the open would
        // then refuse the damage below instead of dropping the frame.
    }
    // The last byte of the log's last frame: its checksum no longer matches, and the writer's
    // open drops the frame as a torn tail.
    let wal = std::fs::read_dir(dir.join("wal")).unwrap().map(|e| e.unwrap().path()).max().unwrap();
    let mut b = std::fs::read(&wal).unwrap();
    *b.last_mut().unwrap() ^= 0xff;
    std::fs::write(&wal, &b).unwrap();
    let saved = saved_path(&dir, &Spec::Wcc);
    // A reader's open drops nothing and removes nothing.
    drop(ocgraph_core::GraphView::open(&dir, &Default::default()).unwrap());
    assert!(saved.exists());
    let w = WritableGraph::open(&dir, &opts).unwrap();
    assert!(w.recovery().dropped_bytes > 0 && w.opened_seq() == 0);
    assert!(!saved.exists(), "the writer's open removes the result of the batch it dropped");
    w.add_edges(&[(5, 6)], None).unwrap();
    assert_eq!(w.last_seq(), 1, "the new batch takes the dropped batch's number");
    w.close().unwrap();
    let w = WritableGraph::open(&dir, &opts).unwrap();
    assert_eq!(w.opened_seq(), 1);
    let m = Maintainer::start(&w, Spec::Wcc).unwrap();
    assert!(!m.loaded(), "the file described the dropped batch");
    assert_eq!(m.result(&w).unwrap(), Values::Int(vec![0, 0, 2, 2, 4, 4, 4, 4]));
    // A result saved for the graph's own batch stays.
    m.save(&w).unwrap();
    w.close().unwrap();
    let w = WritableGraph::open(&dir, &opts).unwrap();
    assert!(Maintainer::start(&w, Spec::Wcc).unwrap().loaded());
}

/// In the background, `wait(seq)` returns once the result includes batch `seq` (a path grown
/// one edge a batch: its WCC labels tell which batches are in), later batches catch up on the
/// next read, and stopping with batches still queued returns.
#[test]
fn background_results_wait_for_their_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 400, false, false, &BTreeMap::new());
    let opts = WriteOptions { durability: Durability::None, ..Default::default() };
    let w = WritableGraph::open(&dir, &opts).unwrap();
    let comp = Maintainer::start_background(&w, Spec::Wcc).unwrap();
    let mut seqs = Vec::new();
    for v in 1..400 {
        seqs.push(w.add_edges(&[(v - 1, v)], None).unwrap());
    }
    comp.wait(&w, seqs[99]).unwrap();
    assert!(comp.seq(&w).unwrap() >= seqs[99]);
    let Values::Int(labels) = comp.result(&w).unwrap() else { panic!("wcc labels are integers") };
    assert_eq!(labels, vec![0; 400]);
    assert_eq!(comp.seq(&w).unwrap(), w.last_seq());
    // Removing the middle edge splits the path: vertices 200.. get label 200.
    w.remove_edges(&[(199, 200)]).unwrap();
    let want: Vec<i64> = (0..400).map(|v| if v < 200 { 0 } else { 200 }).collect();
    assert_eq!(comp.result(&w).unwrap(), Values::Int(want));
    // Stopping while batches are queued neither hangs nor applies them afterwards.
    let late = Maintainer::start_background(&w, Spec::Bfs { source: 0 }).unwrap();
    for v in 0..50 {
        w.add_edges(&[(v, v + 300)], None).unwrap();
    }
    late.stop(&w);
    comp.stop(&w);
    w.add_edges(&[(0, 399)], None).unwrap();
}

/// A damping of -0 names the same saved result as 0 (one file per parameter value), and any
/// damping gives a short file name.
#[test]
fn pagerank_results_are_named_by_their_parameters_in_short_names() {
    let dir = std::path::Path::new("g");
    let name = |damping: f64| saved_path(dir, &Spec::PageRank { damping, tol: 1e-6 });
    assert_eq!(name(-0.0), name(0.0));
    assert!(name(0.85).to_string_lossy().ends_with("pagerank-d8.5e-1-tol1e-6.bin"), "{:?}", name(0.85));
    for tiny in [1e-250, 5e-324] {
        let file = name(tiny).file_name().unwrap().len();
        assert!(file < 64, "{:?}", name(tiny));
    }
}

/// PageRank on graphs large enough that most batches fit in the tolerance: a hub losing arcs
/// one at a time and random arcs coming and going leave pending shares across batches (the
/// state's bound takes them in) and across a save and reopen; after every batch the result is
/// within its tolerance of the static kernel, directed or not, weighted or not.
#[test]
fn pagerank_batches_within_the_tolerance_stay_within_it() {
    let spec = Spec::PageRank { damping: 0.85, tol: 1e-5 };
    for (directed, weighted) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11 + directed as u64 + 2 * weighted as u64);
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let n: u32 = 2000;
        let weight = |rng: &mut Xoshiro256PlusPlus| if weighted { rng.gen_range(1..4) as f32 } else { 1.0 };
        let mut edges = BTreeMap::new();
        for v in 1..n {
            edges.insert((0, v), weight(&mut rng));
            if directed && v % 3 == 0 {
                edges.insert((v, 0), weight(&mut rng));
            }
        }
        for _ in 0..2 * n {
            let (u, v) = (rng.gen_range(1..n), rng.gen_range(1..n));
            edges.insert(if directed { (u, v) } else { (u.min(v), u.max(v)) }, weight(&mut rng));
        }
        build(&dir, n, directed, weighted, &edges);
        let opts = WriteOptions { durability: Durability::None, ..Default::default() };
        let mut w = WritableGraph::open(&dir, &opts).unwrap();
        let mut m = Maintainer::start(&w, spec.clone()).unwrap();
        for round in 0..40 {
            let mut items = vec![WalItem::RemoveEdge { src: 0, dst: 1 + round }];
            for _ in 0..4 {
                let (src, dst) = (rng.gen_range(1..n), rng.gen_range(1..n));
                items.push(WalItem::AddEdge { src, dst, weight: weight(&mut rng) });
            }
            let (src, dst) = *edges.keys().nth(rng.gen_range(n as usize..edges.len())).unwrap();
            items.push(WalItem::RemoveEdge { src, dst });
            if weighted {
                items.push(WalItem::SetWeight { src: 0, dst: 500 + round, weight: weight(&mut rng) });
            }
            w.update(&items).unwrap();
            let what = format!("directed {directed} weighted {weighted} after batch {round}");
            check(&spec, &m.result(&w).unwrap(), &w.snapshot(), &what).unwrap();
            if round == 20 {
                m.save(&w).unwrap();
                w.close().unwrap();
                w = WritableGraph::open(&dir, &opts).unwrap();
                m = Maintainer::start(&w, spec.clone()).unwrap();
                assert!(m.loaded(), "{what}: the saved result is current");
                check(&spec, &m.result(&w).unwrap(), &w.snapshot(), &what).unwrap();
            }
        }
    }
}
