//! Graph pattern mining: k-cliques, motif censuses, user patterns, and watched patterns kept
//! current as a writable graph changes.
//!
//! Every miner reads the *undirected simple view* of the graph (arc directions ignored,
//! self-loops and duplicate arcs dropped) through the [`Adjacency`] trait, so it runs on every
//! backend, the buffer pool with a small budget included; the directed triad census alone reads
//! arc directions. Work is split over first vertices and run on the caller's rayon pool.
//!
//! - [`cliques`]: k-clique counting and listing on a degree-ordered DAG.
//! - [`motifs`]: induced 3- and 4-vertex undirected motif census, 16-class directed triad census.
//! - [`pattern`]: a user pattern (edge list, optional labels), edge- or vertex-induced.
//! - [`watch`]: incremental matching (Tesseract) of a watched pattern across update batches.
//! - [`net_changes`]: a watched pattern's changes over several batches, netted.
//! - [`plan`]: patterns, automorphisms, symmetry breaking, matching orders.
//! - `listing`: matches listed in memory, held to the memory available.
//!
//! Memory (per-vertex state, besides what the backend caches): cliques and the censuses hold
//! the oriented DAG (4 bytes per undirected edge, 8 per vertex of offsets) and ranks (8 bytes
//! per vertex); the 4-vertex census adds 4 bytes per undirected edge (triangles per edge) and
//! one 4-byte counter per vertex per worker thread (4-cycles), the triad census 2 bits per
//! undirected edge (its dyad); pattern matching holds the degrees (4 bytes per vertex),
//! besides a few neighbour lists per worker.

use std::ops::Deref;

use ocgraph_core::{Adjacency, Slice, Vertex};
use rayon::prelude::*;

use crate::triangles::for_each_union;

pub mod cliques;
mod listing;
pub mod motifs;
pub mod net_changes;
pub mod pattern;
pub mod plan;
pub mod watch;
pub mod watch_store;

pub use cliques::{count_cliques, for_each_clique, list_cliques, MAX_CLIQUE};
pub use motifs::{motif_census, motif_names, triad_census, TRIAD_NAMES};
pub use net_changes::NetChanges;
pub use pattern::{count_matches, for_each_match, list_matches, MatchOptions};
pub use plan::{Pattern, MAX_PATTERN_VERTICES};
pub use watch::{Changes, Watch};
pub use watch_store::WatchStore;

/// The undirected simple view of a graph given by its two directions.
pub(crate) struct Undirected<'a, O, I> {
    out: &'a O,
    in_: &'a I,
    /// `out` and `in_` serve the same lists (an undirected graph): read one.
    same: bool,
    /// Lists may be lent (holding their pages pinned while a search keeps them): in memory, or
    /// through a buffer pool of at least [`LEND_FACTOR`] times the lists. A search keeps one
    /// list per pattern vertex, which a smaller pool may not have the frames for: it copies
    /// them instead.
    lend: bool,
    /// Every list is known to be simple (sorted, no repeat, no self-loop; see
    /// [`Undirected::lists_are_simple`]): lent lists are not checked at each read.
    simple: bool,
}

/// A buffer pool lends lists to a search when it holds this many times their bytes: the pages
/// the lent lists may pin (every page of the lists files, one more where a file ends part-way
/// into a page) then take at most half the frames, and the other half serves the reads of
/// offsets and the copies of the workers.
const LEND_FACTOR: u64 = 4;

impl<O, I> Clone for Undirected<'_, O, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<O, I> Copy for Undirected<'_, O, I> {}

impl<'a, O: Adjacency, I: Adjacency> Undirected<'a, O, I> {
    pub(crate) fn new(out: &'a O, in_: &'a I) -> Self {
        let same = out.lists_id().is_some() && out.lists_id() == in_.lists_id();
        let list_bytes = 4 * (out.num_arcs() + if same { 0 } else { in_.num_arcs() });
        let lend = out.memory_budget().is_none_or(|b| b >= LEND_FACTOR * list_bytes);
        Undirected { out, in_, same, lend, simple: false }
    }

    /// This view, told whether every list is simple (as [`Undirected::lists_are_simple`]
    /// found): reads then lend a list without the check, which costs a pass over it each time
    /// (a hub read once per neighbour would cost the square of its degree).
    pub(crate) fn knowing_simple(mut self, simple: bool) -> Self {
        self.simple = simple;
        self
    }

    /// Whether every list is simple, by one parallel pass over the lists; `false` without the
    /// pass when reads copy lists instead of lending them.
    pub(crate) fn lists_are_simple(&self) -> bool {
        if !(self.same && self.lend) {
            return false;
        }
        let n = self.num_vertices() as Vertex;
        (0..n).into_par_iter().with_min_len(4096).all(|v| {
            let o = self.out.neighbors(v);
            o.windows(2).all(|w| w[0] < w[1]) && o.binary_search(&v).is_err()
        })
    }

    /// [`Undirected::new`] for a few point reads ([`Undirected::adjacent`]): it reads no arc
    /// count, which on an updated graph's snapshot costs a pass over the whole delta (a watch
    /// given the graph after each single-edge batch would pay it per batch), and never lends.
    pub(crate) fn for_point_reads(out: &'a O, in_: &'a I) -> Self {
        let same = out.lists_id().is_some() && out.lists_id() == in_.lists_id();
        Undirected { out, in_, same, lend: false, simple: false }
    }

    /// Number of vertices.
    pub(crate) fn num_vertices(&self) -> usize {
        self.out.num_vertices()
    }

    /// Whether `u` and `v` are adjacent (an arc either way; both below the vertex count),
    /// searched in the lists of the end of smaller degree (a hub's list costs a cache miss per
    /// step of a binary search).
    pub(crate) fn adjacent(&self, u: Vertex, v: Vertex) -> bool {
        let n = self.num_vertices();
        if (u as usize) >= n || (v as usize) >= n {
            return false;
        }
        if self.degree(u) <= self.degree(v) {
            self.lists_hold(u, v)
        } else {
            self.lists_hold(v, u)
        }
    }

    /// The number of arcs of `v` either way (a vertex below the vertex count).
    pub(crate) fn degree(&self, v: Vertex) -> usize {
        self.out.degree(v) + if self.same { 0 } else { self.in_.degree(v) }
    }

    /// Whether `u`'s lists hold `v` (an arc `u - v` either way).
    pub(crate) fn lists_hold(&self, u: Vertex, v: Vertex) -> bool {
        self.out.neighbors(u).binary_search(&v).is_ok()
            || (!self.same && self.in_.neighbors(u).binary_search(&v).is_ok())
    }

    /// Writes `v`'s simple undirected neighbour list (sorted, no duplicate, no `v`) into `buf`.
    pub(crate) fn fill(&self, v: Vertex, buf: &mut Vec<Vertex>) {
        buf.clear();
        let o = self.out.neighbors(v);
        if self.same {
            // One list: a copy, then two in-place passes (no per-element capacity check).
            buf.extend_from_slice(&o);
            buf.dedup();
            buf.retain(|&w| w != v);
        } else {
            let i = self.in_.neighbors(v);
            buf.reserve(o.len() + i.len());
            for_each_union(&o, &i, v, |w| buf.push(w));
        }
    }
}

/// A neighbour list read for a search: lent by the graph when it is already simple (sorted, no
/// repeat, no self-loop), else a copy in a buffer kept across reads.
#[derive(Default)]
pub(crate) struct ListBuf<'a> {
    own: Vec<Vertex>,
    lent: Option<Slice<'a, Vertex>>,
}

impl<'a> ListBuf<'a> {
    /// Empties the list (the buffer keeps its capacity).
    pub(crate) fn clear(&mut self) {
        self.lent = None;
        self.own.clear();
    }

    /// Lends `list`.
    pub(crate) fn lend(&mut self, list: &'a [Vertex]) {
        self.lent = Some(Slice::from_slice(list));
    }

    /// An empty list reading into `buffer` (its capacity kept).
    pub(crate) fn owning(mut buffer: Vec<Vertex>) -> Self {
        buffer.clear();
        ListBuf { own: buffer, lent: None }
    }

    /// The buffer, for [`ListBuf::owning`] (a lent list is let go).
    pub(crate) fn into_buffer(self) -> Vec<Vertex> {
        self.own
    }
}

impl Deref for ListBuf<'_> {
    type Target = [Vertex];

    fn deref(&self) -> &[Vertex] {
        match &self.lent {
            Some(s) => s,
            None => &self.own,
        }
    }
}

/// Where a search reads simple undirected neighbour lists.
pub(crate) trait ListSource<'a>: Sync {
    /// Number of vertices.
    fn num_vertices(&self) -> usize;

    /// Puts `v`'s simple undirected neighbour list (sorted, no repeat, no `v`) in `buf`.
    fn read(&self, v: Vertex, buf: &mut ListBuf<'a>);

    /// Whether `u` and `v` are adjacent (both below the vertex count).
    fn adjacent(&self, u: Vertex, v: Vertex) -> bool;
}

impl<'a, L: ListSource<'a>> ListSource<'a> for &L {
    fn num_vertices(&self) -> usize {
        (**self).num_vertices()
    }

    fn read(&self, v: Vertex, buf: &mut ListBuf<'a>) {
        (**self).read(v, buf)
    }

    fn adjacent(&self, u: Vertex, v: Vertex) -> bool {
        (**self).adjacent(u, v)
    }
}

impl<'a, O: Adjacency, I: Adjacency> ListSource<'a> for Undirected<'a, O, I> {
    fn num_vertices(&self) -> usize {
        Undirected::num_vertices(self)
    }

    /// Lends the stored list when both directions share it and it is already simple (known for
    /// every list, or a check with no write, cheaper than the copy it saves), else copies it
    /// through [`Self::fill`].
    fn read(&self, v: Vertex, buf: &mut ListBuf<'a>) {
        if self.same && self.lend {
            let out: &'a O = self.out;
            let o = out.neighbors(v);
            if self.simple || (o.windows(2).all(|w| w[0] < w[1]) && o.binary_search(&v).is_err()) {
                buf.lent = Some(o);
                return;
            }
        }
        buf.lent = None;
        self.fill(v, &mut buf.own);
    }

    fn adjacent(&self, u: Vertex, v: Vertex) -> bool {
        Undirected::adjacent(self, u, v)
    }
}

/// Above this length ratio, [`intersect_into`] gallops through the longer list: a search of
/// `log2(ratio)` steps per element of the shorter one then reads fewer elements than the block
/// merge, which passes over both lists (`bench/mining/run.py` times the kernels that use it).
const GALLOP_RATIO: usize = 16;

/// The block of [`merge_blocks`]: each list advances by this many elements at a time. The
/// compiler turns the comparison of a block of 8 with a block of 8 into two 4-wide vector
/// compares per element of the other (baseline SSE2); the same loop over blocks of 4 stayed
/// scalar.
const BLOCK: usize = 8;

/// Writes the sorted intersection of the sorted lists `a` and `b` into `out`: a block merge
/// ([`merge_blocks`]), or for lists of very different lengths an exponential search in the
/// longer one per element of the shorter (`O(short * log(long / short))`).
pub(crate) fn intersect_into(a: &[Vertex], b: &[Vertex], out: &mut Vec<Vertex>) {
    out.clear();
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    // At most the shorter list: one allocation for a fresh `out`, not one per doubling.
    out.reserve(short.len());
    if short.len() * GALLOP_RATIO < long.len() {
        let mut rest = long;
        for &x in short {
            let at = gallop(rest, x);
            if at < rest.len() && rest[at] == x {
                out.push(x);
            }
            rest = &rest[at..];
            if rest.is_empty() {
                break;
            }
        }
        return;
    }
    merge_blocks(a, b, out);
}

/// Appends the intersection of the sorted lists `a` and `b` (no repeats) to `out`, a block of
/// [`BLOCK`] elements of each at a time: a block wholly below the other list's next element is
/// skipped; otherwise every pair of the two blocks is compared (fixed-size loops without
/// branches, which the compiler vectorises, and one branch on whether any pair was equal) and
/// the block with the smaller last element moves on (both when equal). A common element is
/// found once: after its blocks meet, one of them has moved past it. A block wholly below the
/// other list costs one comparison, not a block's.
fn merge_blocks(a: &[Vertex], b: &[Vertex], out: &mut Vec<Vertex>) {
    let (mut i, mut j) = (0, 0);
    while i + BLOCK <= a.len() && j + BLOCK <= b.len() {
        if a[i + BLOCK - 1] < b[j] {
            i += BLOCK;
            continue;
        }
        if b[j + BLOCK - 1] < a[i] {
            j += BLOCK;
            continue;
        }
        let x: &[Vertex; BLOCK] = a[i..i + BLOCK].try_into().expect("a block");
        let y: &[Vertex; BLOCK] = b[j..j + BLOCK].try_into().expect("a block");
        let mut hit = [0u32; BLOCK];
        for &w in y {
            for k in 0..BLOCK {
                hit[k] |= (x[k] == w) as u32;
            }
        }
        if hit.iter().fold(0, |any, &h| any | h) != 0 {
            out.extend(x.iter().zip(hit).filter(|&(_, h)| h != 0).map(|(&v, _)| v));
        }
        let (xm, ym) = (x[BLOCK - 1], y[BLOCK - 1]);
        i += if xm <= ym { BLOCK } else { 0 };
        j += if ym <= xm { BLOCK } else { 0 };
    }
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x == y {
            out.push(x);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
}

/// The position of the first element of the sorted list `rest` not below `x` (`rest.len()`
/// when none): an exponential search from the front, then a binary search.
fn gallop(rest: &[Vertex], x: Vertex) -> usize {
    let mut step = 1;
    while step < rest.len() && rest[step] < x {
        step *= 2;
    }
    let end = (step + 1).min(rest.len());
    rest[..end].partition_point(|&y| y < x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The galloping and merging intersections equal a set intersection, for lists of equal and
    /// very different lengths.
    #[test]
    fn intersections_equal_a_set_intersection() {
        let mut x = 12345u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m) as Vertex
        };
        for (la, lb) in [
            (0, 5),
            (3, 1000),
            (40, 40),
            (7, 5000),
            (1, 1),
            (100, 3),
            (2, 30),
            (5, 8),
            (900, 1100),
            (2000, 2000),
            (300, 4000),
            (13, 17),
        ] {
            let mut a: Vec<Vertex> = (0..la).map(|_| next(3000)).collect();
            let mut b: Vec<Vertex> = (0..lb).map(|_| next(3000)).collect();
            a.sort_unstable();
            a.dedup();
            b.sort_unstable();
            b.dedup();
            let want: Vec<Vertex> = a.iter().copied().filter(|v| b.binary_search(v).is_ok()).collect();
            let mut out = Vec::new();
            intersect_into(&a, &b, &mut out);
            assert_eq!(out, want, "{la} x {lb}");
            intersect_into(&b, &a, &mut out);
            assert_eq!(out, want, "{lb} x {la}");
        }
    }
}
