//! [`Snapshot`]: a consistent, immutable view of a writable graph as of one batch sequence
//! number: the base CSR, the levels that existed when it was taken, and the delta read `upto`
//! its sequence number. Later updates, freezes and compactions never change what it returns
//! (it holds its own `Arc`s to the base, the levels and the delta; files replaced by a
//! compaction stay readable while open).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use super::delta::{fold_tail, ArcOp, DeltaLog};
use super::label_log::ViewLabels;
use super::level::Level;
use super::level::SideOps;
use crate::graph::{Adjacency, Direction, Graph, Slice, Vertex};
use crate::ids::OriginalId;

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
    /// The base holds some arc more than once (a multigraph imported without `--dedup`):
    /// base lists are read with repeated neighbours collapsed to one (the smallest weight), so that
    /// updates see a simple graph (removing an edge removes every copy).
    pub dedup_base: bool,
    /// Vertex labels: the base's, under the changes of updates.
    pub labels: ViewLabels,
}

impl View {
    /// See [`Snapshot::has_updates`].
    fn has_updates(&self) -> bool {
        !(self.levels.is_empty()
            && self.frozen.is_empty()
            && self.num_vertices == self.base.num_vertices() as u64
            && self.delta.iter().all(|d| d.bytes() == 0 || !d.has_ops_upto(self.upto)))
    }

    /// See [`Snapshot::is_base`].
    fn reads_base(&self) -> bool {
        !self.has_updates() && !self.dedup_base
    }

    /// Bytes the delta holds: both sides of a directed graph, the one side an undirected
    /// graph's two share (counted twice, an undirected graph froze at half the threshold).
    pub(crate) fn delta_bytes(&self) -> u64 {
        let [out, inn] = &self.delta;
        out.bytes() + if Arc::ptr_eq(out, inn) { 0 } else { inn.bytes() }
    }

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
        if (v as usize) >= self.base.num_vertices() || self.base.list_known_empty(side, v) {
            return (Slice::from_slice(&[]), self.base.is_weighted().then(|| Slice::from_slice(&[])));
        }
        let d = self.base_dir(side);
        let r = d.arc_range(v);
        let (ns, ws) = (d.list(v), d.arc_weights(r.start, r.end));
        if self.dedup_base && has_repeats(&ns) {
            let (ns, ws) = dedup_list(&ns, ws.as_deref());
            return (Slice::owned(ns), ws.map(Slice::owned));
        }
        (ns, ws)
    }

    /// The base list of `v` without its weights ([`View::base_list`]'s first half): one page
    /// pinned, not two, for readers of the lists alone.
    pub(crate) fn base_neighbors(&self, side: usize, v: Vertex) -> Slice<'_, Vertex> {
        if (v as usize) >= self.base.num_vertices() || self.base.list_known_empty(side, v) {
            return Slice::from_slice(&[]);
        }
        let ns = self.base_dir(side).list(v);
        if self.dedup_base && has_repeats(&ns) {
            return Slice::owned(dedup_list(&ns, None).0);
        }
        ns
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
        (!ops.is_empty()).then(|| {
            fold_tail(&mut ops, 0);
            ops
        })
    }

    /// The newest change to the arc `v -> y` over the base, if any: looked up layer by layer,
    /// newest first, without folding `v`'s other changes (a hub's are many).
    pub(crate) fn arc_change(&self, side: usize, v: Vertex, y: Vertex) -> Option<ArcOp> {
        let side = self.side(side);
        let deltas = [&self.delta].into_iter().chain(self.frozen.iter().rev());
        for d in deltas {
            if let Some(op) = d[side].arc_op(v, y, self.upto).expect("delta read failed") {
                return Some(op);
            }
        }
        let mut ops = Vec::new();
        for level in self.levels.iter().rev() {
            ops.clear();
            if level.ops(side, v, &mut ops) {
                if let Ok(i) = ops.binary_search_by_key(&y, |o| o.0) {
                    return Some(ops[i].1);
                }
            }
        }
        None
    }

    /// `v`'s merged list (neighbours, weights) when touched; `None` when it equals the base list.
    pub(crate) fn merged(&self, side: usize, v: Vertex) -> Option<(Vec<Vertex>, Vec<f32>)> {
        let changes = self.changes(side, v)?;
        let (nb, wb) = self.base_list(self.side(side), v);
        Some(merge(&nb, wb.as_deref(), &changes))
    }
}

/// Whether the sorted list `ns` holds a neighbour more than once.
fn has_repeats(ns: &[Vertex]) -> bool {
    ns.windows(2).any(|w| w[0] == w[1])
}

/// The sorted list `ns` (weights `ws`) with each neighbour kept once, with the smallest weight
/// of its copies (what `--dedup` keeps at import).
pub(crate) fn dedup_list(ns: &[Vertex], ws: Option<&[f32]>) -> (Vec<Vertex>, Option<Vec<f32>>) {
    let mut out = Vec::with_capacity(ns.len());
    let mut wout = ws.map(|_| Vec::with_capacity(ns.len()));
    for (i, &v) in ns.iter().enumerate() {
        let repeat = out.last() == Some(&v);
        if !repeat {
            out.push(v);
        }
        if let (Some(w), Some(wo)) = (ws, wout.as_mut()) {
            match wo.last_mut() {
                Some(last) if repeat => *last = f32::min(*last, w[i]),
                _ => wo.push(w[i]),
            }
        }
    }
    (out, wout)
}

/// `nb` (weights `wb`) with repeated neighbours collapsed ([`dedup_list`]) into `buf` when
/// `dedup` is set and the list has repeats; else `nb` and `wb` themselves.
fn collapse_repeats<'a>(
    dedup: bool,
    nb: &'a [Vertex],
    wb: Option<&'a [f32]>,
    buf: &'a mut (Vec<Vertex>, Vec<f32>),
) -> (&'a [Vertex], Option<&'a [f32]>) {
    if !(dedup && has_repeats(nb)) {
        return (nb, wb);
    }
    let (n, w) = dedup_list(nb, wb);
    *buf = (n, w.unwrap_or_default());
    (&buf.0, wb.map(|_| &buf.1[..]))
}

/// Applies `changes` (sorted by dst, one per dst) to the base list `nb` (weights `wb`, all 1.0
/// when `None`).
fn merge(nb: &[Vertex], wb: Option<&[f32]>, changes: &[(Vertex, ArcOp)]) -> (Vec<Vertex>, Vec<f32>) {
    let (mut ns, mut ws) = (Vec::with_capacity(nb.len()), Vec::with_capacity(nb.len()));
    merge_into(nb, wb, changes, &mut ns, Some(&mut ws));
    (ns, ws)
}

/// [`merge`] into `ns` and (when given) `ws`, cleared first.
fn merge_into(
    nb: &[Vertex],
    wb: Option<&[f32]>,
    changes: &[(Vertex, ArcOp)],
    ns: &mut Vec<Vertex>,
    mut ws: Option<&mut Vec<f32>>,
) {
    let weight = |i: usize| wb.map_or(1.0, |w| w[i]);
    ns.clear();
    if let Some(ws) = ws.as_deref_mut() {
        ws.clear();
    }
    let (mut i, mut j) = (0, 0);
    while i < nb.len() || j < changes.len() {
        let take_base = j == changes.len() || (i < nb.len() && nb[i] < changes[j].0);
        if take_base {
            // Copy the run of base entries before the next change at once.
            let end = if j == changes.len() {
                nb.len()
            } else {
                i + nb[i..].partition_point(|&x| x < changes[j].0)
            };
            ns.extend_from_slice(&nb[i..end]);
            if let Some(ws) = ws.as_deref_mut() {
                match wb {
                    Some(w) => ws.extend_from_slice(&w[i..end]),
                    None => ws.extend((i..end).map(weight)),
                }
            }
            i = end;
            continue;
        }
        let (d, op) = changes[j];
        if i < nb.len() && nb[i] == d {
            i += 1;
        }
        if let ArcOp::Add(w) = op {
            ns.push(d);
            if let Some(ws) = ws.as_deref_mut() {
                ws.push(w);
            }
        }
        j += 1;
    }
}

/// The length of [`merge`]'s result, without building it.
fn merged_len(nb: &[Vertex], changes: &[(Vertex, ArcOp)]) -> usize {
    let mut len = nb.len();
    for &(d, op) in changes {
        match (nb.binary_search(&d).is_ok(), op) {
            (false, ArcOp::Add(_)) => len += 1,
            (true, ArcOp::Remove) => len -= 1,
            _ => {}
        }
    }
    len
}

/// The folded changes of every touched vertex of one side (levels, frozen deltas and the
/// delta as of the snapshot), built once per snapshot, with a bitmap of the touched vertices
/// and per-word ranks: an untouched vertex costs one bit test, a touched one a popcount.
struct Overlay {
    bits: Vec<u64>,
    /// Number of touched vertices before each word of `bits`.
    rank: Vec<u64>,
    table: SideOps,
}

impl Overlay {
    fn build(view: &View, side: usize) -> Overlay {
        let side = view.side(side);
        // Every layer's folded changes, oldest first.
        let mut layers: Vec<SideOps> = view.levels.iter().map(|l| l.side_ops(side)).collect();
        for delta in view.frozen.iter().map(|f| &f[side]).chain([&view.delta[side]]) {
            let mut t = SideOps::default();
            delta
                .for_each_vertex(view.upto, &mut |v, ops| {
                    t.push_folded(v, ops);
                    Ok(())
                })
                .expect("delta read failed");
            layers.push(t);
        }
        layers.retain(|l| !l.is_empty());
        let table = match layers.len() {
            0 => SideOps::default(),
            1 => layers.pop().expect("one layer"),
            _ => merge_layers(&layers),
        };
        let n = (view.num_vertices as usize).max(table.vertices().last().map_or(0, |&v| v as usize + 1));
        let mut bits = vec![0u64; n.div_ceil(64)];
        for &v in table.vertices() {
            bits[v as usize / 64] |= 1 << (v % 64);
        }
        let mut rank = Vec::with_capacity(bits.len());
        let mut total = 0u64;
        for w in &bits {
            rank.push(total);
            total += w.count_ones() as u64;
        }
        Overlay { bits, rank, table }
    }

    /// The changes of `v` (sorted by dst), or `None` when untouched.
    #[inline]
    fn get(&self, v: Vertex) -> Option<&[(Vertex, ArcOp)]> {
        let (w, b) = (v as usize / 64, v % 64);
        let word = *self.bits.get(w)?;
        if word >> b & 1 == 0 {
            return None;
        }
        let i = self.rank[w] + (word & ((1u64 << b) - 1)).count_ones() as u64;
        Some(self.table.ops_at(i as usize))
    }
}

/// Merges layers (oldest first) vertex by vertex; a newer layer's operation on a dst wins.
fn merge_layers(layers: &[SideOps]) -> SideOps {
    let mut out = SideOps::with_capacity(layers.iter().map(SideOps::len).max().unwrap_or(0));
    let mut pos = vec![0usize; layers.len()];
    let mut scratch = Vec::new();
    loop {
        let next = layers.iter().zip(&pos).filter_map(|(l, &p)| l.vertices().get(p)).min().copied();
        let Some(v) = next else { break };
        scratch.clear();
        let mut sources = 0;
        let mut single: &[(Vertex, ArcOp)] = &[];
        for (l, p) in layers.iter().zip(pos.iter_mut()) {
            if l.vertices().get(*p) == Some(&v) {
                single = l.ops_at(*p);
                scratch.extend_from_slice(single);
                sources += 1;
                *p += 1;
            }
        }
        // One source is already folded and sorted; several fold oldest-first (last wins).
        out.push_folded(v, if sources == 1 { single } else { &scratch });
    }
    out
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
    overlays: [OnceLock<Overlay>; 2],
    /// Point reads per side served without the overlay, and how many may be (see
    /// [`Inner::point_changes`]).
    point_reads: [AtomicU64; 2],
    point_limit: [OnceLock<u64>; 2],
    /// A reader's snapshot: the original ids of the vertices updates added past the base, read
    /// at open (a compaction rewrites `ids.log` for its new base; see [`crate::GraphView`]).
    added_ids: OnceLock<Vec<OriginalId>>,
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
        let (counts, overlays, point_reads, point_limit, added_ids) = Default::default();
        Snapshot { inner: Arc::new(Inner { view, counts, overlays, point_reads, point_limit, added_ids }) }
    }

    /// Keeps `ids` as the original ids of the vertices past the base (once; see
    /// [`Snapshot::added_ids`]).
    pub(crate) fn keep_added_ids(&self, ids: Vec<OriginalId>) {
        let _ = self.inner.added_ids.set(ids);
    }

    /// The original ids of the vertices past the base, when this snapshot keeps them (a
    /// reader's, of a relabelled graph).
    pub(crate) fn added_ids(&self) -> Option<&[OriginalId]> {
        self.inner.added_ids.get().map(Vec::as_slice)
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

    /// The label of vertex `v` in this snapshot ([`NO_LABEL`](crate::labels::NO_LABEL) when
    /// it has none, or is past the vertex count).
    pub fn label(&self, v: Vertex) -> u32 {
        let view = &self.inner.view;
        if v as u64 >= view.num_vertices {
            return crate::labels::NO_LABEL;
        }
        view.labels.label(v, view.upto)
    }

    /// Every vertex's label in this snapshot: the base's labels under the label changes of
    /// the batches it sees (`NO_LABEL` for vertices never labelled); `None` when the base has
    /// no labels and no batch set one; an out-of-memory error where the machine cannot hold
    /// them.
    pub fn labels(&self) -> crate::error::Result<Option<Vec<u32>>> {
        let view = &self.inner.view;
        view.labels.all(view.num_vertices as usize, view.upto)
    }

    /// Whether this snapshot reads exactly its base graph: no level, no batch visible in its
    /// deltas, no vertex added, and a base without repeated arcs (which a snapshot collapses).
    /// Files built from the base alone (its grid) then serve it too. The deltas answer without
    /// listing the vertices they touch ([`DeltaLog::has_ops_upto`]): kernels ask through
    /// [`Adjacency::lists_id`], which a watch's point reads call once per batch.
    pub fn is_base(&self) -> bool {
        self.inner.view.reads_base()
    }

    /// Whether this snapshot sees updates over its base: a level, a batch visible in its
    /// deltas, or an added vertex.
    pub fn has_updates(&self) -> bool {
        self.inner.view.has_updates()
    }

    /// Whether the base holds repeated arcs, which this snapshot reads once each (a graph
    /// opened for updates is simple).
    pub fn collapses_repeats(&self) -> bool {
        self.inner.view.dedup_base
    }

    /// The base graph, shared (to read it alone when [`Snapshot::is_base`]).
    pub fn shared_base(&self) -> Arc<Graph> {
        self.inner.view.base.clone()
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
    /// The overlay of `side` (0 out, 1 in; undirected graphs use 0 for both).
    fn overlay(&self, side: usize) -> &Overlay {
        let side = self.view.side(side);
        self.overlays[side].get_or_init(|| Overlay::build(&self.view, side))
    }

    /// The changes of `v` for a point read (degree, neighbours, weights). Building the overlay
    /// costs a pass over the levels and the delta, too much for a snapshot taken for a few
    /// reads (a maintained result reads the lists of a batch's vertices from the snapshot of
    /// each batch): the first `max(1024, n / 16, operations in the deltas)` point reads look `v`
    /// up layer by layer (a binary search per level, the delta's own array of `v`), later ones
    /// build and use the overlay (as range scans do), so its cost is amortised over at least
    /// as many reads as it has entries.
    fn point_changes(&self, side: usize, v: Vertex) -> Option<Cow<'_, [(Vertex, ArcOp)]>> {
        let s = self.view.side(side);
        if self.point_read(s) {
            return self.view.changes(s, v).map(Cow::Owned);
        }
        self.overlay(s).get(v).map(Cow::Borrowed)
    }

    /// Whether a point read of `side` (already resolved) looks its vertex up layer by layer
    /// (see [`Inner::point_changes`]); counts it.
    fn point_read(&self, s: usize) -> bool {
        if self.overlays[s].get().is_some() {
            return false;
        }
        let limit = *self.point_limit[s].get_or_init(|| {
            let v = &self.view;
            let deltas = v.frozen.iter().map(|f| &f[s]).chain([&v.delta[s]]);
            let delta_ops: u64 = deltas.map(|d| d.bytes() / 16).sum();
            (v.num_vertices / 16).max(1024).max(delta_ops)
        });
        self.point_reads[s].fetch_add(1, Ordering::Relaxed) < limit
    }

    /// The newest change to each arc `v -> y`, `y` in `targets`, into `out`: a point read looks
    /// each arc up layer by layer ([`View::arc_change`]), without folding `v`'s other changes.
    fn arc_changes(&self, side: usize, v: Vertex, targets: &[Vertex], out: &mut Vec<Option<ArcOp>>) {
        out.clear();
        let s = self.view.side(side);
        if self.point_read(s) {
            out.extend(targets.iter().map(|&y| self.view.arc_change(s, v, y)));
            return;
        }
        let changes = self.overlay(s).get(v).unwrap_or_default();
        out.extend(
            targets.iter().map(|&y| changes.binary_search_by_key(&y, |c| c.0).ok().map(|i| changes[i].1)),
        );
    }

    /// Computed once per snapshot: the base counts adjusted by every touched vertex.
    fn counts_of(&self, side: usize) -> Counts {
        *self.counts[side].get_or_init(|| {
            let v = &self.view;
            if v.dedup_base {
                return self.scanned_counts(side);
            }
            let m = v.base.manifest();
            let base_loops = if m.directed { 0 } else { 2 * m.num_edges - m.num_arcs };
            let (mut arcs, mut loops) = (m.num_arcs as i64, base_loops as i64);
            let table = &self.overlay(side).table;
            let mut ns = Vec::new();
            for (i, &u) in table.vertices().iter().enumerate() {
                let nb = v.base_neighbors(v.side(side), u);
                merge_into(&nb, None, table.ops_at(i), &mut ns, None);
                arcs += ns.len() as i64 - nb.len() as i64;
                loops += ns.binary_search(&u).is_ok() as i64 - nb.binary_search(&u).is_ok() as i64;
            }
            Counts { arcs: arcs as u64, loops: loops as u64 }
        })
    }
}

impl Inner {
    /// Arc and self-loop counts of `side` by a scan of every merged list (multigraph bases,
    /// whose manifest counts include the repeated arcs).
    fn scanned_counts(&self, side: usize) -> Counts {
        let dir = SnapshotDirection { snap: self, side };
        let (mut arcs, mut loops) = (0u64, 0u64);
        dir.for_each_in_range(0..self.view.num_vertices as Vertex, |v, ns| {
            arcs += ns.len() as u64;
            loops += ns.binary_search(&v).is_ok() as u64;
        });
        Counts { arcs, loops }
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

    /// A hint that the lists of `vertices` are about to be read one by one: the in-memory
    /// deltas load their index entries for them in a tight pass ([`DeltaLog::warm`]), so that
    /// those cache misses overlap. Nothing once the snapshot reads an overlay of the delta.
    pub fn warm_changes(&self, vertices: &[Vertex]) {
        let view = &self.snap.view;
        let s = view.side(self.side);
        if self.snap.overlays[s].get().is_some() {
            return;
        }
        for f in &view.frozen {
            f[s].warm(vertices);
        }
        view.delta[s].warm(vertices);
    }

    /// The weight of each arc `v -> y` for `y` in `targets` (sorted ascending), `None` where
    /// there is no such arc (weights are 1.0 on unweighted graphs), into `out`: binary searches
    /// in `v`'s changes and base list, so reading a few arcs of a long list does not merge it.
    pub fn arc_weights_to(&self, v: Vertex, targets: &[Vertex], out: &mut Vec<Option<f32>>) {
        self.check(v);
        out.clear();
        let (nb, wb) = self.snap.view.base_list(self.side, v);
        let mut changes = Vec::with_capacity(targets.len());
        self.snap.arc_changes(self.side, v, targets, &mut changes);
        for (&y, change) in targets.iter().zip(changes) {
            out.push(match change {
                Some(ArcOp::Add(w)) => Some(w),
                Some(ArcOp::Remove) => None,
                None => nb.binary_search(&y).ok().map(|i| wb.as_ref().map_or(1.0, |w| w[i])),
            });
        }
    }
}

impl Adjacency for SnapshotDirection<'_> {
    fn num_vertices(&self) -> usize {
        self.snap.view.num_vertices as usize
    }

    fn num_arcs(&self) -> u64 {
        self.snap.counts_of(self.side).arcs
    }

    /// An untouched vertex's degree comes from the base's offsets without reading its list
    /// (BFS sums the degrees of whole frontiers), unless the base's repeated arcs are collapsed.
    fn degree(&self, v: Vertex) -> usize {
        self.check(v);
        let view = &self.snap.view;
        match self.snap.point_changes(self.side, v) {
            Some(c) => merged_len(&view.base_neighbors(self.side, v), &c),
            None if view.dedup_base => view.base_neighbors(self.side, v).len(),
            None if (v as usize) >= view.base.num_vertices() => 0,
            None => view.base_dir(self.side).degree(v),
        }
    }

    fn memory_budget(&self) -> Option<u64> {
        self.snap.view.base.memory_budget()
    }

    /// The base's answer ([`Adjacency::in_memory`]); the delta is in memory.
    fn in_memory(&self, v: Vertex) -> bool {
        let view = &self.snap.view;
        (v as usize) >= view.base.num_vertices()
            || view.base.list_known_empty(self.side, v)
            || view.base_dir(self.side).in_memory(v)
    }

    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex> {
        self.check(v);
        let nb = self.snap.view.base_neighbors(self.side, v);
        match self.snap.point_changes(self.side, v) {
            Some(c) => {
                let mut ns = Vec::with_capacity(nb.len() + c.len());
                merge_into(&nb, None, &c, &mut ns, None);
                Slice::owned(ns)
            }
            None => nb,
        }
    }

    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>> {
        self.check(v);
        if !self.is_weighted() {
            return None;
        }
        let (nb, wb) = self.snap.view.base_list(self.side, v);
        match self.snap.point_changes(self.side, v) {
            Some(c) => Some(Slice::owned(merge(&nb, wb.as_deref(), &c).1)),
            None => wb,
        }
    }

    fn is_weighted(&self) -> bool {
        self.snap.view.base.is_weighted()
    }

    /// The base's lists when the snapshot reads exactly them ([`Snapshot::is_base`]: files built
    /// from the base, such as its hub index, then serve it), else this snapshot and the side
    /// it reads: an undirected graph's two directions read the same side, so kernels given
    /// both read one (the id is the snapshot's, with the side as file).
    fn lists_id(&self) -> Option<(usize, crate::page::FileId)> {
        let view = &self.snap.view;
        if view.reads_base() {
            return view.base_dir(self.side).lists_id();
        }
        Some((self.snap as *const Inner as usize, self.side as crate::page::FileId))
    }

    /// The base's degrees through its offsets ([`Direction`] reads them with one pin per page),
    /// adjusted by one per addition and removal among the touched vertices' changes: exact
    /// unless a change adds an arc the base holds or removes one it lacks, or the base holds an
    /// arc more than once (which only reading the lists would tell).
    fn estimated_degree_sum(&self, vertices: &[Vertex]) -> u64 {
        let base_n = self.snap.view.base.num_vertices() as Vertex;
        let mut adjust = 0i64;
        for &v in vertices {
            self.check(v);
            if let Some(c) = self.snap.point_changes(self.side, v) {
                adjust +=
                    c.iter().map(|(_, op)| if matches!(op, ArcOp::Add(_)) { 1 } else { -1 }).sum::<i64>();
            }
        }
        let base = self.snap.view.base_dir(self.side);
        let sum = if vertices.iter().all(|&v| v < base_n) {
            base.estimated_degree_sum(vertices)
        } else {
            let inside: Vec<Vertex> = vertices.iter().copied().filter(|&v| v < base_n).collect();
            base.estimated_degree_sum(&inside)
        };
        sum.saturating_add_signed(adjust)
    }

    /// Reads each run of base vertices through the base's batched read (one pin per page, see
    /// [`Direction`]), the changes of the run looked up first, so that no delta is read while
    /// the base's pages are pinned; vertices added after the base are merged from nothing.
    fn for_each_of<F: FnMut(Vertex, &[Vertex])>(&self, vertices: &[Vertex], mut f: F) {
        let (mut ns, mut deduped) = (Vec::new(), (Vec::new(), Vec::new()));
        let dedup = self.snap.view.dedup_base;
        self.for_each_run(vertices, |run, changes| {
            let mut changes = changes.iter();
            let mut each = |v: Vertex, nb: &[Vertex]| {
                let nb = collapse_repeats(dedup, nb, None, &mut deduped).0;
                match changes.next().and_then(|c| c.as_deref()) {
                    Some(c) => {
                        merge_into(nb, None, c, &mut ns, None);
                        f(v, &ns)
                    }
                    None => f(v, nb),
                }
            };
            match run {
                Run::Base(run) => self.snap.view.base_dir(self.side).for_each_of(run, each),
                Run::Added(v) => each(v, &[]),
            }
        });
    }

    /// As [`SnapshotDirection::for_each_of`], with the weights.
    fn for_each_weighted_of<F: FnMut(Vertex, &[Vertex], &[f32])>(&self, vertices: &[Vertex], mut f: F) {
        let (mut ns, mut ws, mut deduped) = (Vec::new(), Vec::new(), (Vec::new(), Vec::new()));
        let dedup = self.snap.view.dedup_base;
        let weighted = self.is_weighted();
        self.for_each_run(vertices, |run, changes| {
            let mut changes = changes.iter();
            let mut each = |v: Vertex, nb: &[Vertex], wb: &[f32]| {
                let (nb, wb) = collapse_repeats(dedup, nb, Some(wb), &mut deduped);
                let wb = wb.unwrap_or_default();
                match changes.next().and_then(|c| c.as_deref()) {
                    Some(c) => {
                        merge_into(nb, weighted.then_some(wb), c, &mut ns, Some(&mut ws));
                        f(v, &ns, &ws)
                    }
                    None => f(v, nb, wb),
                }
            };
            match run {
                Run::Base(run) => self.snap.view.base_dir(self.side).for_each_weighted_of(run, each),
                Run::Added(v) => each(v, &[], &[]),
            }
        });
    }

    /// The base's announcement for the base vertices among `vertices` (the delta is in memory
    /// or in its own pool).
    fn will_need_lists(&self, vertices: &[Vertex]) {
        let base_n = self.snap.view.base.num_vertices() as Vertex;
        let base = self.snap.view.base_dir(self.side);
        if vertices.iter().all(|&v| v < base_n) {
            return base.will_need_lists(vertices);
        }
        base.will_need_lists(&vertices.iter().copied().filter(|&v| v < base_n).collect::<Vec<_>>());
    }

    /// The base's, for the cuts inside the base.
    fn mark_partition_cuts(&self, cuts: &[Vertex]) {
        let base_n = self.snap.view.base.num_vertices() as Vertex;
        let inside: Vec<Vertex> = cuts.iter().copied().filter(|&v| v <= base_n).collect();
        self.snap.view.base_dir(self.side).mark_partition_cuts(&inside);
    }

    /// Reads the base's offsets block by block; a touched vertex's degree merges its list.
    fn for_each_degree_in_range<F: FnMut(Vertex, usize)>(&self, vertices: Range<Vertex>, mut f: F) {
        let view = &self.snap.view;
        let (vertices, base_end) = self.base_range(vertices);
        let overlay = self.snap.overlay(self.side);
        view.base_dir(self.side).for_each_degree_in_range(vertices.start..base_end, |v, d| {
            match overlay.get(v) {
                Some(c) => f(v, merged_len(&view.base_neighbors(self.side, v), c)),
                None if view.dedup_base => f(v, view.base_neighbors(self.side, v).len()),
                None => f(v, d),
            }
        });
        for v in base_end..vertices.end {
            f(v, merged_len(&[], overlay.get(v).unwrap_or_default()))
        }
    }

    /// The base's scan of the selected lists (see [`Direction`]) with the touched vertices'
    /// changes merged in; vertices added after the base come last.
    fn for_each_selected_in_range<S: FnMut(Vertex) -> bool, F: FnMut(Vertex, &[Vertex])>(
        &self,
        vertices: Range<Vertex>,
        mut select: S,
        mut f: F,
    ) {
        let view = &self.snap.view;
        let (vertices, base_end) = self.base_range(vertices);
        let overlay = self.snap.overlay(self.side);
        let (mut ns, mut deduped) = (Vec::new(), (Vec::new(), Vec::new()));
        let base = view.base_dir(self.side);
        base.for_each_selected_in_range(vertices.start..base_end, &mut select, |v, nb| {
            let nb = collapse_repeats(view.dedup_base, nb, None, &mut deduped).0;
            match overlay.get(v) {
                Some(c) => {
                    merge_into(nb, None, c, &mut ns, None);
                    f(v, &ns)
                }
                None => f(v, nb),
            }
        });
        for v in (base_end..vertices.end).filter(|&v| select(v)) {
            merge_into(&[], None, overlay.get(v).unwrap_or_default(), &mut ns, None);
            f(v, &ns)
        }
    }

    /// Scans the base block by block (see [`Direction`]) and merges the touched vertices'
    /// changes into the scanned lists; vertices added after the base come last.
    fn for_each_in_range<F: FnMut(Vertex, &[Vertex])>(&self, vertices: Range<Vertex>, mut f: F) {
        let view = &self.snap.view;
        let (vertices, base_end) = self.base_range(vertices);
        let overlay = self.snap.overlay(self.side);
        let (mut ns, mut deduped) = (Vec::new(), (Vec::new(), Vec::new()));
        let dedup = view.dedup_base;
        view.base_dir(self.side).for_each_in_range(vertices.start..base_end, |v, nb| {
            let nb = collapse_repeats(dedup, nb, None, &mut deduped).0;
            match overlay.get(v) {
                Some(c) => {
                    merge_into(nb, None, c, &mut ns, None);
                    f(v, &ns)
                }
                None => f(v, nb),
            }
        });
        for v in base_end..vertices.end {
            merge_into(&[], None, overlay.get(v).unwrap_or_default(), &mut ns, None);
            f(v, &ns)
        }
    }

    fn for_each_weighted_in_range<F: FnMut(Vertex, &[Vertex], &[f32])>(
        &self,
        vertices: Range<Vertex>,
        mut f: F,
    ) {
        let view = &self.snap.view;
        let (vertices, base_end) = self.base_range(vertices);
        let overlay = self.snap.overlay(self.side);
        let weighted = self.is_weighted();
        let (mut ns, mut ws, mut deduped) = (Vec::new(), Vec::new(), (Vec::new(), Vec::new()));
        let dedup = view.dedup_base;
        view.base_dir(self.side).for_each_weighted_in_range(vertices.start..base_end, |v, nb, wb| {
            let (nb, wb) = collapse_repeats(dedup, nb, Some(wb), &mut deduped);
            let wb = wb.unwrap_or_default();
            match overlay.get(v) {
                Some(c) => {
                    merge_into(nb, weighted.then_some(wb), c, &mut ns, Some(&mut ws));
                    f(v, &ns, &ws)
                }
                None => f(v, nb, wb),
            }
        });
        for v in base_end..vertices.end {
            merge_into(&[], None, overlay.get(v).unwrap_or_default(), &mut ns, Some(&mut ws));
            f(v, &ns, &ws)
        }
    }
}

/// A run of vertices handed to [`SnapshotDirection::for_each_run`]'s callback.
enum Run<'a> {
    /// Consecutive vertices (of the caller's order) inside the base.
    Base(&'a [Vertex]),
    /// One vertex added after the base.
    Added(Vertex),
}

impl SnapshotDirection<'_> {
    /// Splits `vertices` (checked) into maximal runs inside the base and single vertices added
    /// after it, in order, and calls `f` with each and the changes of its vertices.
    fn for_each_run<F>(&self, vertices: &[Vertex], mut f: F)
    where
        F: FnMut(Run<'_>, &[Option<Cow<'_, [(Vertex, ArcOp)]>>]),
    {
        let base_n = self.snap.view.base.num_vertices() as Vertex;
        let mut changes = Vec::new();
        let mut rest = vertices;
        while let Some(&first) = rest.first() {
            let k =
                if first < base_n { rest.iter().position(|&v| v >= base_n).unwrap_or(rest.len()) } else { 1 };
            let run = &rest[..k];
            changes.clear();
            changes.extend(run.iter().map(|&v| {
                self.check(v);
                self.snap.point_changes(self.side, v)
            }));
            f(if first < base_n { Run::Base(run) } else { Run::Added(first) }, &changes);
            rest = &rest[k..];
        }
    }

    /// Checks `vertices` and splits it at the end of the base's vertices.
    fn base_range(&self, vertices: Range<Vertex>) -> (Range<Vertex>, Vertex) {
        let view = &self.snap.view;
        assert!(
            vertices.end as u64 <= view.num_vertices || vertices.is_empty(),
            "vertex range {vertices:?} out of range"
        );
        let base_end = vertices.end.min(view.base.num_vertices() as Vertex).max(vertices.start);
        (vertices, base_end)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use crate::graph::Adjacency;
    use crate::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
    use crate::update::{Durability, Snapshot, WritableGraph, WriteOptions};

    /// Point reads before and after the overlay is built (past the point-read limit), range
    /// scans and degrees all equal a brute-force edge set, over 3 levels and a delta.
    #[test]
    fn point_reads_and_scans_match_a_brute_force_set() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let n = 3000u32;
        let o = BuildOptions { directed: true, ..BuildOptions::default() };
        let mut b = GraphBuilder::new(&dir, o).unwrap();
        b.reserve_vertices(n as u64);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut set = BTreeSet::new();
        set.extend((0..4000).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n))));
        let (s, d): (Vec<u32>, Vec<u32>) = set.iter().copied().unzip();
        b.push(&s, &d, None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let opts =
            WriteOptions { durability: Durability::None, auto_compact_levels: None, ..Default::default() };
        let g = WritableGraph::open(&dir, &opts).unwrap();
        for round in 0..4 {
            let add: Vec<(u32, u32)> =
                (0..1500).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n))).collect();
            g.add_edges(&add, None).unwrap();
            set.extend(add.iter().copied());
            let del: Vec<(u32, u32)> = set.iter().copied().filter(|_| rng.gen_bool(0.1)).collect();
            g.remove_edges(&del).unwrap();
            for e in &del {
                set.remove(e);
            }
            if round < 3 {
                g.freeze().unwrap();
            }
        }
        assert_eq!(g.num_levels(), 3);
        let out_of = |v: u32| set.range((v, 0)..(v + 1, 0)).map(|e| e.1).collect::<Vec<_>>();
        let in_of = |v: u32| set.iter().filter(|e| e.1 == v).map(|e| e.0).collect::<Vec<_>>();
        let snap = g.snapshot();
        // Two passes: the first crosses the point-read limit (1024) and builds the overlay.
        let mut found = Vec::new();
        for _ in 0..2 {
            for v in 0..n {
                assert_eq!(&*snap.out().neighbors(v), &out_of(v)[..], "out of {v}");
                assert_eq!(snap.out().degree(v), out_of(v).len());
                // Arcs looked up one by one: every neighbour and some vertices that are not.
                let mut targets: Vec<u32> = out_of(v).into_iter().chain((v % 7..n).step_by(97)).collect();
                targets.sort_unstable();
                targets.dedup();
                snap.out().arc_weights_to(v, &targets, &mut found);
                let want: Vec<Option<f32>> =
                    targets.iter().map(|&y| set.contains(&(v, y)).then_some(1.0)).collect();
                assert_eq!(found, want, "arcs of {v}");
            }
        }
        let fresh = g.snapshot();
        let mut seen = 0;
        fresh.in_().for_each_in_range(0..n, |v, ns| {
            assert_eq!(ns, &in_of(v)[..], "in of {v}");
            seen += 1;
        });
        assert_eq!(seen, n);
        assert_eq!(fresh.num_edges(), set.len() as u64);

        // Point reads that skip the base lists known to be empty read the same lists.
        let base = fresh.base();
        assert!(!base.list_known_empty(0, 0) && !base.list_known_empty(1, 0), "nothing learnt yet");
        base.note_empty_lists();
        let empty = |side: usize| (0..n).filter(|&v| base.list_known_empty(side, v)).count();
        let base_empty = |d: crate::graph::Direction<'_>| (0..n).filter(|&v| d.degree(v) == 0).count();
        assert_eq!(empty(0), base_empty(base.out()));
        assert_eq!(empty(1), base_empty(base.in_()));
        assert!(empty(0) > 0 && empty(1) > 0);
        let snap = g.snapshot();
        for v in 0..n {
            assert_eq!(&*snap.out().neighbors(v), &out_of(v)[..], "out of {v}, empty lists learnt");
            assert_eq!(&*snap.in_().neighbors(v), &in_of(v)[..], "in of {v}, empty lists learnt");
        }
    }

    /// The batched reads kernels use (lists of a vertex set, with weights, selected ranges,
    /// degrees, degree sums) equal a brute-force weighted edge map, in both directions, over
    /// two levels, a delta and vertices added after the base; with a simple base whose
    /// changes all take effect (the degree sum is then exact) and with a multigraph base
    /// (repeated arcs collapse to their smallest weight) under any changes.
    #[test]
    fn batched_reads_match_a_brute_force_map() {
        for multigraph in [false, true] {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("g");
            let n = 1500u32;
            let o = BuildOptions { directed: true, weighted: true, ..BuildOptions::default() };
            let mut b = GraphBuilder::new(&dir, o).unwrap();
            b.reserve_vertices(n as u64);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(11 + multigraph as u64);
            let mut arcs: Vec<(u32, u32, f32)> = (0..5000)
                .map(|_| (rng.gen_range(0..n), rng.gen_range(0..n), rng.gen_range(1..9) as f32))
                .collect();
            if !multigraph {
                arcs.sort_by_key(|a| (a.0, a.1));
                arcs.dedup_by_key(|a| (a.0, a.1));
            }
            let mut want: BTreeMap<(u32, u32), f32> = BTreeMap::new();
            for &(u, v, w) in &arcs {
                let e = want.entry((u, v)).or_insert(w);
                *e = e.min(w);
            }
            let base: BTreeSet<(u32, u32)> = want.keys().copied().collect();
            let (s, d): (Vec<u32>, Vec<u32>) = arcs.iter().map(|a| (a.0, a.1)).unzip();
            let w: Vec<f32> = arcs.iter().map(|a| a.2).collect();
            b.push(&s, &d, Some(&w)).unwrap();
            b.finish(IdMap::Identity, &NoProgress).unwrap();
            let opts = WriteOptions {
                durability: Durability::None,
                auto_compact_levels: None,
                ..Default::default()
            };
            let g = WritableGraph::open(&dir, &opts).unwrap();
            let mut total = n;
            for round in 0..3 {
                if round == 2 {
                    total = g.add_vertices(40).unwrap().end;
                }
                let mut add: Vec<(u32, u32)> =
                    (0..700).map(|_| (rng.gen_range(0..total), rng.gen_range(0..total))).collect();
                if !multigraph {
                    add.sort_unstable();
                    add.dedup();
                    add.retain(|e| !want.contains_key(e) && !base.contains(e));
                }
                let ws: Vec<f32> = add.iter().map(|_| rng.gen_range(1..9) as f32).collect();
                g.add_edges(&add, Some(&ws)).unwrap();
                want.extend(add.iter().copied().zip(ws.iter().copied()));
                let mut del: Vec<(u32, u32)> = want.keys().copied().filter(|_| rng.gen_bool(0.1)).collect();
                if !multigraph {
                    // Net changes over the base that all take effect: base arcs removed, new
                    // arcs added and kept.
                    del.retain(|e| base.contains(e));
                } else {
                    del.extend((0..50).map(|_| (rng.gen_range(0..total), rng.gen_range(0..total))));
                }
                g.remove_edges(&del).unwrap();
                for e in &del {
                    want.remove(e);
                }
                if round < 2 {
                    g.freeze().unwrap();
                }
            }
            let mut vs: Vec<u32> = (0..400).map(|_| rng.gen_range(0..total)).collect();
            vs.extend([total - 1, 0, total - 1]);
            check_batched_reads(&g.snapshot(), &want, total, &vs, !multigraph);
        }
    }

    /// [`batched_reads_match_a_brute_force_map`]'s checks on one snapshot, out then in.
    fn check_batched_reads(
        snap: &Snapshot,
        want: &BTreeMap<(u32, u32), f32>,
        n: u32,
        vs: &[u32],
        exact_degree_sum: bool,
    ) {
        for side in 0..2 {
            let adj = if side == 0 { snap.out() } else { snap.in_() };
            let mut lists: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n as usize];
            for (&(u, v), &w) in want {
                let (a, b) = if side == 0 { (u, v) } else { (v, u) };
                lists[a as usize].push((b, w));
            }
            lists.iter_mut().for_each(|l| l.sort_by_key(|p| p.0));
            let ids = |v: u32| lists[v as usize].iter().map(|p| p.0).collect::<Vec<_>>();
            let mut seen = Vec::new();
            adj.for_each_of(vs, |v, nb| {
                assert_eq!(nb, &ids(v)[..], "side {side}: listed neighbours of {v}");
                seen.push(v);
            });
            assert_eq!(seen, vs);
            seen.clear();
            adj.for_each_weighted_of(vs, |v, nb, ws| {
                let got: Vec<(u32, f32)> = nb.iter().copied().zip(ws.iter().copied()).collect();
                assert_eq!(got, lists[v as usize], "side {side}: weighted list of {v}");
                seen.push(v);
            });
            assert_eq!(seen, vs);
            seen.clear();
            adj.for_each_selected_in_range(
                3..n,
                |v| v % 3 != 1,
                |v, nb| {
                    assert_eq!(nb, &ids(v)[..], "side {side}: scanned neighbours of {v}");
                    seen.push(v);
                },
            );
            assert!(seen.iter().copied().eq((3..n).filter(|v| v % 3 != 1)), "side {side}: selection");
            let mut degrees = Vec::new();
            adj.for_each_degree_in_range(0..n, |v, d| degrees.push((v, d)));
            assert!(degrees.iter().copied().eq((0..n).map(|v| (v, lists[v as usize].len()))), "side {side}");
            if exact_degree_sum {
                let sum: usize = vs.iter().map(|&v| lists[v as usize].len()).sum();
                assert_eq!(adj.estimated_degree_sum(vs), sum as u64, "side {side}: degree sum");
            }
        }
    }
}
