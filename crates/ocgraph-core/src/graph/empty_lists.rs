//! Which vertices have an empty list in each stored direction: one bit per vertex and
//! direction, learnt on request by one scan of the offsets ([`crate::Graph::note_empty_lists`]).
//!
//! A reader that knows a list is empty skips reading its bounds. Through a pool much smaller
//! than the graph that read is a page read, and on graphs with many isolated vertices (a
//! Kronecker graph: 43% on kron22) most of the vertices that single updates reach are isolated
//! in the base (`bench/incremental/run.py --backend pool` measures the maintained results that
//! learn them).

use std::sync::OnceLock;

use super::{Adjacency, Direction, Vertex};

/// The bits of the out- and in-direction (the in-direction of an undirected graph is the out).
#[derive(Default)]
pub(super) struct EmptyLists {
    sides: [OnceLock<Vec<u64>>; 2],
}

impl EmptyLists {
    /// Learns the empty lists of `dir` as side `side` (0 out, 1 in), once.
    pub(super) fn learn(&self, side: usize, dir: &Direction<'_>) {
        self.sides[side].get_or_init(|| {
            let n = dir.num_vertices();
            let mut bits = vec![0u64; n.div_ceil(64)];
            dir.for_each_degree_in_range(0..n as Vertex, |v, d| {
                if d == 0 {
                    bits[v as usize / 64] |= 1 << (v % 64);
                }
            });
            bits
        });
    }

    /// Whether `v`'s list on side `side` is known to be empty (false when not learnt).
    pub(super) fn known_empty(&self, side: usize, v: Vertex) -> bool {
        self.sides[side]
            .get()
            .is_some_and(|bits| bits.get(v as usize / 64).is_some_and(|w| w >> (v % 64) & 1 == 1))
    }
}
