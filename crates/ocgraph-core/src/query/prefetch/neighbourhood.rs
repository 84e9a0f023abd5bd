//! The neighbourhood prefetcher (seed 000): for a visited vertex `v`, advise the neighbour
//! lists of `v`'s neighbours, highest degree first, each cut to a bounded prefix.
//!
//! Bounds keep one hub from flooding the device: only the first [`MAX_NEIGHBOURS`] entries of
//! `v`'s list are considered, and each list advised is cut to [`PREFIX_ARCS`] arcs.

use super::Sink;
use crate::graph::{Adjacency, Vertex};

/// Neighbours of the visited vertex considered (the first ones of its list).
pub const MAX_NEIGHBOURS: usize = 32;
/// Arcs advised per neighbour list at most (one 4 KiB page of ids).
pub const PREFIX_ARCS: u64 = 1024;

/// Advises for visited vertex `v`; `scratch` is reused between calls.
pub fn advise(sink: &mut Sink<'_>, v: Vertex, scratch: &mut Vec<(u64, u64)>) {
    let dir = sink.dir();
    scratch.clear();
    {
        let nbrs = dir.neighbors(v);
        for &w in nbrs.iter().take(MAX_NEIGHBOURS) {
            let r = dir.arc_range(w);
            scratch.push((r.start, r.end));
        }
    }
    // Highest degree first (ties: file order).
    scratch.sort_unstable_by_key(|&(a, b)| (std::cmp::Reverse(b - a), a));
    for &(a, b) in scratch.iter() {
        sink.arcs(a, b.min(a + PREFIX_ARCS));
    }
}
