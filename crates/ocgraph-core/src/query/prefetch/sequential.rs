//! The sequential prefetcher (seed 000): for a visited vertex whose list starts at byte `e` of
//! the lists file, advise bytes `e .. e + WINDOW_BYTES` (the seed's best setting, s = 0,
//! t = 4·2^12 edges of 4 bytes).

use super::Sink;
use crate::graph::Vertex;

/// Bytes advised from the visited vertex's list on (64 KiB: 4·2^12 plain ids).
pub const WINDOW_BYTES: u64 = 4 << 14;

/// Advises for visited vertex `v`.
pub fn advise(sink: &mut Sink<'_>, v: Vertex) {
    let start = sink.dir().list_bytes(v).start;
    sink.bytes(start, start + WINDOW_BYTES);
}
