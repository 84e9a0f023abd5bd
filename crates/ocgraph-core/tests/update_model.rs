//! WritableGraph against a brute-force model: random update sequences (edges, weights,
//! vertices, freeze, compact, reopen), checked vertex by vertex from snapshots, including
//! snapshots taken before later updates.

use std::collections::BTreeMap;
use std::path::Path;

use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::page::pool::WriteBack;
use ocgraph_core::page::BackendKind;
use ocgraph_core::update::{
    DeltaKind, Durability, PagedDeltaOptions, Snapshot, WritableGraph, WriteOptions, DELTA_DIR,
};
use ocgraph_core::{Adjacency, Vertex};
use proptest::prelude::*;

/// The brute-force model: the edge set of a simple graph.
#[derive(Clone, Debug)]
struct Model {
    n: u32,
    directed: bool,
    weighted: bool,
    edges: BTreeMap<(Vertex, Vertex), f32>,
}

impl Model {
    fn key(&self, u: Vertex, v: Vertex) -> (Vertex, Vertex) {
        if self.directed || u <= v {
            (u, v)
        } else {
            (v, u)
        }
    }

    /// Arcs of side 0 (out) or 1 (in) of `v`, sorted.
    fn list(&self, side: usize, v: Vertex) -> (Vec<Vertex>, Vec<f32>) {
        let mut l: Vec<(Vertex, f32)> = Vec::new();
        for (&(a, b), &w) in &self.edges {
            if self.directed {
                if side == 0 && a == v {
                    l.push((b, w));
                }
                if side == 1 && b == v {
                    l.push((a, w));
                }
            } else if a == v {
                l.push((b, w));
            } else if b == v {
                l.push((a, w));
            }
        }
        l.sort_by_key(|e| e.0);
        (l.iter().map(|e| e.0).collect(), l.iter().map(|e| e.1).collect())
    }

    fn apply(&mut self, op: &Op) {
        let n = self.n;
        match op {
            Op::Add(es) => {
                for &(a, b, w) in es {
                    let k = self.key(a as u32 % n, b as u32 % n);
                    self.edges.insert(k, if self.weighted { w as f32 } else { 1.0 });
                }
            }
            Op::Remove(es) => {
                for &(a, b) in es {
                    let k = self.key(a as u32 % n, b as u32 % n);
                    self.edges.remove(&k);
                }
            }
            Op::SetWeight(es) => {
                for &(a, b, w) in es {
                    let k = self.key(a as u32 % n, b as u32 % n);
                    if let Some(x) = self.edges.get_mut(&k) {
                        *x = w as f32;
                    }
                }
            }
            Op::AddVertices(k) => self.n += *k as u32,
            Op::RemoveVertices(vs) => {
                for &v in vs {
                    let v = v as u32 % n;
                    self.edges.retain(|&(a, b), _| a != v && b != v);
                }
            }
            _ => {}
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Add(Vec<(u8, u8, u8)>),
    Remove(Vec<(u8, u8)>),
    SetWeight(Vec<(u8, u8, u8)>),
    AddVertices(u8),
    RemoveVertices(Vec<u8>),
    Snapshot,
    Freeze,
    Compact,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => prop::collection::vec((any::<u8>(), any::<u8>(), 1u8..9), 0..12).prop_map(Op::Add),
        3 => prop::collection::vec((any::<u8>(), any::<u8>()), 0..8).prop_map(Op::Remove),
        2 => prop::collection::vec((any::<u8>(), any::<u8>(), 1u8..9), 0..8).prop_map(Op::SetWeight),
        1 => (0u8..4).prop_map(Op::AddVertices),
        1 => prop::collection::vec(any::<u8>(), 0..3).prop_map(Op::RemoveVertices),
        2 => Just(Op::Snapshot),
        1 => Just(Op::Freeze),
        1 => Just(Op::Compact),
        1 => Just(Op::Reopen),
    ]
}

/// Builds the model's graph; with `multigraph`, every edge is pushed twice (the second copy
/// reversed on undirected graphs) and kept twice (no `dedup`), as `import` without `--dedup`
/// does with repeated lines.
fn build_base(dir: &Path, m: &Model, multigraph: bool) {
    let o = BuildOptions { directed: m.directed, weighted: m.weighted, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(dir, o).unwrap();
    b.reserve_vertices(m.n as u64);
    let s: Vec<u32> = m.edges.keys().map(|e| e.0).collect();
    let d: Vec<u32> = m.edges.keys().map(|e| e.1).collect();
    let w: Vec<f32> = m.edges.values().copied().collect();
    b.push(&s, &d, Some(&w)).unwrap();
    if multigraph {
        let (s2, d2) = if m.directed { (&s, &d) } else { (&d, &s) };
        b.push(s2, d2, Some(&w)).unwrap();
    }
    b.finish(IdMap::Identity, &NoProgress).unwrap();
}

fn check(snap: &Snapshot, m: &Model) -> Result<(), TestCaseError> {
    prop_assert_eq!(snap.num_vertices(), m.n as usize);
    prop_assert_eq!(snap.num_edges(), m.edges.len() as u64);
    for side in 0..2 {
        let dir = if side == 0 { snap.out() } else { snap.in_() };
        // Single arcs first, while the snapshot reads its layers one by one (the reads below
        // build its overlay of the deltas).
        let targets: Vec<Vertex> = (0..m.n).collect();
        let mut got = Vec::new();
        for v in 0..m.n {
            let (ns, ws) = m.list(side, v);
            dir.arc_weights_to(v, &targets, &mut got);
            let want: Vec<Option<f32>> = targets
                .iter()
                .map(|y| ns.iter().position(|x| x == y).map(|i| if m.weighted { ws[i] } else { 1.0 }))
                .collect();
            prop_assert_eq!(&got, &want, "arcs of {} side {} seq {}", v, side, snap.seq());
        }
        let mut arcs = 0;
        for v in 0..m.n {
            let (ns, ws) = m.list(side, v);
            prop_assert_eq!(&dir.neighbors(v)[..], &ns[..], "side {} vertex {} seq {}", side, v, snap.seq());
            prop_assert_eq!(dir.degree(v), ns.len());
            if m.weighted {
                prop_assert_eq!(&dir.weights(v).unwrap()[..], &ws[..], "weights of {}", v);
            } else {
                prop_assert!(dir.weights(v).is_none());
            }
            arcs += ns.len() as u64;
        }
        prop_assert_eq!(dir.num_arcs(), arcs);
        // Range scans (used by the kernels) agree with per-vertex reads, over split ranges too.
        let mut seen = Vec::new();
        let mid = m.n / 2;
        for r in [0..mid, mid..m.n] {
            dir.for_each_weighted_in_range(r, |v, ns, ws| seen.push((v, ns.to_vec(), ws.to_vec())));
        }
        prop_assert_eq!(seen.len(), m.n as usize);
        for (v, ns, ws) in seen {
            let (ens, ews) = m.list(side, v);
            prop_assert_eq!(ns, ens, "scan of vertex {}", v);
            if m.weighted {
                prop_assert_eq!(ws, ews);
            } else {
                prop_assert!(ws.iter().all(|&w| w == 1.0));
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run(
    directed: bool,
    weighted: bool,
    base: Vec<(u8, u8, u8)>,
    n: u8,
    ops: Vec<Op>,
    auto: bool,
    pool: bool,
    delta: DeltaKind,
    multigraph: bool,
) -> Result<(), TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let mut m = Model { n: n as u32, directed, weighted, edges: BTreeMap::new() };
    m.apply(&Op::Add(base));
    build_base(&dir, &m, multigraph);
    let opts = WriteOptions {
        durability: Durability::None,
        // A paged delta needs a few pages of blocks to outgrow its 2 or 3 frames.
        freeze_threshold: if matches!(delta, DeltaKind::Paged(_)) { 48 << 10 } else { 3000 },
        auto_compact_levels: auto.then_some(2),
        backend: if pool {
            BackendKind::Pool { capacity: 16 * 4096, page_size: 4096, policy: "clock".into() }
        } else {
            BackendKind::default()
        },
        delta,
        ..WriteOptions::default()
    };
    let mut g = WritableGraph::open(&dir, &opts).unwrap();
    let mut kept: Vec<(Snapshot, Model)> = Vec::new();
    for op in &ops {
        let n = m.n;
        let e = |a: u8, b: u8| (a as u32 % n, b as u32 % n);
        match op {
            Op::Add(es) => {
                let edges: Vec<_> = es.iter().map(|&(a, b, _)| e(a, b)).collect();
                let ws: Vec<f32> = es.iter().map(|x| x.2 as f32).collect();
                g.add_edges(&edges, weighted.then_some(&ws[..])).unwrap();
            }
            Op::Remove(es) => {
                let edges: Vec<_> = es.iter().map(|&(a, b)| e(a, b)).collect();
                g.remove_edges(&edges).unwrap();
            }
            Op::SetWeight(es) if weighted => {
                let edges: Vec<_> = es.iter().map(|&(a, b, _)| e(a, b)).collect();
                let ws: Vec<f32> = es.iter().map(|x| x.2 as f32).collect();
                g.set_edge_weights(&edges, &ws).unwrap();
            }
            Op::SetWeight(_) => continue,
            Op::AddVertices(k) => {
                let r = g.add_vertices(*k as u32).unwrap();
                prop_assert_eq!(r, n..n + *k as u32);
            }
            Op::RemoveVertices(vs) => {
                let ids: Vec<u32> = vs.iter().map(|&v| v as u32 % n).collect();
                g.remove_vertices(&ids).unwrap();
            }
            Op::Snapshot => kept.push((g.snapshot(), m.clone())),
            Op::Freeze => g.freeze().unwrap(),
            Op::Compact => g.compact().unwrap(),
            Op::Reopen => {
                g.close().unwrap();
                g = WritableGraph::open(&dir, &opts).unwrap();
            }
        }
        m.apply(op);
        check(&g.snapshot(), &m)?;
    }
    for (s, model) in &kept {
        check(s, model)?;
    }
    g.close().unwrap();
    let g = WritableGraph::open(&dir, &opts).unwrap();
    // Reopening empties the delta directory: only the new delta's files (out, and in when
    // directed) are there.
    let scratch = std::fs::read_dir(dir.join(DELTA_DIR)).map_or(0, |d| d.count());
    let paged = matches!(opts.delta, DeltaKind::Paged(_));
    prop_assert_eq!(
        scratch,
        if !paged {
            0
        } else if directed {
            2
        } else {
            1
        }
    );
    check(&g.snapshot(), &m)?;
    g.compact().unwrap();
    check(&g.snapshot(), &m)?;
    let updated = g.last_seq() > 0;
    g.close().unwrap();
    // A plain read-only open sees the compacted base (a multigraph never updated is not
    // compacted and keeps its repeated arcs).
    let plain = ocgraph_core::Graph::open(&dir, &Default::default()).unwrap();
    prop_assert_eq!(plain.num_vertices(), m.n as usize);
    if updated || !multigraph {
        prop_assert_eq!(plain.num_edges(), m.edges.len() as u64);
    }
    // The compacted base records its weights' range when they are all non-negative (which
    // `check_graph` compares with the weights).
    if updated && weighted {
        let range = plain.manifest().weight_range;
        prop_assert_eq!(range.is_some(), m.edges.values().all(|&w| w >= 0.0));
    }
    ocgraph_core::format::check_graph(&dir).unwrap();
    Ok(())
}

/// The in-memory delta, or a paged delta in a pool of 2 or 3 frames (so its pages are written
/// back and read again) with either write-back mode.
fn delta_kind() -> impl Strategy<Value = DeltaKind> {
    prop_oneof![
        Just(DeltaKind::Memory),
        (2u64..4, any::<bool>()).prop_map(|(frames, batch)| DeltaKind::Paged(PagedDeltaOptions {
            max_bytes: 1 << 20,
            capacity: frames * 4096,
            page_size: 4096,
            policy: "clock".into(),
            write_back: if batch { WriteBack::Batch } else { WriteBack::SinglePage },
        })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn updates_match_the_model(
        directed in any::<bool>(),
        weighted in any::<bool>(),
        n in 1u8..24,
        base in prop::collection::vec((any::<u8>(), any::<u8>(), 1u8..9), 0..40),
        ops in prop::collection::vec(op(), 1..40),
        auto in any::<bool>(),
        pool in any::<bool>(),
        delta in delta_kind(),
    ) {
        run(directed, weighted, base, n, ops, auto, pool, delta, false)?;
    }

    /// A base holding every edge twice (imported without `--dedup`) reads as a simple graph
    /// once opened for updates: removing an edge removes both copies, adding an existing edge
    /// replaces both, removing a vertex removes every copy, and lists hold each neighbour once.
    #[test]
    fn a_multigraph_base_updates_as_a_simple_graph(
        directed in any::<bool>(),
        weighted in any::<bool>(),
        n in 1u8..24,
        base in prop::collection::vec((any::<u8>(), any::<u8>(), 1u8..9), 0..40),
        ops in prop::collection::vec(op(), 1..30),
        pool in any::<bool>(),
    ) {
        run(directed, weighted, base, n, ops, false, pool, DeltaKind::Memory, true)?;
    }
}

/// Hundreds of updates over 200 vertices (about 25 pages of delta blocks per side) with a
/// paged delta in a pool of 2 frames, in both write-back modes: pages are written back and
/// read again, and every snapshot still equals the model.
#[test]
fn a_paged_delta_larger_than_its_pool_matches_the_model() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    let mut ops = Vec::new();
    for i in 0..24 {
        let es = (0..60).map(|_| (rng.gen_range(0..200), rng.gen(), rng.gen_range(1..9))).collect();
        ops.push(Op::Add(es));
        if i % 3 == 2 {
            ops.push(Op::Remove((0..30).map(|_| (rng.gen_range(0..200), rng.gen())).collect()));
            ops.push(Op::RemoveVertices(vec![rng.gen()]));
            ops.push(Op::Snapshot);
        }
    }
    ops.push(Op::Reopen);
    for mode in [WriteBack::Batch, WriteBack::SinglePage] {
        let delta = DeltaKind::Paged(PagedDeltaOptions {
            max_bytes: 4 << 20,
            capacity: 2 * 4096,
            page_size: 4096,
            policy: "clock".into(),
            write_back: mode,
        });
        run(true, true, Vec::new(), 200, ops.clone(), false, false, delta, false).unwrap();
    }
}

#[test]
fn bad_arguments_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let m = Model { n: 4, directed: true, weighted: false, edges: BTreeMap::new() };
    build_base(&dir, &m, false);
    let g = WritableGraph::open(&dir, &WriteOptions::default()).unwrap();
    let e = g.add_edges(&[(0, 1), (2, 9)], None).unwrap_err().to_string();
    assert!(e.contains("vertex 9 out of range") && e.contains("item 1"), "{e}");
    let e = g.add_edges(&[(0, 1)], Some(&[2.0])).unwrap_err().to_string();
    assert!(e.contains("unweighted"), "{e}");
    let e = g.remove_vertices(&[4]).unwrap_err().to_string();
    assert!(e.contains("vertex 4 out of range"), "{e}");
    assert_eq!(g.last_seq(), 0, "rejected batches are not logged");
    assert_eq!(g.add_edges(&[(0, 1)], None).unwrap(), 1);
    assert_eq!(g.add_vertices(2).unwrap(), 4..6);
    assert_eq!(g.add_edges(&[(5, 4)], None).unwrap(), 3);
    let s = g.snapshot();
    assert_eq!(&s.out().neighbors(5)[..], &[4]);
    assert_eq!(&s.in_().neighbors(1)[..], &[0]);
    g.close().unwrap();
    let small = WriteOptions {
        freeze_threshold: 1 << 20,
        delta: DeltaKind::Paged(PagedDeltaOptions { max_bytes: 1 << 20, ..PagedDeltaOptions::default() }),
        ..WriteOptions::default()
    };
    let e = WritableGraph::open(&dir, &small).err().unwrap().to_string();
    assert!(e.contains("cannot hold the freeze threshold"), "{e}");
}

/// A batch that does not fit in the paged delta's file is never half applied: the delta is
/// frozen first when that makes room, and a batch larger than an empty delta is refused
/// before it is logged, leaving the graph usable.
#[test]
fn a_full_paged_delta_freezes_first_or_refuses_the_whole_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let mut m = Model { n: 64, directed: true, weighted: false, edges: BTreeMap::new() };
    build_base(&dir, &m, false);
    // 16 blocks of 256 bytes: a batch of more than 16 operations per side cannot fit.
    let delta = DeltaKind::Paged(PagedDeltaOptions {
        max_bytes: 4096,
        capacity: 2 * 4096,
        page_size: 4096,
        policy: "clock".into(),
        write_back: WriteBack::Batch,
    });
    let opts = WriteOptions {
        durability: Durability::None,
        freeze_threshold: 2048,
        auto_compact_levels: None,
        delta,
        ..WriteOptions::default()
    };
    let g = WritableGraph::open(&dir, &opts).unwrap();
    let mut seq = 0;
    for round in 0..6u32 {
        // 10 operations per side: the second batch in a row does not fit until a freeze.
        let edges: Vec<(u32, u32)> = (0..10).map(|i| (round * 10 % 64 + i, (i * 7 + round) % 64)).collect();
        seq = g.add_edges(&edges, None).unwrap();
        m.apply(&Op::Add(edges.iter().map(|&(a, b)| (a as u8, b as u8, 1)).collect()));
    }
    assert!(g.num_levels() >= 2, "full deltas were frozen: {} levels", g.num_levels());
    let too_big: Vec<(u32, u32)> = (0..40).map(|i| (i, i + 1)).collect();
    let e = g.add_edges(&too_big, None).unwrap_err().to_string();
    assert!(e.contains("does not fit") && e.contains("max_bytes"), "{e}");
    assert_eq!(g.last_seq(), seq, "the refused batch was not logged");
    check(&g.snapshot(), &m).unwrap();
    // Still usable, and a reopen replays exactly the accepted batches.
    g.add_edges(&[(1, 2)], None).unwrap();
    m.apply(&Op::Add(vec![(1, 2, 1)]));
    g.close().unwrap();
    let g = WritableGraph::open(&dir, &opts).unwrap();
    check(&g.snapshot(), &m).unwrap();
}
