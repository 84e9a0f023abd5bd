//! In-lists of unvisited vertices kept in memory between BFS steps.
//!
//! Out of core, every bottom-up step of a BFS reads the in-lists of all unvisited vertices, and
//! those are scattered over every page of the graph: on kron22 from its highest-degree vertex
//! with the pool at 10% of the graph, the first bottom-up step read 410 ms worth of lists, the
//! second 363 ms, and the top-down step after them 343 ms (hand-instrumented, 2 threads). But
//! the vertices a bottom-up step leaves unvisited have few arcs: after that first step, 188 K
//! vertices with 226 K arcs in all, against 128 M arcs in the graph. So a bottom-up step that
//! reads from the graph copies the lists it scanned in vain into a [`ListStash`], while the copy
//! stays within a byte budget, and the later steps work from memory:
//! - bottom-up steps scan the stash instead of the graph ([`ListStash::bottom_up`]);
//! - top-down steps of an undirected graph (whose in-lists are its out-lists) take the
//!   frontier's lists from the stash ([`ListStash::list`]): a frontier vertex found after the
//!   stash was made was unvisited then, so its list is in it.
//!
//! A stash is complete or absent: when the budget runs out while it is built, it is dropped, and
//! the next bottom-up step that reads from the graph tries again with fewer unvisited vertices.
//! Vertices without arcs are never stashed (a bottom-up step cannot find them). The budget
//! bounds the stash once built; while a step builds it, the growing vectors may hold up to
//! twice that, plus [`COUNT_EVERY`] bytes per thread not yet counted.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering::Relaxed};

use ocgraph_core::Vertex;
use rayon::prelude::*;

use crate::bitmap::Bitmap;
use crate::chunks::VERTEX_BLOCK;

/// Marks "no parent yet" (as in `bfs`).
const NONE: u32 = u32::MAX;

/// Memory of one stashed list beyond its arcs: the vertex id and its end offset.
const ENTRY_BYTES: usize = 8;

/// Bytes a part keeps before it counts them in the builder's shared total (so the stash may
/// pass its budget by this much per thread before the builder notices).
const COUNT_EVERY: usize = 64 << 10;

/// The stashed lists of one block of [`VERTEX_BLOCK`] vertices, in vertex order.
#[derive(Default)]
pub(crate) struct Part {
    /// First vertex of the block.
    block: Vertex,
    vertices: Vec<Vertex>,
    /// `ends[i]`: end of `vertices[i]`'s list in `arcs` (its start is `ends[i - 1]`, or 0).
    ends: Vec<u32>,
    arcs: Vec<Vertex>,
    /// Bytes kept in this part not yet counted in the builder's shared total.
    uncounted: usize,
}

impl Part {
    /// An empty part for the block starting at `block`.
    pub(crate) fn new(block: Vertex) -> Part {
        Part { block, ..Part::default() }
    }

    /// Appends `v`'s list (vertices come in increasing order).
    pub(crate) fn push(&mut self, v: Vertex, list: &[Vertex]) {
        self.vertices.push(v);
        self.arcs.extend_from_slice(list);
        self.ends.push(self.arcs.len() as u32);
    }

    fn range(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        start..self.ends[i] as usize
    }

    fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// First vertex of the block.
    pub(crate) fn block(&self) -> Vertex {
        self.block
    }

    /// The lists of this part, in vertex order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Vertex, &[Vertex])> {
        (0..self.vertices.len()).map(|i| (self.vertices[i], &self.arcs[self.range(i)]))
    }
}

/// Builds a [`ListStash`] during a bottom-up step, within a byte budget shared by the threads.
pub(crate) struct StashBuilder {
    budget: usize,
    used: AtomicUsize,
    over: AtomicBool,
}

impl StashBuilder {
    /// A builder that gives up once the lists exceed `budget` bytes.
    pub(crate) fn new(budget: usize) -> StashBuilder {
        StashBuilder { budget, used: AtomicUsize::new(0), over: AtomicBool::new(budget == 0) }
    }

    /// Stashes `v`'s non-empty `list` in `part`, unless the budget has run out. A part counts
    /// its bytes in the shared total every [`COUNT_EVERY`] bytes (and at [`StashBuilder::close`]),
    /// not at every list: the threads then rarely write the same counter.
    #[inline]
    pub(crate) fn keep(&self, part: &mut Part, v: Vertex, list: &[Vertex]) {
        if list.is_empty() || self.over.load(Relaxed) {
            return;
        }
        part.push(v, list);
        part.uncounted += ENTRY_BYTES + 4 * list.len();
        if part.uncounted >= COUNT_EVERY {
            self.count(part);
        }
    }

    /// Adds `part`'s uncounted bytes to the shared total, noting when it passes the budget.
    fn count(&self, part: &mut Part) {
        let bytes = std::mem::take(&mut part.uncounted);
        if self.used.fetch_add(bytes, Relaxed) + bytes > self.budget {
            self.over.store(true, Relaxed);
        }
    }

    /// Counts the rest of `part`'s bytes: call once its block is scanned.
    pub(crate) fn close(&self, part: &mut Part) {
        if part.uncounted > 0 {
            self.count(part);
        }
    }

    /// The stash of the parts the threads built, or `None` when the budget ran out.
    pub(crate) fn finish(self, parts: impl IntoIterator<Item = Part>) -> Option<ListStash> {
        let mut parts: Vec<Part> = parts.into_iter().filter(|p| !p.is_empty()).collect();
        for p in &mut parts {
            self.close(p);
        }
        if self.over.load(Relaxed) {
            return None;
        }
        parts.sort_unstable_by_key(|p| p.block);
        // The budget counts entries; drop the vectors' spare capacity so it bounds the memory.
        for p in &mut parts {
            p.vertices.shrink_to_fit();
            p.ends.shrink_to_fit();
            p.arcs.shrink_to_fit();
        }
        Some(ListStash { parts })
    }
}

/// The lists of the vertices a bottom-up step left unvisited (see the module documentation).
pub(crate) struct ListStash {
    /// Non-empty parts sorted by block.
    parts: Vec<Part>,
}

impl ListStash {
    /// The stashed list of `v`, if any.
    pub(crate) fn list(&self, v: Vertex) -> Option<&[Vertex]> {
        let block = v / VERTEX_BLOCK * VERTEX_BLOCK;
        let p = &self.parts[self.parts.binary_search_by_key(&block, |p| p.block).ok()?];
        let i = p.vertices.binary_search(&v).ok()?;
        Some(&p.arcs[p.range(i)])
    }

    /// Lookups of [`ListStash::list`] for vertices in non-decreasing order (a sorted frontier),
    /// each searching on from where the one before stopped.
    pub(crate) fn sorted_lookup(&self) -> SortedLookup<'_> {
        SortedLookup { stash: self, part: 0, at: 0 }
    }

    /// A bottom-up step at depth `level` from memory: every stashed unvisited vertex looks for an
    /// in-neighbour in `front`; those found get `level + 1` and are set in `next`. Drops the
    /// entries of vertices visited before this step (neither step after it needs them) and
    /// returns the number of vertices found.
    pub(crate) fn bottom_up(
        &mut self,
        parent: &[AtomicU32],
        depth: &[AtomicU32],
        front: &Bitmap,
        next: &Bitmap,
        level: u32,
    ) -> u64 {
        let found = self
            .parts
            .par_iter_mut()
            .map(|p| {
                let mut found = 0;
                let (mut kept, mut end) = (0, 0);
                for i in 0..p.vertices.len() {
                    let (w, r) = (p.vertices[i], p.range(i));
                    if parent[w as usize].load(Relaxed) != NONE {
                        continue;
                    }
                    if let Some(&u) = p.arcs[r.clone()].iter().find(|&&u| front.get(u)) {
                        parent[w as usize].store(u, Relaxed);
                        depth[w as usize].store(level + 1, Relaxed);
                        // A part is one block, a multiple of 64 vertices: this task owns the word.
                        next.set_in_owned_word(w);
                        found += 1;
                    }
                    // Keep the entry, moved down over the dropped ones.
                    let len = r.len();
                    p.arcs.copy_within(r, end);
                    end += len;
                    p.vertices[kept] = w;
                    p.ends[kept] = end as u32;
                    kept += 1;
                }
                p.vertices.truncate(kept);
                p.ends.truncate(kept);
                p.arcs.truncate(end);
                found
            })
            .sum();
        self.parts.retain(|p| !p.is_empty());
        found
    }
}

/// See [`ListStash::sorted_lookup`].
pub(crate) struct SortedLookup<'a> {
    stash: &'a ListStash,
    /// The part of the last lookup, and the position in its vertices to search on from.
    part: usize,
    at: usize,
}

impl<'a> SortedLookup<'a> {
    /// The stashed list of `v`, if any; `v` must not be below the vertex of the last call.
    pub(crate) fn list(&mut self, v: Vertex) -> Option<&'a [Vertex]> {
        let parts = &self.stash.parts;
        let block = v / VERTEX_BLOCK * VERTEX_BLOCK;
        if parts.get(self.part).is_none_or(|p| p.block != block) {
            let rest = parts.get(self.part..).unwrap_or(&[]);
            self.part += rest.partition_point(|p| p.block < block);
            self.at = 0;
        }
        let p = parts.get(self.part).filter(|p| p.block == block)?;
        self.at += p.vertices[self.at..].partition_point(|&x| x < v);
        (p.vertices.get(self.at) == Some(&v)).then(|| &p.arcs[p.range(self.at)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atomics(v: &[u32]) -> Vec<AtomicU32> {
        v.iter().map(|&x| AtomicU32::new(x)).collect()
    }

    #[test]
    fn a_stash_over_budget_is_dropped_and_lists_are_found_by_vertex() {
        let b = StashBuilder::new(2 * ENTRY_BYTES + 4 * 3);
        let (mut p0, mut p1) = (Part::new(0), Part::new(VERTEX_BLOCK));
        b.keep(&mut p0, 5, &[1, 2]);
        b.keep(&mut p0, 6, &[]);
        b.keep(&mut p1, VERTEX_BLOCK + 1, &[7]);
        let s = b.finish([p1, p0]).expect("within budget");
        assert_eq!(s.list(5), Some(&[1, 2][..]));
        assert_eq!(s.list(VERTEX_BLOCK + 1), Some(&[7][..]));
        assert_eq!((s.list(6), s.list(4), s.list(2 * VERTEX_BLOCK)), (None, None, None));
        // Sorted lookups agree with single ones, over stashed, unstashed and repeated vertices.
        let mut sorted = s.sorted_lookup();
        for v in [0, 4, 5, 5, 6, VERTEX_BLOCK, VERTEX_BLOCK + 1, VERTEX_BLOCK + 1, 2 * VERTEX_BLOCK] {
            assert_eq!(sorted.list(v), s.list(v), "vertex {v}");
        }
        // One arc more than the budget: no stash.
        let b = StashBuilder::new(2 * ENTRY_BYTES + 4 * 3);
        let mut p = Part::new(0);
        b.keep(&mut p, 1, &[1, 2]);
        b.keep(&mut p, 2, &[1, 2]);
        assert!(b.finish([p]).is_none());
        assert!(StashBuilder::new(0).finish([]).is_none(), "budget 0 keeps nothing");
    }

    #[test]
    fn bottom_up_from_the_stash_finds_parents_and_drops_visited_entries() {
        // Vertices 1, 2, 3 stashed; 0 is the frontier; 3 was visited by another step.
        let b = StashBuilder::new(1 << 20);
        let mut p = Part::new(0);
        b.keep(&mut p, 1, &[0, 2]);
        b.keep(&mut p, 2, &[1, 3]);
        b.keep(&mut p, 3, &[2]);
        let mut s = b.finish([p]).unwrap();
        let parent = atomics(&[0, NONE, NONE, 9]);
        let depth = atomics(&[0, NONE, NONE, 4]);
        let (front, next) = (Bitmap::new(4), Bitmap::new(4));
        front.set(0);
        assert_eq!(s.bottom_up(&parent, &depth, &front, &next, 0), 1);
        assert_eq!((parent[1].load(Relaxed), depth[1].load(Relaxed)), (0, 1));
        assert_eq!(parent[2].load(Relaxed), NONE);
        assert!(next.get(1) && !next.get(2));
        // 3 is dropped; 1 (found now) and 2 (still unvisited) keep their lists.
        assert_eq!((s.list(1), s.list(2), s.list(3)), (Some(&[0, 2][..]), Some(&[1, 3][..]), None));
        // Next level: 2 finds 1; then 1 (visited before that step) is dropped.
        let front2 = Bitmap::new(4);
        front2.set(1);
        next.clear();
        assert_eq!(s.bottom_up(&parent, &depth, &front2, &next, 1), 1);
        assert_eq!((parent[2].load(Relaxed), depth[2].load(Relaxed)), (1, 2));
        assert_eq!((s.list(1), s.list(2)), (None, Some(&[1, 3][..])));
    }
}
