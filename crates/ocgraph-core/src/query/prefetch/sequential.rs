//! The sequential prefetcher (seed 000): for a visited vertex with first arc `e`, advise arcs
//! `e .. e + WINDOW_ARCS` of the neighbours file (the seed's best setting, s = 0, t = 4·2^12
//! edges).

use super::Sink;
use crate::graph::Vertex;

/// Arcs advised after the visited vertex's first arc (64 KiB of 4-byte ids).
pub const WINDOW_ARCS: u64 = 4 << 12;

/// Advises for visited vertex `v`.
pub fn advise(sink: &mut Sink<'_>, v: Vertex) {
    let start = sink.dir().arc_range(v).start;
    sink.arcs(start, start + WINDOW_ARCS);
}
