//! [`WatchStore`]: a watch's own copy of the current neighbour lists of the vertices updates
//! have changed (Tesseract keeps its own store too), so that a stream of batches is watched
//! without reading the graph's snapshots.
//!
//! The lists of the undirected simple view are read from the graph as it was when the watch
//! started (`start`, never changed), except for the vertices some batch changed a pair of: the
//! store holds their current list (sorted, one entry per neighbour, no self-loop), copied from
//! `start` at the first change and then edited by every changed pair. A batch is given as the
//! pairs it set (`(u, v, true)`: `u - v` is an edge after it, `false`: not), in batch order, the
//! last one per pair winning; the store finds which ones change the graph, explores the
//! removed matches on its lists before the batch, applies the batch to them, and explores the
//! added ones after. A list read is an index lookup lending the stored list (no merge of a
//! delta, no copy), or a read of `start`.
//!
//! Memory: 4 bytes per vertex (the index) plus the lists of the changed vertices, 4 bytes per
//! neighbour.

use ocgraph_core::memory::try_resize;
use ocgraph_core::{Adjacency, Result, Vertex};

use super::watch::{Changed, Changes, Watch, WorkerBuffers};
use super::{ListBuf, ListSource, Undirected};
use crate::bfs::check_directions;

/// The current lists of the vertices a watched stream changed (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct WatchStore {
    /// Current number of vertices.
    n: usize,
    /// `slot[v]`: one more than the index of `v`'s list in `lists`; 0 when `v` is unchanged.
    slot: Vec<u32>,
    lists: Vec<Vec<Vertex>>,
    /// The search's buffers, kept from one batch to the next.
    buffers: WorkerBuffers,
    /// Whether every list of `start` is simple, found by one pass at the first batch (see
    /// [`Undirected::lists_are_simple`]): its hubs are then lent without a check per read.
    start_simple: Option<bool>,
}

/// Stored lists up to this length are searched without looking at the other end's degree.
const SHORT: usize = 64;

/// The lists a search reads: the store's, else those of the graph at the start.
struct Tracked<'a, O, I> {
    start: Undirected<'a, O, I>,
    store: &'a WatchStore,
}

impl<'a, O: Adjacency, I: Adjacency> Tracked<'a, O, I> {
    fn stored(&self, v: Vertex) -> Option<&'a [Vertex]> {
        let store: &'a WatchStore = self.store;
        match store.slot.get(v as usize) {
            Some(&s) if s > 0 => Some(&store.lists[s as usize - 1]),
            _ => None,
        }
    }
}

impl<'a, O: Adjacency, I: Adjacency> ListSource<'a> for Tracked<'a, O, I> {
    fn num_vertices(&self) -> usize {
        self.store.n
    }

    fn read(&self, v: Vertex, buf: &mut ListBuf<'a>) {
        match self.stored(v) {
            Some(l) => buf.lend(l),
            None if (v as usize) < self.start.num_vertices() => self.start.read(v, buf),
            None => buf.clear(),
        }
    }

    fn adjacent(&self, u: Vertex, v: Vertex) -> bool {
        let n = self.store.n;
        if (u as usize) >= n || (v as usize) >= n {
            return false;
        }
        // Each side's list is current, so either answers: search the shorter (a hub's list
        // costs a cache miss per step of a binary search).
        let shorter_at_start = |l: &[Vertex], x: Vertex| {
            l.len() > SHORT && (x as usize) < self.start.num_vertices() && self.start.degree(x) < l.len()
        };
        match (self.stored(u), self.stored(v)) {
            (Some(lu), Some(lv)) if lv.len() < lu.len() => lv.binary_search(&u).is_ok(),
            (Some(l), Some(_)) => l.binary_search(&v).is_ok(),
            (Some(l), None) if shorter_at_start(l, v) => self.start.lists_hold(v, u),
            (Some(l), None) => l.binary_search(&v).is_ok(),
            (None, Some(l)) if shorter_at_start(l, u) => self.start.lists_hold(u, v),
            (None, Some(l)) => l.binary_search(&u).is_ok(),
            (None, None) => self.start.adjacent(u, v),
        }
    }
}

impl WatchStore {
    /// A store for a graph of `num_vertices` vertices, as it is when the watch starts.
    pub fn new(num_vertices: usize) -> WatchStore {
        WatchStore { n: num_vertices, ..WatchStore::default() }
    }

    /// Records that the graph now has `num_vertices` vertices (added vertices have no edge).
    pub fn set_num_vertices(&mut self, num_vertices: usize) {
        self.n = self.n.max(num_vertices);
    }

    /// The current simple undirected neighbour list of `v` (empty for an unknown vertex), given
    /// the graph `start` the watch started on.
    pub fn neighbors<O: Adjacency, I: Adjacency>(&self, start: (&O, &I), v: Vertex) -> Vec<Vertex> {
        let g = Tracked { start: Undirected::new(start.0, start.1), store: self };
        let mut buf = ListBuf::default();
        if (v as usize) < g.num_vertices() {
            g.read(v, &mut buf);
        }
        buf.to_vec()
    }

    /// The matches of `watch` that the batch setting the pairs `updates` (`(u, v, edge after)`,
    /// in batch order, the last one per pair winning; self-loops and pairs beyond the vertex
    /// count ignored) and the labels `relabels` made appear, disappear and change labels;
    /// applies the batch's pairs to the store. `start` is the graph the watch started on (the
    /// same every call); `labels` (before the batch) and `relabels` as in [`Watch::apply`]:
    /// the caller keeps the labels and applies `relabels` to them afterwards.
    ///
    /// Errors: a labelled pattern without enough `labels`; directions disagreeing.
    pub fn apply<O: Adjacency, I: Adjacency>(
        &mut self,
        watch: &Watch,
        start: (&O, &I),
        labels: Option<&[u32]>,
        updates: &[(Vertex, Vertex, bool)],
        relabels: &[(Vertex, u32)],
    ) -> Result<Changes> {
        check_directions(start.0, start.1)?;
        let start = Undirected::new(start.0, start.1);
        let start = start.knowing_simple(*self.start_simple.get_or_insert_with(|| start.lists_are_simple()));
        let changed = self.changed(&Tracked { start, store: self }, updates);
        let relabelled = watch.relabelled(labels, relabels);
        if changed.pairs.is_empty() && relabelled.is_empty() {
            return Ok(Changes::default());
        }
        // The slots of the changed vertices, grown before the batch is matched (on billions of
        // vertices they may not fit the machine).
        let top = changed.pairs.iter().map(|&(u, v)| u.max(v) as usize + 1).max().unwrap_or(0);
        if self.slot.len() < top {
            try_resize(&mut self.slot, top, 0, || format!("a watch's slots of {top} vertices"))?;
        }
        // Taken out while the store is read through `Tracked`, and put back for the next batch.
        let mut buffers = std::mem::take(&mut self.buffers);
        let g = Tracked { start, store: self };
        let (removed, modified) = watch.side(&g, false, labels, &changed, &relabelled, &mut buffers)?;
        self.edit(&start, &changed);
        let g = Tracked { start, store: self };
        let (added, _) = watch.side(&g, true, labels, &changed, &relabelled, &mut buffers)?;
        self.buffers = buffers;
        Ok(Changes { added, removed, modified })
    }

    /// [`WatchStore::apply`] for a batch given as the pairs it touched (`pairs`, any order,
    /// repeats allowed) and the graph `after` it: each pair's state after the batch is read
    /// from `after`, whose vertex count the store takes. For callers that see a batch as the
    /// graph before and after it (the Python watches).
    #[allow(clippy::too_many_arguments)]
    pub fn apply_pairs<O: Adjacency, I: Adjacency, AO: Adjacency, AI: Adjacency>(
        &mut self,
        watch: &Watch,
        start: (&O, &I),
        after: (&AO, &AI),
        labels: Option<&[u32]>,
        pairs: &[(Vertex, Vertex)],
        relabels: &[(Vertex, u32)],
    ) -> Result<Changes> {
        check_directions(after.0, after.1)?;
        let after = Undirected::for_point_reads(after.0, after.1);
        self.set_num_vertices(after.num_vertices());
        let updates: Vec<(Vertex, Vertex, bool)> =
            pairs.iter().map(|&(u, v)| (u, v, after.adjacent(u, v))).collect();
        self.apply(watch, start, labels, &updates, relabels)
    }

    /// The pairs of `updates` whose final state differs from the graph's `g` now.
    fn changed<'a, O: Adjacency, I: Adjacency>(
        &self,
        g: &Tracked<'a, O, I>,
        updates: &[(Vertex, Vertex, bool)],
    ) -> Changed {
        let n = self.n as Vertex;
        let mut net: Vec<(Vertex, Vertex, bool)> = updates
            .iter()
            .filter(|&&(u, v, _)| u != v && u < n && v < n)
            .map(|&(u, v, e)| (u.min(v), u.max(v), e))
            .collect();
        // Stable: batch order within a pair, so its last update is its final state.
        net.sort_by_key(|&(u, v, _)| (u, v));
        let mut changed = Changed::default();
        for (i, &(u, v, e)) in net.iter().enumerate() {
            let last = net.get(i + 1).is_none_or(|&(x, y, _)| (x, y) != (u, v));
            if last && g.adjacent(u, v) != e {
                changed.pairs.push((u, v));
                changed.edge_after.push(e);
            }
        }
        changed
    }

    /// Applies the `changed` pairs to the stored lists (copying a vertex's list from `start`
    /// at its first change): one pass per vertex. The slots of their ends are there already
    /// (grown by [`WatchStore::apply`]).
    fn edit<O: Adjacency, I: Adjacency>(&mut self, start: &Undirected<'_, O, I>, changed: &Changed) {
        let mut ends: Vec<(Vertex, Vertex, bool)> = Vec::with_capacity(2 * changed.pairs.len());
        for (&(u, v), &e) in changed.pairs.iter().zip(&changed.edge_after) {
            ends.push((u, v, e));
            ends.push((v, u, e));
        }
        ends.sort_unstable_by_key(|&(u, v, _)| (u, v));
        let mut merged = Vec::new();
        for group in ends.chunk_by(|a, b| a.0 == b.0) {
            let u = group[0].0;
            let list = self.list_mut(start, u);
            if let [(_, v, e)] = *group {
                match (list.binary_search(&v), e) {
                    (Err(at), true) => list.insert(at, v),
                    (Ok(at), false) => {
                        list.remove(at);
                    }
                    _ => unreachable!("a changed pair flips its adjacency"),
                }
                continue;
            }
            // Several changes: one merge of the sorted list with the sorted changes.
            merged.clear();
            merged.reserve(list.len() + group.len());
            let mut i = 0;
            for &(_, v, e) in group {
                let at = i + list[i..].partition_point(|&x| x < v);
                merged.extend_from_slice(&list[i..at]);
                i = at + (list.get(at) == Some(&v)) as usize;
                if e {
                    merged.push(v);
                }
            }
            merged.extend_from_slice(&list[i..]);
            std::mem::swap(list, &mut merged);
        }
    }

    /// `u`'s stored list, copied from `start` first when `u` has none yet.
    fn list_mut<O: Adjacency, I: Adjacency>(
        &mut self,
        start: &Undirected<'_, O, I>,
        u: Vertex,
    ) -> &mut Vec<Vertex> {
        if self.slot[u as usize] == 0 {
            let mut list = Vec::new();
            if (u as usize) < start.num_vertices() {
                start.fill(u, &mut list);
            }
            self.lists.push(list);
            self.slot[u as usize] = self.lists.len() as u32;
        }
        &mut self.lists[self.slot[u as usize] as usize - 1]
    }
}
