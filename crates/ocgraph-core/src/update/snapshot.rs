//! [`Snapshot`]: a consistent, immutable view of a writable graph as of one batch sequence
//! number: the base CSR, the levels that existed when it was taken, and the delta read `upto`
//! its sequence number. Later updates, freezes and compactions never change what it returns
//! (it holds its own `Arc`s to the base, the levels and the delta; files replaced by a
//! compaction stay readable while open).

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use super::delta::{fold_ops, ArcOp, DeltaLog};
use super::level::Level;
use crate::graph::{Adjacency, Direction, Graph, Slice, Vertex};

/// What a snapshot reads (also the writer's view of its current state).
#[derive(Clone)]
pub(crate) struct View {
    pub base: Arc<Graph>,
    /// Levels, oldest first.
    pub levels: Arc<Vec<Arc<Level>>>,
    /// Deltas being frozen into a level (oldest first), read between the levels and `delta`.
    pub frozen: Vec<[Arc<dyn DeltaLog>; 2]>,
    /// The out-side delta and (directed graphs) the in-side delta.
    pub delta: [Arc<dyn DeltaLog>; 2],
    /// Batches `<= upto` are visible.
    pub upto: u64,
    pub num_vertices: u64,
}

impl View {
    fn side(&self, side: usize) -> usize {
        if self.base.is_directed() {
            side
        } else {
            0
        }
    }

    fn base_dir(&self, side: usize) -> Direction<'_> {
        if side == 0 {
            self.base.out()
        } else {
            self.base.in_()
        }
    }

    /// The base list of `v` (empty for vertices added after the base).
    pub(crate) fn base_list(&self, side: usize, v: Vertex) -> (Slice<'_, Vertex>, Option<Slice<'_, f32>>) {
        if (v as usize) >= self.base.num_vertices() {
            return (Slice::from_slice(&[]), self.base.is_weighted().then(|| Slice::from_slice(&[])));
        }
        let d = self.base_dir(side);
        let (a, b) = (d.offset_at(v as u64), d.offset_at(v as u64 + 1));
        (d.arcs(a, b), d.arc_weights(a, b))
    }

    /// The net changes to `v`'s list over the base (sorted by dst), or `None` when untouched.
    pub(crate) fn changes(&self, side: usize, v: Vertex) -> Option<Vec<(Vertex, ArcOp)>> {
        let side = self.side(side);
        let mut ops = Vec::new();
        for level in self.levels.iter() {
            level.ops(side, v, &mut ops);
        }
        for f in &self.frozen {
            f[side].ops(v, self.upto, &mut ops).expect("delta read failed");
        }
        self.delta[side].ops(v, self.upto, &mut ops).expect("delta read failed");
        (!ops.is_empty()).then(|| fold_ops(&ops))
    }

    /// `v`'s merged list (neighbours, weights) when touched; `None` when it equals the base list.
    pub(crate) fn merged(&self, side: usize, v: Vertex) -> Option<(Vec<Vertex>, Vec<f32>)> {
        let changes = self.changes(side, v)?;
        let (nb, wb) = self.base_list(self.side(side), v);
        Some(merge(&nb, wb.as_deref(), &changes))
    }

    /// Every vertex touched by a level or the visible delta on `side`, ascending.
    pub(crate) fn touched(&self, side: usize) -> Vec<Vertex> {
        let side = self.side(side);
        let mut t = self.delta[side].touched(self.upto);
        for f in &self.frozen {
            t.extend(f[side].touched(self.upto));
        }
        for level in self.levels.iter() {
            t.extend(level.touched(side));
        }
        t.sort_unstable();
        t.dedup();
        t
    }
}

/// Applies `changes` (sorted by dst, one per dst) to the base list `nb` (weights `wb`, all 1.0
/// when `None`).
fn merge(nb: &[Vertex], wb: Option<&[f32]>, changes: &[(Vertex, ArcOp)]) -> (Vec<Vertex>, Vec<f32>) {
    let weight = |i: usize| wb.map_or(1.0, |w| w[i]);
    let (mut ns, mut ws) = (Vec::with_capacity(nb.len()), Vec::with_capacity(nb.len()));
    let (mut i, mut j) = (0, 0);
    while i < nb.len() || j < changes.len() {
        let take_base = j == changes.len() || (i < nb.len() && nb[i] < changes[j].0);
        if take_base {
            ns.push(nb[i]);
            ws.push(weight(i));
            i += 1;
            continue;
        }
        let (d, op) = changes[j];
        if i < nb.len() && nb[i] == d {
            i += 1;
        }
        if let ArcOp::Add(w) = op {
            ns.push(d);
            ws.push(w);
        }
        j += 1;
    }
    (ns, ws)
}

/// Arc and self-loop counts of one side.
#[derive(Clone, Copy)]
struct Counts {
    arcs: u64,
    loops: u64,
}

struct Inner {
    view: View,
    counts: [OnceLock<Counts>; 2],
}

/// A consistent read-only view of a writable graph (cheap to clone: an `Arc`).
///
/// [`Snapshot::out`] and [`Snapshot::in_`] implement [`Adjacency`], so every kernel runs on it.
/// Untouched vertices return the base CSR slice without copying; updated ones an owned merged
/// list (sorted, one entry per neighbour).
#[derive(Clone)]
pub struct Snapshot {
    inner: Arc<Inner>,
}

impl Snapshot {
    pub(crate) fn new(view: View) -> Snapshot {
        Snapshot { inner: Arc::new(Inner { view, counts: [OnceLock::new(), OnceLock::new()] }) }
    }

    /// The sequence number of the last batch visible in this snapshot.
    pub fn seq(&self) -> u64 {
        self.inner.view.upto
    }

    /// Number of vertices (ids `0..n`, removed vertices included with degree 0).
    pub fn num_vertices(&self) -> usize {
        self.inner.view.num_vertices as usize
    }

    /// Whether the graph is directed.
    pub fn is_directed(&self) -> bool {
        self.inner.view.base.is_directed()
    }

    /// Whether arcs carry weights.
    pub fn is_weighted(&self) -> bool {
        self.inner.view.base.is_weighted()
    }

    /// The base graph under the levels (its page backend serves the base CSR).
    pub fn base(&self) -> &Graph {
        &self.inner.view.base
    }

    /// Number of levels under this snapshot.
    pub fn num_levels(&self) -> usize {
        self.inner.view.levels.len()
    }

    /// Number of edges as the user sees them (an undirected edge counts once).
    pub fn num_edges(&self) -> u64 {
        let c = self.counts(0);
        if self.is_directed() {
            c.arcs
        } else {
            (c.arcs - c.loops) / 2 + c.loops
        }
    }

    /// Out-edges (for undirected graphs: all incident edges).
    pub fn out(&self) -> SnapshotDirection<'_> {
        SnapshotDirection { snap: &self.inner, side: 0 }
    }

    /// In-edges (for undirected graphs: the same as [`Snapshot::out`]).
    pub fn in_(&self) -> SnapshotDirection<'_> {
        SnapshotDirection { snap: &self.inner, side: if self.is_directed() { 1 } else { 0 } }
    }

    fn counts(&self, side: usize) -> Counts {
        self.inner.counts_of(side)
    }
}

impl Inner {
    /// Computed once per snapshot: the base counts adjusted by every touched vertex.
    fn counts_of(&self, side: usize) -> Counts {
        *self.counts[side].get_or_init(|| {
            let v = &self.view;
            let m = v.base.manifest();
            let base_loops = if m.directed { 0 } else { 2 * m.num_edges - m.num_arcs };
            let (mut arcs, mut loops) = (m.num_arcs as i64, base_loops as i64);
            for u in v.touched(side) {
                let Some((ns, _)) = v.merged(side, u) else { continue };
                let (nb, _) = v.base_list(v.side(side), u);
                arcs += ns.len() as i64 - nb.len() as i64;
                loops += ns.binary_search(&u).is_ok() as i64 - nb.binary_search(&u).is_ok() as i64;
            }
            Counts { arcs: arcs as u64, loops: loops as u64 }
        })
    }
}

/// One direction of a [`Snapshot`]; implements [`Adjacency`].
#[derive(Clone, Copy)]
pub struct SnapshotDirection<'s> {
    snap: &'s Inner,
    side: usize,
}

impl SnapshotDirection<'_> {
    fn check(&self, v: Vertex) {
        assert!((v as u64) < self.snap.view.num_vertices, "vertex {v} out of range");
    }
}

impl Adjacency for SnapshotDirection<'_> {
    fn num_vertices(&self) -> usize {
        self.snap.view.num_vertices as usize
    }

    fn num_arcs(&self) -> u64 {
        self.snap.counts_of(self.side).arcs
    }

    fn degree(&self, v: Vertex) -> usize {
        self.check(v);
        match self.snap.view.merged(self.side, v) {
            Some((ns, _)) => ns.len(),
            None => self.snap.view.base_list(self.side, v).0.len(),
        }
    }

    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex> {
        self.check(v);
        match self.snap.view.merged(self.side, v) {
            Some((ns, _)) => Slice::owned(ns),
            None => self.snap.view.base_list(self.side, v).0,
        }
    }

    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>> {
        self.check(v);
        if !self.is_weighted() {
            return None;
        }
        match self.snap.view.merged(self.side, v) {
            Some((_, ws)) => Some(Slice::owned(ws)),
            None => self.snap.view.base_list(self.side, v).1,
        }
    }

    fn is_weighted(&self) -> bool {
        self.snap.view.base.is_weighted()
    }

    /// Scans the base block by block (see [`Direction`]) and merges the touched vertices'
    /// changes into the scanned lists; vertices added after the base come last.
    fn for_each_in_range<F: FnMut(Vertex, &[Vertex])>(&self, vertices: Range<Vertex>, mut f: F) {
        self.for_each_weighted_in_range(vertices, |v, ns, _| f(v, ns))
    }

    fn for_each_weighted_in_range<F: FnMut(Vertex, &[Vertex], &[f32])>(
        &self,
        vertices: Range<Vertex>,
        mut f: F,
    ) {
        let view = &self.snap.view;
        assert!(
            vertices.end as u64 <= view.num_vertices || vertices.is_empty(),
            "vertex range {vertices:?} out of range"
        );
        let base_end = vertices.end.min(view.base.num_vertices() as Vertex).max(vertices.start);
        let weighted = self.is_weighted();
        view.base_dir(self.side).for_each_weighted_in_range(vertices.start..base_end, |v, ns, ws| match view
            .changes(self.side, v)
        {
            Some(c) => {
                let (mn, mw) = merge(ns, weighted.then_some(ws), &c);
                f(v, &mn, &mw)
            }
            None => f(v, ns, ws),
        });
        for v in base_end..vertices.end {
            let c = view.changes(self.side, v).unwrap_or_default();
            let (mn, mw) = merge(&[], None, &c);
            f(v, &mn, &mw)
        }
    }
}
