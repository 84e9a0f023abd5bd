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
//! - [`plan`]: patterns, automorphisms, symmetry breaking, matching orders.
//!
//! Memory (per-vertex state, besides what the backend caches): cliques and the 4-vertex census
//! hold the oriented DAG (4 bytes per undirected edge, 8 per vertex of offsets) and ranks (8
//! bytes per vertex); the 4-vertex census adds 4 bytes per undirected edge (triangles per edge)
//! and one 4-byte counter per vertex per worker thread (4-cycles); pattern matching and the
//! triad census hold no per-vertex state (a few neighbour lists per worker).

use ocgraph_core::{Adjacency, Vertex};

use crate::triangles::for_each_union;

pub mod cliques;
pub mod motifs;
pub mod pattern;
pub mod plan;
pub mod watch;

pub use cliques::{count_cliques, for_each_clique, list_cliques};
pub use motifs::{motif_census, motif_names, triad_census, TRIAD_NAMES};
pub use pattern::{count_matches, for_each_match, list_matches, MatchOptions};
pub use plan::{Pattern, MAX_PATTERN_VERTICES};
pub use watch::{Changes, Watch};

/// The undirected simple view of a graph given by its two directions.
pub(crate) struct Undirected<'a, O, I> {
    out: &'a O,
    in_: &'a I,
    /// `out` and `in_` serve the same lists (an undirected graph): read one.
    same: bool,
}

impl<'a, O: Adjacency, I: Adjacency> Undirected<'a, O, I> {
    pub(crate) fn new(out: &'a O, in_: &'a I) -> Self {
        let same = out.lists_id().is_some() && out.lists_id() == in_.lists_id();
        Undirected { out, in_, same }
    }

    /// Number of vertices.
    pub(crate) fn num_vertices(&self) -> usize {
        self.out.num_vertices()
    }

    /// Whether `u` and `v` are adjacent (an arc either way; both below the vertex count).
    pub(crate) fn adjacent(&self, u: Vertex, v: Vertex) -> bool {
        let n = self.num_vertices();
        (u as usize) < n
            && (v as usize) < n
            && (self.out.neighbors(u).binary_search(&v).is_ok()
                || (!self.same && self.in_.neighbors(u).binary_search(&v).is_ok()))
    }

    /// Writes `v`'s simple undirected neighbour list (sorted, no duplicate, no `v`) into `buf`.
    pub(crate) fn fill(&self, v: Vertex, buf: &mut Vec<Vertex>) {
        buf.clear();
        let o = self.out.neighbors(v);
        if self.same {
            for_each_union(&o, &[], v, |w| buf.push(w));
        } else {
            for_each_union(&o, &self.in_.neighbors(v), v, |w| buf.push(w));
        }
    }
}

/// Writes the sorted intersection of the sorted lists `a` and `b` into `out`.
pub(crate) fn intersect_into(a: &[Vertex], b: &[Vertex], out: &mut Vec<Vertex>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x == y {
            out.push(x);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
}
