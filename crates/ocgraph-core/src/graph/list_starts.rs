//! [`ListStarts`]: predicts where a vertex's neighbour list starts before its offsets entry is
//! read, from the entries read so far, so that a bounds read that misses can bring the list's
//! page with it ([`crate::page::PageSource`]'s `read_then`; the buffer pool reads both pages in
//! one submission).
//!
//! One sample per block of [`BLOCK`] vertices (a 4 KiB page of offsets): the last entry read
//! in that block, as (vertex, offset). A vertex's list start is interpolated between its
//! block's sample and the next block's (or the previous one's), i.e. from the average degree
//! between two known entries. Memory: 8 bytes per block, 1/64 byte per vertex, per direction.
//! Learned from the queries' own reads: no I/O of its own, and nothing predicted for a block
//! until one of its entries and one of a neighbouring block's have been read.
//!
//! Accuracy (`bench/queries/RESULTS.md`, session 29: the page of the predicted start against
//! the true one, 20K uniform friends-of-friends queries replayed): road-usroads 98%, where a
//! list is a few arcs and degrees vary little; 73-76% on cnr-2000 and ca-AstroPh. A wrong
//! prediction costs a page read for nothing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

use super::Vertex;

/// Vertices per sample (one 4 KiB page of `u64` offsets).
pub const BLOCK: u64 = 512;
/// A sample holds `offset << OFFSET_SHIFT | KNOWN | vertex % BLOCK`.
const OFFSET_SHIFT: u32 = 10;
const KNOWN: u64 = 1 << 9;

/// Samples of one direction's offsets file.
struct Samples(Vec<AtomicU64>);

impl Samples {
    fn get(&self, block: u64) -> Option<(u64, u64)> {
        let s = self.0.get(block as usize)?.load(Ordering::Relaxed);
        (s & KNOWN != 0).then(|| (block * BLOCK + (s & (BLOCK - 1)), s >> OFFSET_SHIFT))
    }
}

/// List-start predictions for the out- and in-direction of a graph, off until
/// [`ListStarts::set_enabled`] (see the module docs).
pub(crate) struct ListStarts {
    num_vertices: u64,
    enabled: AtomicBool,
    /// Out-direction, in-direction.
    dirs: [OnceLock<Samples>; 2],
}

impl ListStarts {
    /// Predictions (off) for a graph of `num_vertices` vertices.
    pub(crate) fn new(num_vertices: u64) -> ListStarts {
        ListStarts { num_vertices, enabled: AtomicBool::new(false), dirs: [OnceLock::new(), OnceLock::new()] }
    }

    /// Turns predictions on or off; the samples are allocated on first use and kept.
    pub(crate) fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    /// The samples of direction `dir` (0 out, 1 in) while predictions are on.
    fn samples(&self, dir: usize) -> Option<&Samples> {
        if !self.enabled.load(Ordering::Relaxed) {
            return None;
        }
        let blocks = self.num_vertices.div_ceil(BLOCK) as usize;
        Some(self.dirs[dir].get_or_init(|| Samples((0..blocks).map(|_| AtomicU64::new(0)).collect())))
    }

    /// Whether predictions are on.
    pub(crate) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Records that `v`'s list in direction `dir` starts at `offset`.
    pub(crate) fn observe(&self, dir: usize, v: Vertex, offset: u64) {
        let Some(s) = self.samples(dir) else { return };
        if offset >> (64 - OFFSET_SHIFT) != 0 {
            return;
        }
        let v = v as u64;
        s.0[(v / BLOCK) as usize].store(offset << OFFSET_SHIFT | KNOWN | (v % BLOCK), Ordering::Relaxed);
    }

    /// The predicted start of `v`'s list in direction `dir` (an offsets value), or `None`
    /// while predictions are off or `v`'s block or both its neighbours have no sample.
    pub(crate) fn predict(&self, dir: usize, v: Vertex) -> Option<u64> {
        let s = self.samples(dir)?;
        let v = v as u64;
        let block = v / BLOCK;
        let (sv, so) = s.get(block)?;
        if sv == v {
            return Some(so);
        }
        let (tv, to) = s.get(block + 1).or_else(|| block.checked_sub(1).and_then(|b| s.get(b)))?;
        let slope = (to as f64 - so as f64) / (tv as f64 - sv as f64);
        Some((so as f64 + (v as f64 - sv as f64) * slope).max(0.0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicts_nothing_while_off_or_unsampled() {
        let ls = ListStarts::new(4 * BLOCK);
        ls.observe(0, 3, 30);
        assert_eq!(ls.predict(0, 3), None, "off: nothing recorded");
        ls.set_enabled(true);
        assert_eq!(ls.predict(0, 3), None);
        ls.observe(0, 3, 30);
        assert_eq!(ls.predict(0, 3), Some(30), "the sampled vertex itself");
        assert_eq!(ls.predict(0, 4), None, "no second sample yet");
        assert_eq!(ls.predict(1, 3), None, "the other direction has its own samples");
    }

    #[test]
    fn interpolates_between_neighbouring_blocks() {
        let ls = ListStarts::new(4 * BLOCK);
        ls.set_enabled(true);
        // Degree 3 from vertex 100 (offset 300) to vertex BLOCK + 100.
        ls.observe(0, 100, 300);
        ls.observe(0, (BLOCK + 100) as Vertex, 3 * (BLOCK + 100));
        assert_eq!(ls.predict(0, 200), Some(600), "from the next block's sample");
        // The last block has no next one: the previous block's sample is used.
        ls.observe(0, (3 * BLOCK + 10) as Vertex, 3 * (3 * BLOCK + 10));
        ls.observe(0, (2 * BLOCK) as Vertex, 3 * 2 * BLOCK);
        assert_eq!(ls.predict(0, (3 * BLOCK + 20) as Vertex), Some(3 * (3 * BLOCK + 20)));
        // A later entry replaces the block's sample.
        ls.observe(0, 50, 1000);
        assert_eq!(ls.predict(0, 50), Some(1000));
        ls.set_enabled(false);
        assert_eq!(ls.predict(0, 50), None);
    }
}
