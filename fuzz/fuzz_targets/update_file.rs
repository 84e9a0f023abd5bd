//! Binary update files (`ocgraph stream --updates`, `update_file_items`) and the batches they
//! make: the first byte is a mode, the rest the file (its magic prepended unless mode bit 0 is
//! set). Parsing ends in an error or items that re-encode to the file; the items are then
//! committed through `WritableGraph::update` to a copy of a small simple graph, in batches
//! (mode bits 4..8 pick the batch size), with vertex ids folded into range unless mode bit 1
//! is set, and a tiny freeze threshold when mode bit 2 is set (so levels are frozen). After
//! every batch the snapshot must equal a reference model (arcs, weights, in-lists, labels, the
//! vertex count; a refused batch changes nothing), and again after a close and a reopen (WAL
//! replay and levels).
#![no_main]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::update::wal_frame::ITEM_LEN;
use ocgraph_core::update::{
    update_file_items, Durability, Snapshot, WalItem, WritableGraph, WriteOptions, UPDATE_FILE_MAGIC,
};
use ocgraph_core::Adjacency;

const N: u32 = 12;
/// Batches that would grow the graph past this many vertices are skipped (not committed).
const MAX_OBSERVED: u64 = 1 << 16;

/// A directed weighted simple graph of [`N`] vertices: arcs `i -> (3i + 1) % N`, `i -> (5i + 2) % N`.
fn simple_graph() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::scratch().join("update-base");
        let opts = BuildOptions { weighted: true, ..BuildOptions::default() };
        let mut b = GraphBuilder::new(&dir, opts).expect("builder");
        let (mut s, mut d, mut w) = (Vec::new(), Vec::new(), Vec::new());
        for (x, y) in initial_arcs() {
            s.push(x);
            d.push(y);
            w.push((x * 100 + y) as f32);
        }
        b.push(&s, &d, Some(&w)).expect("push");
        b.finish(IdMap::Identity, &NoProgress).expect("build");
        dir
    })
}

fn initial_arcs() -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = (0..N).flat_map(|i| [(i, (3 * i + 1) % N), (i, (5 * i + 2) % N)]).collect();
    v.sort();
    v.dedup();
    v
}

#[derive(Clone, Debug, PartialEq)]
struct Model {
    n: u64,
    arcs: BTreeMap<(u32, u32), u32>, // weight bits
    labels: BTreeMap<u32, u32>,
}

impl Model {
    fn initial() -> Model {
        let arcs =
            initial_arcs().into_iter().map(|(x, y)| ((x, y), ((x * 100 + y) as f32).to_bits())).collect();
        Model { n: N as u64, arcs, labels: BTreeMap::new() }
    }

    /// Applies a batch; `None` when some vertex is out of range (as the batch is then refused).
    fn apply(&self, items: &[WalItem]) -> Option<Model> {
        let mut m = self.clone();
        for it in items {
            let ok = |v: u32, m: &Model| (v as u64) < m.n;
            match *it {
                WalItem::AddEdge { src, dst, weight } => {
                    if !ok(src, &m) || !ok(dst, &m) {
                        return None;
                    }
                    m.arcs.insert((src, dst), weight.to_bits());
                }
                WalItem::RemoveEdge { src, dst } => {
                    if !ok(src, &m) || !ok(dst, &m) {
                        return None;
                    }
                    m.arcs.remove(&(src, dst));
                }
                WalItem::SetWeight { src, dst, weight } => {
                    if !ok(src, &m) || !ok(dst, &m) {
                        return None;
                    }
                    if let Some(w) = m.arcs.get_mut(&(src, dst)) {
                        *w = weight.to_bits();
                    }
                }
                WalItem::AddVertices { count } => m.n += count as u64,
                WalItem::RemoveVertex { v } => {
                    if !ok(v, &m) {
                        return None;
                    }
                    m.arcs.retain(|&(a, b), _| a != v && b != v);
                }
                WalItem::SetLabel { v, label } => {
                    if !ok(v, &m) {
                        return None;
                    }
                    m.labels.insert(v, label);
                }
            }
        }
        if m.n > u32::MAX as u64 {
            return None;
        }
        Some(m)
    }
}

/// The snapshot as a model (labels: those that are not `NO_LABEL`).
fn observe(s: &Snapshot) -> Model {
    let n = s.num_vertices() as u64;
    let out = s.out();
    let inn = s.in_();
    let mut arcs = BTreeMap::new();
    let mut rev = Vec::new();
    for v in 0..n as u32 {
        let nb = out.neighbors(v);
        assert_eq!(nb.len(), out.degree(v), "out degree of {v}");
        let w = out.weights(v).expect("weighted");
        assert_eq!(w.len(), nb.len());
        for (i, &d) in nb.iter().enumerate() {
            assert!(arcs.insert((v, d), w[i].to_bits()).is_none(), "arc {v}->{d} listed twice");
        }
        for &u in inn.neighbors(v).iter() {
            rev.push((u, v));
        }
    }
    rev.sort();
    let fwd: Vec<(u32, u32)> = arcs.keys().copied().collect();
    assert_eq!(rev, fwd, "in-lists are not the transpose of the out-lists");
    let labels = (0..n as u32).filter_map(|v| Some((v, s.label(v))).filter(|x| x.1 != NO_LABEL)).collect();
    Model { n, arcs, labels }
}

/// Labels set to `NO_LABEL` are not kept in the observed model.
fn normalise(mut m: Model) -> Model {
    m.labels.retain(|_, l| *l != NO_LABEL);
    m
}

/// An item's 13 bytes as docs/design.md lays them out: op, a, b (u32 LE), weight (f32 LE).
fn encode(it: &WalItem, out: &mut Vec<u8>) {
    let (op, a, b, w) = match *it {
        WalItem::AddEdge { src, dst, weight } => (1u8, src, dst, weight),
        WalItem::RemoveEdge { src, dst } => (2, src, dst, 0.0),
        WalItem::SetWeight { src, dst, weight } => (3, src, dst, weight),
        WalItem::AddVertices { count } => (4, count, 0, 0.0),
        WalItem::RemoveVertex { v } => (5, v, 0, 0.0),
        WalItem::SetLabel { v, label } => (6, v, label, 0.0),
    };
    out.push(op);
    out.extend_from_slice(&a.to_le_bytes());
    out.extend_from_slice(&b.to_le_bytes());
    out.extend_from_slice(&w.to_le_bytes());
}

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    static WORK: OnceLock<Mutex<common::Workdir>> = OnceLock::new();
    let Some((&mode, rest)) = data.split_first() else { return };
    let mut file = Vec::new();
    if mode & 1 == 0 {
        file.extend_from_slice(UPDATE_FILE_MAGIC);
    }
    file.extend_from_slice(rest);
    let path = std::path::Path::new("fuzz-updates.bin");
    let Ok(items) = update_file_items(path, &file) else { return };
    // Offsets and a re-encoding that reads back the same.
    let mut again = UPDATE_FILE_MAGIC.to_vec();
    for (i, (off, it)) in items.iter().enumerate() {
        assert_eq!(*off, 8 + (i * ITEM_LEN) as u64);
        encode(it, &mut again);
    }
    let back = update_file_items(path, &again).expect("re-encoded items read back");
    let mut third = UPDATE_FILE_MAGIC.to_vec();
    back.iter().for_each(|(_, it)| encode(it, &mut third));
    assert_eq!(again, third);

    // Apply.
    let mut work = WORK
        .get_or_init(|| Mutex::new(common::Workdir::new(simple_graph(), common::scratch().join("update"))))
        .lock()
        .expect("workdir");
    let dir = work.reset().to_path_buf();
    let mut opts =
        WriteOptions { durability: Durability::None, auto_compact_levels: None, ..WriteOptions::default() };
    if mode & 4 != 0 {
        opts.freeze_threshold = 64;
    }
    let per_batch = ((mode >> 4) as usize) + 1;
    let mut model = Model::initial();
    {
        let g = WritableGraph::open(&dir, &opts).expect("open writable");
        assert_eq!(observe(&g.snapshot()), model);
        let mut n = model.n as u32;
        let mut items: Vec<WalItem> = items.into_iter().map(|(_, it)| it).collect();
        for chunk in items.chunks_mut(per_batch) {
            if mode & 2 == 0 {
                // Fold ids into range (one past the end now and then).
                let fold = |v: &mut u32, n: u32| *v %= n + 1;
                for it in chunk.iter_mut() {
                    match it {
                        WalItem::AddEdge { src, dst, .. }
                        | WalItem::RemoveEdge { src, dst }
                        | WalItem::SetWeight { src, dst, .. } => {
                            fold(src, n);
                            fold(dst, n);
                        }
                        WalItem::RemoveVertex { v } | WalItem::SetLabel { v, .. } => fold(v, n),
                        WalItem::AddVertices { count } => {
                            *count %= 5;
                            n += *count;
                        }
                    }
                }
            }
            let expected = model.apply(chunk);
            if expected.as_ref().is_some_and(|m| m.n > MAX_OBSERVED) {
                continue; // unfolded vertex counts: every check below walks every vertex
            }
            let before = observe(&g.snapshot());
            match g.update(chunk) {
                Ok(_) => {
                    let got = observe(&g.snapshot());
                    let want =
                        expected.unwrap_or_else(|| panic!("batch {chunk:?} accepted, the model refuses it"));
                    assert_eq!(got, normalise(want.clone()), "after batch {chunk:?}");
                    model = want;
                }
                Err(e) => {
                    assert_eq!(observe(&g.snapshot()), before, "a refused batch changed the graph");
                    let finite = chunk.iter().all(|it| match it {
                        WalItem::AddEdge { weight, .. } | WalItem::SetWeight { weight, .. } => {
                            weight.is_finite()
                        }
                        _ => true,
                    });
                    assert!(expected.is_none() || !finite, "batch {chunk:?} refused: {e}");
                }
            }
            n = model.n as u32;
        }
        g.close().expect("close");
    }
    let g = WritableGraph::open(&dir, &opts).expect("reopen writable");
    assert_eq!(observe(&g.snapshot()), normalise(model), "after a close and a reopen");
    g.close().expect("close");
});
