//! Parent-based maintenance of monotonic programs (BFS hop distances, SSSP distances, WCC
//! labels), after RisGraph and Snowy (seed 002, ch. 7).
//!
//! Each program gives every vertex a value, the least fixpoint of `value(x) = min(seed(x),
//! min over arcs y -> x of relax(value(y), w))`, and keeps one *parent* per vertex: the
//! in-neighbour its value came from (a seeded vertex is its own parent). `relax` strictly
//! increases values (a hop count is part of every value), so parent pointers form a forest.
//! WCC keeps its labels at the least fixpoint but not its hops ([`Program::improves`]): a
//! vertex takes an offer only for a smaller label, and its hops then bound, rather than equal,
//! its distance to the labelling vertex (parents still strictly smaller, so still a forest).
//!
//! A batch is applied on the snapshot that includes it, from its net arc changes:
//! 1. A removed (or heavier) arc `u -> x` with `parent[x] == u` that no longer yields `x`'s
//!    value makes `x` look for another in-neighbour that still gives it its value (one of
//!    smaller value, so not in its subtree), which becomes its parent; when there is none, it
//!    invalidates `x`'s subtree (found by walking the forward lists of the subtree for
//!    vertices whose parent is in it). A change of an arc that is not a tree arc costs nothing.
//! 2. Each invalidated vertex is re-seeded from its remaining in-neighbours (and its own seed).
//! 3. Each added (or lighter) arc relaxes forward from its source.
//! 4. Improved vertices propagate in value order (a binary heap), as Dijkstra.
//!
//! WCC keeps the size of every component: before step 3, the repairs are propagated and each
//! added arc that joins a large component (at least `relabel_from` vertices, by default
//! `max(1024, n / 256)`) to one of smaller label relabels the large one at once (3a): its tree
//! is re-rooted at the arc's end (the path to the old root reversed) and hung from the other
//! end, and one pass over the vertices gives its members the new label, their hops raised by
//! a common shift (the path's vertices get consecutive hops), so every parent stays strictly
//! smaller. That costs one pass over the vertex values instead of a walk of the component's
//! arcs (the case of a batch that joins a low id to the giant component). A batch's joins are
//! taken smallest label first, so that each large component is re-rooted once, and at most
//! [`MAX_REROOTS`] times in all.
//!
//! Vertex state is in memory (the value and a 4-byte parent per vertex); neighbour lists come
//! from the snapshot (base CSR through the page layer, levels, delta). Forward lists are the
//! out-lists and backward lists the in-lists (for directed graphs the stored reverse
//! direction); WCC on a directed graph follows both for both.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use ocgraph_core::memory::try_resize;
use ocgraph_core::mix::mix64;
use ocgraph_core::page::carry_read_errors;
use ocgraph_core::update::{ArcOp, BatchChanges, EdgeChange, Snapshot, SnapshotDirection};
use ocgraph_core::{Adjacency, Error, Result, Vertex};
use rustc_hash::FxHashSet;

use super::component_sizes::ComponentSizes;
use super::first_values::FirstValues;
use super::{bytes, Changes, Maintained, Values};
use crate::BfsResult;

/// No parent (unreached, or invalidated).
const NONE: Vertex = Vertex::MAX;

/// The least size from which step 3a relabels a component by default (see the module docs).
const DEFAULT_RELABEL_FROM: u32 = 1024;

/// Most re-rootings in one batch (each a pass over every value; see
/// [`Tree::relabel_in_order`]).
const MAX_REROOTS: u32 = 8;

/// A monotonic program kept by [`Tree`].
pub trait Program: Send + 'static {
    /// A vertex's value; smaller is better.
    type Value: Copy + PartialOrd + std::fmt::Debug + Send;
    /// The value of an unreached vertex (larger than any other).
    const INF: Self::Value;
    /// The name of what is maintained (file names, errors).
    fn name(&self) -> String;
    /// The value `v` has on its own (a source, or a component's own id), if any.
    fn seed(&self, v: Vertex) -> Option<Self::Value>;
    /// The value an arc of weight `w` gives from a vertex of value `from` (strictly larger).
    fn relax(&self, from: Self::Value, w: f32) -> Self::Value;
    /// Whether a vertex of value `old` takes the offered value `new` (and its parent). By
    /// default when `new < old`: values are the least fixpoint. A program whose output is only
    /// part of the value may take fewer offers (WCC: only smaller labels, whatever the hops):
    /// values then stay at least `relax` of their parent's, which keeps parents acyclic.
    fn improves(&self, new: Self::Value, old: Self::Value) -> bool {
        new < old
    }
    /// Whether lists are followed in both directions (WCC).
    fn both_directions(&self) -> bool;
    /// For programs whose value is a component label and hops (WCC): the value as `(label,
    /// hops)`, so that a batch joining a large component to one of smaller label can relabel
    /// it by re-rooting its tree ([`Tree`]'s step 3a). `None` (the default): no such shortcut.
    fn as_label(&self, _v: Self::Value) -> Option<(u32, u32)> {
        None
    }
    /// The value of `(label, hops)` (called only when [`Program::as_label`] gives `Some`).
    fn labelled_value(&self, _label: (u32, u32)) -> Option<Self::Value> {
        None
    }
    /// Whether arc weights count (SSSP).
    fn weighted(&self) -> bool;
    /// The result's form of a value.
    fn output(&self, v: Self::Value) -> Out;
    /// Whether [`Program::output`] gives [`Out::Float`] (the type of an empty array too).
    const FLOAT_OUTPUT: bool;
    /// The first computation, with the static kernels: values and parents.
    fn initial(&self, snap: &Snapshot) -> Result<(Vec<Self::Value>, Vec<Vertex>)>;
    /// Appends `v`'s encoding (see [`Tree`]'s saved form).
    fn encode(v: Self::Value, out: &mut Vec<u8>);
    /// Decodes one value from the front of `b`, advancing it.
    fn decode(b: &mut &[u8]) -> Option<Self::Value>;
}

/// One vertex's value in a result: an integer (hops, labels) or a float (distances, scores).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Out {
    /// An integer value (`-1`: none).
    Int(i64),
    /// A float value.
    Float(f64),
}

/// Heap entry ordered by value, smallest first.
struct Entry<V>(V, Vertex);

impl<V: PartialOrd> PartialEq for Entry<V> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl<V: PartialOrd> Eq for Entry<V> {}
impl<V: PartialOrd> PartialOrd for Entry<V> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<V: PartialOrd> Ord for Entry<V> {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        o.0.partial_cmp(&self.0).unwrap_or(Ordering::Equal).then(o.1.cmp(&self.1))
    }
}

/// Whether `w` cannot be a shortest-path weight (negative or NaN).
fn bad_weight(w: f32) -> bool {
    w.is_nan() || w < 0.0
}

/// Calls `f(y, w)` for every arc of `v` in `dir` (weight 1 when `weighted` is false).
fn arcs_of<A: Adjacency>(dir: &A, v: Vertex, weighted: bool, mut f: impl FnMut(Vertex, f32)) {
    let ns = dir.neighbors(v);
    match weighted.then(|| dir.weights(v)).flatten() {
        Some(ws) => ns.iter().zip(ws.iter()).for_each(|(&y, &w)| f(y, w)),
        None => ns.iter().for_each(|&y| f(y, 1.0)),
    }
}

/// Most queued vertices of one value [`Tree`]'s propagation takes at once.
const GROUP: usize = 64;

/// Reads of lists that may wait for the disk run on this many threads at most ([`warm`]).
const WARM_THREADS: u64 = 8;

/// How many threads [`warm`] uses on `snap` by default: none on mmap or when the pool holds the lists,
/// else one per 4 MiB of pool up to [`WARM_THREADS`] (each reader holds up to two frames, and a
/// pool whose frames are all held makes its readers wait).
fn default_warm_threads(snap: &Snapshot) -> usize {
    let base = snap.base();
    match base.memory_budget() {
        Some(budget) if budget < base.num_arcs() * 4 => (budget >> 22).min(WARM_THREADS) as usize,
        _ => 0,
    }
}

/// Reads the lists in `dirs` of those of `vertices` that are not in memory
/// ([`Adjacency::in_memory`]) on up to `threads` threads, and drops them. Through a pool
/// smaller than the graph their pages then load concurrently, where the reads of a batch, one
/// vertex at a time, would each wait for a page read of their own; those reads then find them
/// in the pool. Nothing when fewer than two lists are missing, or no threads.
fn warm(dirs: &[SnapshotDirection<'_>], vertices: &[Vertex], threads: usize) {
    if threads == 0 || vertices.len() < 2 {
        return;
    }
    let missing: Vec<Vertex> =
        vertices.iter().copied().filter(|&v| dirs.iter().any(|d| !d.in_memory(v))).collect();
    if missing.len() < 2 {
        return;
    }
    std::thread::scope(|s| {
        let loaders: Vec<_> = missing
            .chunks(missing.len().div_ceil(threads))
            .map(|part| {
                s.spawn(move || {
                    carry_read_errors(|| {
                        for &v in part {
                            for d in dirs {
                                drop(d.neighbors(v));
                            }
                        }
                    })
                })
            })
            .collect();
        // A failed read goes on to the caller as it was (the scope would panic anew).
        for l in loaders {
            l.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
    });
}

/// A maintained monotonic program (see the module docs).
pub struct Tree<P: Program> {
    prog: P,
    seq: u64,
    val: Vec<P::Value>,
    parent: Vec<Vertex>,
    /// First value since the last [`Maintained::changes`] of each vertex changed since (kept
    /// as the value, which is smaller than its [`Out`], and converted when reported).
    old: FirstValues<P::Value>,
    heap: BinaryHeap<Entry<P::Value>>,
    /// Improved vertices that were alone before the batch, queued apart ([`Tree::propagate`]),
    /// with the index of their first arc in the batch ([`Tree::alone_from`]).
    quick: Vec<(P::Value, Vertex, u32)>,
    /// Arcs a batch may read before it is recomputed instead (`None`: an eighth of the base's,
    /// at least 65536).
    recompute_after: Option<u64>,
    /// Arcs the current batch has read, and its limit.
    read: u64,
    limit: u64,
    /// Threads warming lists before they are read ([`warm`]; `None`: [`default_warm_threads`]).
    warm: Option<usize>,
    /// Programs with labels ([`Program::as_label`]): the number of vertices of each label.
    sizes: ComponentSizes,
    /// Components of at least this many vertices are relabelled by re-rooting (`None`:
    /// `max(1024, n / 256)`).
    relabel_from: Option<u32>,
    /// The current batch's ends that were alone before it, with the index of their first arc
    /// in the batch's arcs, ascending by vertex ([`Tree::note_batch`]).
    alone: Vec<(Vertex, u32)>,
    /// The current batch's added arcs that join a large component to a smaller label, as
    /// indices into its arcs ([`Tree::note_batch`]).
    joins: Vec<u32>,
}

impl<P: Program> Tree<P> {
    /// An empty state (no vertices, batch 0), to rebuild or decode into.
    pub fn empty(prog: P) -> Tree<P> {
        Tree {
            prog,
            seq: 0,
            val: Vec::new(),
            parent: Vec::new(),
            old: FirstValues::default(),
            heap: BinaryHeap::new(),
            quick: Vec::new(),
            recompute_after: None,
            read: 0,
            limit: u64::MAX,
            warm: None,
            sizes: ComponentSizes::new(DEFAULT_RELABEL_FROM),
            relabel_from: None,
            alone: Vec::new(),
            joins: Vec::new(),
        }
    }

    /// Makes step 3a relabel components of at least `size` vertices (by default `max(1024, n /
    /// 256)`); programs without labels ignore it.
    pub fn with_relabel_from(mut self, size: u32) -> Tree<P> {
        self.relabel_from = Some(size);
        self.sizes = ComponentSizes::new(size.min(DEFAULT_RELABEL_FROM));
        self
    }

    /// Warms lists on `threads` threads before a batch reads them ([`warm`]; 0: never), whatever
    /// the backend (by default: only through a pool smaller than the graph's lists).
    pub fn with_warm_threads(mut self, threads: usize) -> Tree<P> {
        self.warm = Some(threads);
        self
    }

    /// The threads [`warm`] uses on `snap`.
    fn warm_threads(&self, snap: &Snapshot) -> usize {
        self.warm.unwrap_or_else(|| default_warm_threads(snap))
    }

    /// Whether the program's values are labels ([`Program::as_label`]).
    fn labelled(&self) -> bool {
        self.prog.as_label(P::INF).is_some()
    }

    /// The label of a value, when it has one (not unreached).
    fn label_of(&self, v: P::Value) -> Option<u32> {
        self.prog.as_label(v).map(|(l, _)| l).filter(|&l| l != u32::MAX)
    }

    /// Counts the vertices of every label from scratch.
    fn count_sizes(&mut self) -> Result<()> {
        self.sizes.clear();
        if !self.labelled() {
            return Ok(());
        }
        let n = self.val.len();
        self.sizes
            .resize(n, || format!("maintained {}'s component sizes for {n} vertices", self.prog.name()))?;
        for i in 0..self.val.len() {
            if let Some(l) = self.label_of(self.val[i]) {
                self.sizes.add(l);
            }
        }
        Ok(())
    }

    /// Makes a batch whose repair and propagation read more than `arcs` arcs stop and
    /// recompute the result with the static kernels (by default an eighth of the base's arcs,
    /// at least 65536:
    /// a batch that joins a low label or the source to a large component re-walks it, which
    /// the static kernels do faster).
    pub fn with_recompute_after(mut self, arcs: u64) -> Tree<P> {
        self.recompute_after = Some(arcs);
        self
    }

    /// Counts `arcs` read by the current batch; false once past its limit.
    fn within_limit(&mut self, arcs: usize) -> bool {
        self.read += arcs as u64;
        self.read <= self.limit
    }

    /// Every forward arc of `v` (both directions for WCC on directed graphs).
    fn forward(&self, snap: &Snapshot, v: Vertex, mut f: impl FnMut(Vertex, f32)) {
        let w = self.prog.weighted();
        arcs_of(&snap.out(), v, w, &mut f);
        if self.prog.both_directions() && snap.is_directed() {
            arcs_of(&snap.in_(), v, w, &mut f);
        }
    }

    /// Every backward arc of `v` (its in-arcs; both directions for WCC on directed graphs).
    fn backward(&self, snap: &Snapshot, v: Vertex, mut f: impl FnMut(Vertex, f32)) {
        let w = self.prog.weighted();
        arcs_of(&snap.in_(), v, w, &mut f);
        if self.prog.both_directions() && snap.is_directed() {
            arcs_of(&snap.out(), v, w, &mut f);
        }
    }

    /// Sets `x`'s value and parent, remembering its first output since the last `changes`.
    fn set(&mut self, x: Vertex, v: P::Value, parent: Vertex) {
        let i = x as usize;
        if !self.sizes.is_empty() {
            if let Some(l) = self.label_of(self.val[i]) {
                self.sizes.remove(l);
            }
            if let Some(l) = self.label_of(v) {
                self.sizes.add(l);
            }
        }
        self.old.note(x, self.val[i]);
        self.val[i] = v;
        self.parent[i] = parent;
    }

    /// Relaxes `x` to `c` via `parent` when that improves it, queueing it.
    fn offer(&mut self, x: Vertex, c: P::Value, parent: Vertex) {
        if self.prog.improves(c, self.val[x as usize]) {
            self.set(x, c, parent);
            match self.alone_from(x) {
                Some(first) => self.quick.push((c, x, first)),
                None => self.heap.push(Entry(c, x)),
            }
        }
    }

    /// Propagates queued improvements in value order; false once the batch has read more arcs
    /// than its limit (the caller then recomputes). Queued vertices of equal value are taken
    /// together, up to [`GROUP`], and the delta's index entries for their lists loaded in one
    /// pass first ([`SnapshotDirection::warm_changes`]): the offers they make are of larger
    /// values, so the order stays a valid value order.
    ///
    /// A vertex that was alone before the batch ([`Tree::note_batch`]) has for forward arcs
    /// the batch's added arcs from it (`batch`), which are read instead of its list; such
    /// vertices are queued apart, without the heap, and taken first in any order (only WCC
    /// notes them, which takes an offer only for a smaller label: any order reaches the same
    /// labels).
    fn propagate(&mut self, snap: &Snapshot, batch: &[EdgeChange]) -> Result<bool> {
        let dirs = self.lists(snap, false);
        let mut arcs = Vec::new();
        // Queued vertices: value, vertex, and the first arc in `batch` of one alone before it.
        let mut group: Vec<(P::Value, Vertex, Option<u32>)> = Vec::with_capacity(GROUP);
        let mut live = Vec::with_capacity(GROUP);
        loop {
            group.clear();
            // The vertices alone before the batch first, then the heap's smallest value.
            group.extend(
                self.quick.drain(self.quick.len().saturating_sub(GROUP)..).map(|(v, x, f)| (v, x, Some(f))),
            );
            while group.len() < GROUP && self.quick.is_empty() {
                match self.heap.peek() {
                    Some(e) if group.first().is_none_or(|g| g.0 == e.0) => {
                        let Entry(v, x) = self.heap.pop().expect("peeked");
                        group.push((v, x, None));
                    }
                    _ => break,
                }
            }
            if group.is_empty() {
                return Ok(true);
            }
            if group.len() > 1 {
                live.clear();
                live.extend(
                    group
                        .iter()
                        .filter(|&&(v, x, first)| first.is_none() && v == self.val[x as usize])
                        .map(|g| g.1),
                );
                dirs.iter().for_each(|d| d.warm_changes(&live));
            }
            for &(v, x, first) in &group {
                if v != self.val[x as usize] {
                    continue;
                }
                arcs.clear();
                match first {
                    Some(first) => {
                        arcs.extend(batch[first as usize..].iter().take_while(|e| e.src == x).filter_map(
                            |e| match e.op {
                                ArcOp::Add(w) => Some((e.dst, w)),
                                ArcOp::Remove => None,
                            },
                        ))
                    }
                    None => self.forward(snap, x, |y, w| arcs.push((y, w))),
                }
                if !self.within_limit(arcs.len()) {
                    return Ok(false);
                }
                for &(y, w) in &arcs {
                    if self.prog.weighted() && bad_weight(w) {
                        return Err(Error::invalid(format!(
                            "{}: arc {x} -> {y} has weight {w}; shortest paths need non-negative weights",
                            self.prog.name()
                        )));
                    }
                    self.offer(y, self.prog.relax(v, w), x);
                }
            }
        }
    }

    /// An in-neighbour of `x` in the snapshot that still gives `x` its output (its label, its
    /// distance) at no more than its value over an arc (`u`, its parent, when it does; else one
    /// of them drawn at random), or `None`. Such a `y` has a smaller value than `x`, so it is not
    /// in `x`'s subtree (values rise along parents): `x` keeps its value with `y` as its parent.
    /// Should `y`'s own value be invalidated by the same batch, its subtree, which then holds
    /// `x`, is repaired. (An arc added by the batch that gives `x` a smaller output is step 3's.)
    ///
    /// The draw (reservoir sampling, reproducible: hashed from `x`, the snapshot and the count)
    /// makes a stream that removes `x`'s `k` supporting arcs in any order it did not see find the
    /// parent gone about `ln k` times, each costing a pass over `x`'s in-list; taking the first
    /// supporter instead made removals in list order cost a pass each: a hub's 40K in-arcs
    /// removed one per batch took 5.9 s, now 0.05 s, the same as in reverse order.
    fn other_support(&self, snap: &Snapshot, u: Vertex, x: Vertex) -> Option<Vertex> {
        let vx = self.val[x as usize];
        let seed = mix64((u64::from(x) << 32) ^ snap.seq());
        let mut found = None;
        let mut seen = 0u64;
        self.backward(snap, x, |y, w| {
            let vy = self.val[y as usize];
            if found == Some(u) || y == x || vy.partial_cmp(&P::INF) == Some(Ordering::Equal) {
                return;
            }
            let offer = self.prog.relax(vy, w);
            let gives = !(self.prog.weighted() && bad_weight(w))
                && offer <= vx
                && self.prog.output(offer) == self.prog.output(vx);
            if !gives {
                return;
            }
            seen += 1;
            // The `seen`-th supporter replaces the one kept with probability 1 / seen.
            let draw = ((u128::from(mix64(seed ^ seen)) * u128::from(seen)) >> 64) as u64;
            if y == u || draw == 0 {
                found = Some(y);
            }
        });
        found
    }

    /// The forward (`backward` false) or backward lists of a vertex, as [`Tree::forward`] and
    /// [`Tree::backward`] read them.
    fn lists<'s>(&self, snap: &'s Snapshot, backward: bool) -> Vec<SnapshotDirection<'s>> {
        let (first, second) = if backward { (snap.in_(), snap.out()) } else { (snap.out(), snap.in_()) };
        let both = self.prog.both_directions() && snap.is_directed();
        if both {
            vec![first, second]
        } else {
            vec![first]
        }
    }

    /// Invalidates the subtrees of `roots` and re-seeds them from their remaining in-arcs;
    /// false (with the state to be recomputed) once the batch has read more arcs than its limit.
    /// The subtrees are walked level by level, each level's lists warmed first ([`warm`]).
    fn repair(&mut self, snap: &Snapshot, roots: Vec<Vertex>) -> bool {
        let threads = self.warm_threads(snap);
        let forward = self.lists(snap, false);
        let mut dead: FxHashSet<Vertex> = FxHashSet::default();
        let mut level = roots;
        let mut subtree = Vec::new();
        while !level.is_empty() {
            warm(&forward, &level, threads);
            let mut next = Vec::new();
            for y in level {
                if !dead.insert(y) {
                    continue;
                }
                subtree.push(y);
                let mut read = 0;
                self.forward(snap, y, |x, _| {
                    read += 1;
                    if self.parent[x as usize] == y && x != y && !dead.contains(&x) {
                        next.push(x);
                    }
                });
                if !self.within_limit(read) {
                    return false;
                }
            }
            level = next;
        }
        for &x in &subtree {
            self.set(x, P::INF, NONE);
        }
        if snap.is_directed() {
            // Undirected graphs' backward lists are the forward lists just read.
            warm(&self.lists(snap, true), &subtree, threads);
        }
        let mut arcs = Vec::new();
        for &x in &subtree {
            if let Some(s) = self.prog.seed(x) {
                self.offer(x, s, x);
            }
            arcs.clear();
            self.backward(snap, x, |y, w| arcs.push((y, w)));
            for &(y, w) in &arcs {
                let vy = self.val[y as usize];
                if vy < P::INF && !(self.prog.weighted() && bad_weight(w)) {
                    self.offer(x, self.prog.relax(vy, w), y);
                }
            }
            if !self.within_limit(arcs.len()) {
                return false;
            }
        }
        true
    }

    /// Step 3a (see the module docs): relabels, by re-rooting, every large component that an
    /// added arc of `arcs` joins to a component of smaller label. Called with nothing queued.
    /// `joins`, when given, are the indices of the only arcs that can (no value changed since
    /// [`Tree::note_batch`] listed them); a re-rooting makes a larger component, which other
    /// arcs may then join to a smaller label, so after one every arc is looked at. Returns
    /// false when hops would overflow (the batch then recomputes).
    fn relabel_large(&mut self, arcs: &[EdgeChange], joins: Option<&[u32]>) -> bool {
        let from =
            self.relabel_from.unwrap_or((self.val.len() / 256).max(DEFAULT_RELABEL_FROM as usize) as u32);
        let mut budget = MAX_REROOTS;
        let rerooted = match joins {
            Some(joins) => match self.relabel_in_order(arcs, joins.iter().copied(), from, &mut budget) {
                Some(r) => r,
                None => return false,
            },
            None => true,
        };
        !rerooted || self.relabel_in_order(arcs, 0..arcs.len() as u32, from, &mut budget).is_some()
    }

    /// Step 3a over the arcs of `arcs` at `candidates`, taken by the smaller label they join,
    /// smallest first: a large component joined to several smaller labels in one batch is then
    /// re-rooted once, to the smallest (in arc order each could re-root it again, a pass over
    /// every value each). At most `budget` re-rootings in all: past them, joins are left to the
    /// propagation (which reads the component's arcs within the batch's limit, past which the
    /// batch recomputes). Whether any re-rooting happened, `None` when hops would overflow.
    fn relabel_in_order(
        &mut self,
        arcs: &[EdgeChange],
        candidates: impl Iterator<Item = u32>,
        from: u32,
        budget: &mut u32,
    ) -> Option<bool> {
        let mut order: Vec<(u32, u32)> = candidates
            .filter_map(|i| {
                let e = &arcs[i as usize];
                let labels =
                    (self.label_of(self.val[e.src as usize]), self.label_of(self.val[e.dst as usize]));
                Some((self.join_label(e.op, labels)?, i))
            })
            .collect();
        order.sort_unstable();
        let mut rerooted = false;
        for (_, i) in order {
            if *budget == 0 {
                break;
            }
            if self.relabel_at(&arcs[i as usize], from)? {
                rerooted = true;
                *budget -= 1;
            }
        }
        Some(rerooted)
    }

    /// The smaller of the labels `(lu, lx)` of an arc's ends when the arc is added and the
    /// larger is a large component's (a candidate of step 3a), else `None`.
    fn join_label(&self, op: ArcOp, (lu, lx): (Option<u32>, Option<u32>)) -> Option<u32> {
        let (lu, lx) = (lu?, lx?);
        (matches!(op, ArcOp::Add(_)) && lu != lx && self.sizes.is_large(lu.max(lx))).then_some(lu.min(lx))
    }

    /// Re-roots the component of larger label at the added arc `e` when it has at least `from`
    /// vertices and `e` joins it to a smaller label: whether it did, `None` when hops would
    /// overflow.
    fn relabel_at(&mut self, e: &EdgeChange, from: u32) -> Option<bool> {
        if !matches!(e.op, ArcOp::Add(_)) {
            return Some(false);
        }
        let (Some(lu), Some(lx)) =
            (self.label_of(self.val[e.src as usize]), self.label_of(self.val[e.dst as usize]))
        else {
            return Some(false);
        };
        // `a` keeps its label; `b`, in the component of larger label, is relabelled.
        let (a, b, large) = match lu.cmp(&lx) {
            Ordering::Less => (e.src, e.dst, lx),
            Ordering::Greater => (e.dst, e.src, lu),
            Ordering::Equal => return Some(false),
        };
        if !self.sizes.at_least(large, from) {
            return Some(false);
        }
        self.reroot(a, b, large).then_some(true)
    }

    /// Hangs the tree of `b` (label `large`, rooted at vertex `large`) from `a` by the arc
    /// `a - b`: the path from `b` to the root reversed, every member relabelled with `a`'s label.
    /// False when the new hops would overflow; members relabelled before that was found stay
    /// so, and the caller recomputes the result.
    fn reroot(&mut self, a: Vertex, b: Vertex, large: u32) -> bool {
        let (label, ha) = self.prog.as_label(self.val[a as usize]).expect("labelled");
        let mut path = vec![b];
        let mut y = b;
        while self.parent[y as usize] != y {
            y = self.parent[y as usize];
            path.push(y);
        }
        debug_assert_eq!(y, large);
        let members = |v: &P::Value| self.prog.as_label(*v).filter(|&(l, _)| l == large);
        // Off the path, hops rise by `shift`; the path's vertices get `ha + 1 + i`, below every
        // child's shifted hops (each at least 1 + shift). Shifted hops stay below `room`, which
        // leaves room for the propagation's hops after it (one more per vertex of a path at most).
        let room = u32::MAX - u32::try_from(self.val.len()).unwrap_or(u32::MAX);
        let Some(shift) = ha.checked_add(1 + path.len() as u32).filter(|&s| s <= room) else { return false };
        let below = room - shift;
        // One pass over the values relabels the members (parents unchanged); their count moves
        // to the new label at once.
        let mut count = 0;
        for (x, v) in self.val.iter_mut().enumerate() {
            if let Some((_, h)) = members(v) {
                if h >= below {
                    return false;
                }
                self.old.note(x as Vertex, *v);
                *v = self.prog.labelled_value((label, h + shift)).expect("labelled");
                count += 1;
            }
        }
        self.sizes.transfer(large, label, count);
        let mut up = a;
        for (i, &x) in path.iter().enumerate() {
            let v = self.prog.labelled_value((label, ha + 1 + i as u32)).expect("labelled");
            self.set(x, v, up);
            up = x;
        }
        true
    }

    /// Reads the values of both ends of every arc and the parent of its destination in one
    /// tight pass, so that their cache misses overlap: the steps below read them one arc at a
    /// time, between branches, where each miss would wait on its own (`bench/incremental/run.py`
    /// measures the batches).
    fn warm_values(&self, arcs: &[EdgeChange]) {
        for e in arcs {
            std::hint::black_box(self.val[e.src as usize]);
            std::hint::black_box(self.val[e.dst as usize]);
            std::hint::black_box(self.parent[e.dst as usize]);
        }
    }

    /// For labelled programs, after [`Tree::warm_values`]: loads the counts of the arcs' ends'
    /// labels (which an arc joining two components updates) and, on undirected graphs, notes in
    /// the same pass the sources of `arcs` that were alone in their component before the batch,
    /// with their first arc, in `alone` (such a vertex has no arc to another but the batch's,
    /// so its forward arcs are the batch's added arcs from it, contiguous in `arcs`, which is
    /// sorted by source on undirected graphs), and in `joins` the added arcs whose larger label
    /// is a large component's (the candidates of step 3a). Most additions reach an isolated
    /// vertex, whose list is then not read, and join no large component to a smaller label,
    /// which step 3a then does not look at again. The pass appends without branching on what
    /// it reads, so that the counts' cache misses still overlap.
    fn note_batch(&mut self, arcs: &[EdgeChange], directed: bool) {
        self.alone.clear();
        self.joins.clear();
        if self.sizes.is_empty() {
            return;
        }
        let note = !directed;
        let (mut alone, mut joins) = (std::mem::take(&mut self.alone), std::mem::take(&mut self.joins));
        alone.resize(arcs.len(), (0, 0));
        joins.resize(arcs.len(), 0);
        let (mut na, mut nj) = (0, 0);
        for (i, e) in arcs.iter().enumerate() {
            let (lu, lx) = (self.label_of(self.val[e.src as usize]), self.label_of(self.val[e.dst as usize]));
            let cu = lu.map_or(0, |l| self.sizes.count(l));
            if let Some(l) = lx {
                self.sizes.warm(l);
            }
            let first = i == 0 || arcs[i - 1].src != e.src;
            alone[na] = (e.src, i as u32);
            na += usize::from(note & first & (cu == 1));
            joins[nj] = i as u32;
            nj += usize::from(note & self.join_label(e.op, (lu, lx)).is_some());
        }
        alone.truncate(na);
        joins.truncate(nj);
        (self.alone, self.joins) = (alone, joins);
    }

    /// The index of `x`'s first arc in the current batch when `x` was alone before it
    /// ([`Tree::note_batch`]).
    fn alone_from(&self, x: Vertex) -> Option<u32> {
        self.alone.binary_search_by_key(&x, |a| a.0).ok().map(|k| self.alone[k].1)
    }

    /// Gives up the current batch's repair and propagation and recomputes (the first values
    /// noted for `changes` so far stay: the recomputation notes only what differs from them).
    fn recompute(&mut self, snap: &Snapshot) -> Result<()> {
        self.heap.clear();
        self.quick.clear();
        self.rebuild(snap)
    }

    /// The net arc changes of `changes` as this program sees them (both directions for WCC on a
    /// directed graph, where an arc either way joins its ends).
    fn arcs(&self, changes: &BatchChanges) -> Vec<EdgeChange> {
        let mut net = changes.net_arcs();
        if self.prog.both_directions() && changes.directed {
            let rev: Vec<EdgeChange> =
                net.iter().map(|e| EdgeChange { src: e.dst, dst: e.src, op: e.op }).collect();
            net.extend(rev);
        }
        net
    }
}

/// Breadth-first from `start` (in vertex order) a level at a time, each level in vertex order:
/// `expand(u, next)` pushes the vertices `u` discovers. Through a pool smaller than the lists,
/// reading a level's lists in file order rather than in the order they were discovered turns a
/// random page read per vertex into runs of pages, and a page holding several of the level's
/// lists is read once.
fn by_levels(start: Vec<Vertex>, mut expand: impl FnMut(Vertex, &mut Vec<Vertex>)) {
    let (mut level, mut next) = (start, Vec::new());
    while !level.is_empty() {
        for &u in &level {
            expand(u, &mut next);
        }
        next.sort_unstable();
        std::mem::swap(&mut level, &mut next);
        next.clear();
    }
}

impl<P: Program> Maintained for Tree<P> {
    fn seq(&self) -> u64 {
        self.seq
    }

    fn rebuild(&mut self, snap: &Snapshot) -> Result<()> {
        // Values and parents twice (old and new), the first values noted for `changes`, and the
        // static kernels' state (docs/guide.md, "Memory").
        crate::state::check_state(&format!("maintained {}", self.prog.name()), snap.num_vertices(), 64)?;
        // A vertex with an empty base list (an isolated one, where most additions land on a
        // sparse graph) then costs no read of its bounds: a cache miss in memory, a page read
        // through a pool smaller than the lists (one pass over the offsets, a bit per vertex).
        snap.base().note_empty_lists();
        // A batch that failed midway may have left improvements queued.
        self.heap.clear();
        self.quick.clear();
        let (val, parent) = self.prog.initial(snap)?;
        let before: Vec<P::Value> = std::mem::take(&mut self.val);
        for (x, (&a, &b)) in before.iter().zip(&val).enumerate() {
            if self.prog.output(a) != self.prog.output(b) {
                self.old.note(x as Vertex, a);
            }
        }
        for x in before.len()..val.len() {
            self.old.note(x as Vertex, P::INF);
        }
        self.val = val;
        self.parent = parent;
        self.seq = snap.seq();
        self.count_sizes()
    }

    fn apply(&mut self, changes: &BatchChanges, snap: &Snapshot) -> Result<()> {
        let n = snap.num_vertices();
        let old_n = self.val.len();
        if n > old_n {
            let what = || format!("maintained {}'s state for {n} vertices", self.prog.name());
            if !self.sizes.is_empty() {
                self.sizes.resize(n, what)?;
            }
            self.old.reserve(n, what)?;
            try_resize(&mut self.val, n, P::INF, what)?;
            try_resize(&mut self.parent, n, NONE, what)?;
        }
        for x in old_n..n {
            if let Some(s) = self.prog.seed(x as Vertex) {
                self.offer(x as Vertex, s, x as Vertex);
            }
        }
        let arcs = self.arcs(changes);
        self.read = 0;
        self.limit = self.recompute_after.unwrap_or_else(|| (snap.base().out().num_arcs() / 8).max(1 << 16));
        // 1-2. Tree arcs removed or made heavier.
        let threads = self.warm_threads(snap);
        if threads > 0 {
            let checked: Vec<Vertex> = arcs
                .iter()
                .filter(|e| e.src != e.dst && self.parent[e.dst as usize] == e.src)
                .map(|e| e.dst)
                .collect();
            warm(&self.lists(snap, true), &checked, threads);
        }
        self.warm_values(&arcs);
        self.note_batch(&arcs, changes.directed);
        let mut roots = Vec::new();
        for e in &arcs {
            let (u, x) = (e.src, e.dst);
            // An unweighted program's tree arc added again still yields its end's value.
            let unweighted_add = matches!(e.op, ArcOp::Add(_)) && !self.prog.weighted();
            if u == x || unweighted_add || self.parent[x as usize] != u {
                continue;
            }
            let still = match e.op {
                ArcOp::Add(w) => self.prog.relax(self.val[u as usize], w) <= self.val[x as usize],
                ArcOp::Remove => false,
            };
            if !still {
                match self.other_support(snap, u, x) {
                    Some(y) => self.parent[x as usize] = y,
                    None => roots.push(x),
                }
            }
        }
        let repaired = !roots.is_empty();
        if repaired && !self.repair(snap, roots) {
            return self.recompute(snap);
        }
        // 3a. Large components joined to smaller labels: the arcs `note_batch` listed, when no
        // value changed since (no repair, no new vertex), else every arc.
        if !self.sizes.is_empty() && arcs.iter().any(|e| matches!(e.op, ArcOp::Add(_))) {
            let joins = std::mem::take(&mut self.joins);
            let listed = (!repaired && n == old_n && !changes.directed).then_some(&joins[..]);
            if !self.propagate(snap, &arcs)? || !self.relabel_large(&arcs, listed) {
                return self.recompute(snap);
            }
            self.joins = joins;
        }
        // 3. Added or lighter arcs relax forward.
        for e in &arcs {
            if let ArcOp::Add(w) = e.op {
                if self.prog.weighted() && bad_weight(w) {
                    return Err(Error::invalid(format!(
                        "{}: arc {} -> {} has weight {w}; shortest paths need non-negative weights",
                        self.prog.name(),
                        e.src,
                        e.dst
                    )));
                }
                let vu = self.val[e.src as usize];
                if vu < P::INF {
                    self.offer(e.dst, self.prog.relax(vu, w), e.src);
                }
            }
        }
        // 4. Propagate.
        if !self.propagate(snap, &arcs)? {
            return self.recompute(snap);
        }
        self.seq = changes.seq;
        Ok(())
    }

    fn result(&self) -> Values {
        collect(self.val.iter().map(|&v| self.prog.output(v)), self.val.len(), P::FLOAT_OUTPUT)
    }

    fn changes(&mut self) -> Changes {
        let mut vs = self.old.drain();
        vs.retain(|&(x, o)| self.prog.output(self.val[x as usize]) != self.prog.output(o));
        Changes {
            vertices: vs.iter().map(|e| e.0).collect(),
            old: collect(vs.iter().map(|e| self.prog.output(e.1)), vs.len(), P::FLOAT_OUTPUT),
            new: collect(
                vs.iter().map(|e| self.prog.output(self.val[e.0 as usize])),
                vs.len(),
                P::FLOAT_OUTPUT,
            ),
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.val.len() * 16);
        bytes::put_u64(&mut out, self.val.len() as u64);
        for (&v, &p) in self.val.iter().zip(&self.parent) {
            P::encode(v, &mut out);
            out.extend_from_slice(&p.to_le_bytes());
        }
        out
    }

    fn decode(&mut self, seq: u64, n: usize, mut b: &[u8]) -> Option<()> {
        // At least a parent's 4 bytes per vertex: checked before the arrays are sized.
        if bytes::get_u64(&mut b)? != n as u64 || b.len() / 4 < n {
            return None;
        }
        let (mut val, mut parent) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let (v, p) = (P::decode(&mut b)?, bytes::get_u32(&mut b)?);
            // Parents and labels are vertices: another value would index past the arrays.
            if (p != NONE && p as usize >= n) || self.label_of(v).is_some_and(|l| l as usize >= n) {
                return None;
            }
            val.push(v);
            parent.push(p);
        }
        if !b.is_empty() {
            return None;
        }
        (self.val, self.parent, self.seq) = (val, parent, seq);
        self.old.clear();
        self.count_sizes().ok()
    }
}

/// Outputs as one array: floats when `float` (the program's [`Program::FLOAT_OUTPUT`]), else
/// integers, so that an empty array has the type a full one would.
fn collect(it: impl Iterator<Item = Out>, n: usize, float: bool) -> Values {
    if float {
        let mut v = Vec::with_capacity(n);
        v.extend(it.map(|o| if let Out::Float(f) = o { f } else { f64::NAN }));
        Values::Float(v)
    } else {
        let mut v = Vec::with_capacity(n);
        v.extend(it.map(|o| if let Out::Int(i) = o { i } else { -1 }));
        Values::Int(v)
    }
}

/// Breadth-first search hop distances from a source (`-1`: unreachable).
pub struct Bfs {
    /// The source vertex.
    pub source: Vertex,
}

impl Program for Bfs {
    type Value = u32;
    const INF: u32 = u32::MAX;

    fn name(&self) -> String {
        format!("bfs-source-{}", self.source)
    }
    fn seed(&self, v: Vertex) -> Option<u32> {
        (v == self.source).then_some(0)
    }
    fn relax(&self, from: u32, _w: f32) -> u32 {
        from + 1
    }
    fn both_directions(&self) -> bool {
        false
    }
    fn weighted(&self) -> bool {
        false
    }
    fn output(&self, v: u32) -> Out {
        Out::Int(if v == u32::MAX { -1 } else { i64::from(v) })
    }
    const FLOAT_OUTPUT: bool = false;
    fn initial(&self, snap: &Snapshot) -> Result<(Vec<u32>, Vec<Vertex>)> {
        let r = crate::bfs(&snap.out(), &snap.in_(), self.source)?;
        Ok((r.depth, r.parent))
    }
    fn encode(v: u32, out: &mut Vec<u8>) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    fn decode(b: &mut &[u8]) -> Option<u32> {
        bytes::get_u32(b)
    }
}

/// Shortest-path distances from a source over non-negative weights (infinity: unreachable).
/// The value is `(distance, hops)`: among shortest paths the one with fewest arcs gives the
/// parent, so zero-weight arcs cannot close a cycle of parents.
pub struct Sssp {
    /// The source vertex.
    pub source: Vertex,
}

impl Program for Sssp {
    type Value = (f64, u32);
    const INF: (f64, u32) = (f64::INFINITY, u32::MAX);

    fn name(&self) -> String {
        format!("sssp-source-{}", self.source)
    }
    fn seed(&self, v: Vertex) -> Option<(f64, u32)> {
        (v == self.source).then_some((0.0, 0))
    }
    fn relax(&self, from: (f64, u32), w: f32) -> (f64, u32) {
        (from.0 + w as f64, from.1 + 1)
    }
    fn both_directions(&self) -> bool {
        false
    }
    fn weighted(&self) -> bool {
        true
    }
    fn output(&self, v: (f64, u32)) -> Out {
        Out::Float(v.0)
    }
    const FLOAT_OUTPUT: bool = true;
    /// Static delta-stepping distances, then a BFS over the tight arcs (`d(u) + w == d(x)`) for
    /// the hops and parents.
    fn initial(&self, snap: &Snapshot) -> Result<(Vec<(f64, u32)>, Vec<Vertex>)> {
        let dist = crate::sssp(&snap.out(), self.source, None)?;
        let n = dist.len();
        let mut val = vec![Self::INF; n];
        let mut parent = vec![NONE; n];
        val[self.source as usize] = (0.0, 0);
        parent[self.source as usize] = self.source;
        let out = snap.out();
        by_levels(vec![self.source], |u, next| {
            let vu = val[u as usize];
            arcs_of(&out, u, true, |x, w| {
                let x_ = x as usize;
                if parent[x_] == NONE && vu.0 + w as f64 == dist[x_] {
                    val[x_] = (dist[x_], vu.1 + 1);
                    parent[x_] = u;
                    next.push(x);
                }
            });
        });
        if let Some(v) = (0..n).find(|&v| dist[v].is_finite() && parent[v] == NONE) {
            return Err(Error::invalid(format!("{}: vertex {v} has no tight in-arc", self.name())));
        }
        Ok((val, parent))
    }
    fn encode(v: (f64, u32), out: &mut Vec<u8>) {
        out.extend_from_slice(&v.0.to_le_bytes());
        out.extend_from_slice(&v.1.to_le_bytes());
    }
    fn decode(b: &mut &[u8]) -> Option<(f64, u32)> {
        Some((f64::from_bits(bytes::get_u64(b)?), bytes::get_u32(b)?))
    }
}

/// The share of the vertices (`1 / GIANT_BFS_SHARE`) a component needs for [`Wcc`]'s first
/// computation to run the static BFS kernel on it.
const GIANT_BFS_SHARE: usize = 64;

/// The smallest vertex of the largest component of `label` (labels are components' smallest
/// vertices), when that component holds at least `1 / GIANT_BFS_SHARE` of the vertices.
fn giant_root(label: &[Vertex]) -> Option<Vertex> {
    let mut size = vec![0u32; label.len()];
    for &l in label {
        size[l as usize] += 1;
    }
    let (root, &largest) = size.iter().enumerate().max_by_key(|&(v, &s)| (s, std::cmp::Reverse(v)))?;
    (largest as usize * GIANT_BFS_SHARE >= label.len()).then_some(root as Vertex)
}

/// Weakly connected components, labelled by their smallest vertex id. The value is `(label,
/// hops to the labelling vertex)`; every vertex seeds itself.
pub struct Wcc;

impl Program for Wcc {
    type Value = (u32, u32);
    const INF: (u32, u32) = (u32::MAX, u32::MAX);

    fn name(&self) -> String {
        "wcc".into()
    }
    fn seed(&self, v: Vertex) -> Option<(u32, u32)> {
        Some((v, 0))
    }
    fn relax(&self, from: (u32, u32), _w: f32) -> (u32, u32) {
        (from.0, from.1 + 1)
    }
    /// Only a smaller label: a shorter path to the labelling vertex changes no output, and
    /// following it would re-walk the component after most additions.
    fn improves(&self, new: (u32, u32), old: (u32, u32)) -> bool {
        new.0 < old.0
    }
    fn both_directions(&self) -> bool {
        true
    }
    fn as_label(&self, v: (u32, u32)) -> Option<(u32, u32)> {
        Some(v)
    }
    fn labelled_value(&self, label: (u32, u32)) -> Option<(u32, u32)> {
        Some(label)
    }
    fn weighted(&self) -> bool {
        false
    }
    fn output(&self, v: (u32, u32)) -> Out {
        Out::Int(if v.0 == u32::MAX { -1 } else { i64::from(v.0) })
    }
    const FLOAT_OUTPUT: bool = false;
    /// Static Afforest labels, then a BFS from every component's smallest vertex at once for the
    /// hops and parents. On an undirected graph the largest component, when it holds at least a
    /// 64th of the vertices, gets its hops and parents from the static BFS kernel first
    /// (direction-optimising: its bottom-up steps scan the lists in order, where the queue reads
    /// them one by one, which through a small pool is a random read each); the queue then
    /// covers the other components.
    fn initial(&self, snap: &Snapshot) -> Result<(Vec<(u32, u32)>, Vec<Vertex>)> {
        let label = crate::wcc(&snap.out(), &snap.in_())?;
        let n = label.len();
        let mut val = vec![Self::INF; n];
        let mut parent = vec![NONE; n];
        if !snap.is_directed() {
            if let Some(root) = giant_root(&label) {
                let r = crate::bfs(&snap.out(), &snap.in_(), root)?;
                for (v, (&d, &p)) in r.depth.iter().zip(&r.parent).enumerate() {
                    if d != BfsResult::UNREACHED {
                        val[v] = (root, d);
                        parent[v] = p;
                    }
                }
            }
        }
        let mut roots = Vec::new();
        for v in 0..n as Vertex {
            if label[v as usize] == v && parent[v as usize] == NONE {
                val[v as usize] = (v, 0);
                parent[v as usize] = v;
                roots.push(v);
            }
        }
        let (out, in_) = (snap.out(), snap.in_());
        by_levels(roots, |u, next| {
            let vu = val[u as usize];
            let mut visit = |x: Vertex, _w: f32| {
                if parent[x as usize] == NONE {
                    val[x as usize] = (vu.0, vu.1 + 1);
                    parent[x as usize] = u;
                    next.push(x);
                }
            };
            arcs_of(&out, u, false, &mut visit);
            if snap.is_directed() {
                arcs_of(&in_, u, false, &mut visit);
            }
        });
        Ok((val, parent))
    }
    fn encode(v: (u32, u32), out: &mut Vec<u8>) {
        out.extend_from_slice(&v.0.to_le_bytes());
        out.extend_from_slice(&v.1.to_le_bytes());
    }
    fn decode(b: &mut &[u8]) -> Option<(u32, u32)> {
        Some((bytes::get_u32(b)?, bytes::get_u32(b)?))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
    use ocgraph_core::update::{ChangeSubscriber, Durability, WalItem, WritableGraph, WriteOptions};

    use super::*;

    struct Kept(Mutex<Tree<Bfs>>);

    impl ChangeSubscriber for Kept {
        fn on_batch(&self, changes: &BatchChanges, snap: &Snapshot) {
            self.0.lock().unwrap().apply(changes, snap).unwrap();
        }
    }

    /// Source 0, leaves `1..=k` joined to it and to the hub `k + 1`, whose `k` in-arcs are
    /// removed in list order, one per batch: the hub's parent is drawn among the leaves left, so
    /// few removals take it (about `ln k`); the first leaf found would be taken by every one.
    #[test]
    fn removals_in_list_order_rarely_take_the_parent() {
        let k: u32 = 2000;
        let hub = k + 1;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut b = GraphBuilder::new(&dir, BuildOptions::default()).unwrap();
        let leaves: Vec<Vertex> = (1..=k).collect();
        b.push(&vec![0; k as usize], &leaves, None).unwrap();
        b.push(&leaves, &vec![hub; k as usize], None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let opts =
            WriteOptions { durability: Durability::None, auto_compact_levels: None, ..Default::default() };
        let w = WritableGraph::open(&dir, &opts).unwrap();
        let mut tree = Tree::empty(Bfs { source: 0 });
        tree.rebuild(&w.snapshot()).unwrap();
        let kept = Arc::new(Kept(Mutex::new(tree)));
        w.subscribe(kept.clone()).unwrap();
        let mut taken = 0;
        for leaf in 1..k {
            taken += usize::from(kept.0.lock().unwrap().parent[hub as usize] == leaf);
            w.update(&[WalItem::RemoveEdge { src: leaf, dst: hub }]).unwrap();
            let t = kept.0.lock().unwrap();
            assert_eq!(t.val[hub as usize], 2, "after removing {leaf} -> {hub}");
            assert!(t.parent[hub as usize] > leaf, "parent {} after removing {leaf}", t.parent[hub as usize]);
        }
        assert_eq!(kept.0.lock().unwrap().parent[hub as usize], k);
        assert!(taken <= 30, "{taken} of {} removals took the hub's parent", k - 1);
    }
}
