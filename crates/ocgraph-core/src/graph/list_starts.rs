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
//! Accuracy (`bench/queries/list_starts_replay.py`: the page of the predicted start against
//! the true one, 20K uniform friends-of-friends queries replayed): road-usroads 98%, where a
//! list is a few arcs and degrees vary little; 73-76% on cnr-2000 and ca-AstroPh; 24% on
//! kron22, whose skewed degrees defeat an average. A wrong prediction costs a page read for
//! nothing, so predictions are *checked*: every bounds read that had one says whether it named
//! the right page ([`ListStarts::check`]), and a direction's predictions are used
//! ([`ListStarts::trusted`]) only while at least [`MIN_RIGHT`] of its recent ones were right.
//! (A right companion saves about two thirds of a read here, a wrong one costs about a third:
//! `examples/ring_reads.rs`.)

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

use super::Vertex;

/// Vertices per sample (one 4 KiB page of `u64` offsets).
pub const BLOCK: u64 = 512;
/// A sample holds `offset << OFFSET_SHIFT | KNOWN | vertex % BLOCK`.
const OFFSET_SHIFT: u32 = 10;
const KNOWN: u64 = 1 << 9;

/// Share of recent predictions that must have been right for a direction's predictions to be
/// used.
pub const MIN_RIGHT: f64 = 0.5;
/// Checked predictions before a direction's are used.
const WARM_UP: u32 = 32;
/// The check counts are halved when this many predictions were checked (recent ones weigh most).
const CHECK_WINDOW: u32 = 1024;

/// Samples of one direction's offsets file, and the checks of its predictions: `(checked,
/// right)` packed in one word (`checked << 32 | right`).
struct Samples(Vec<AtomicU64>, AtomicU64);

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
        Some(
            self.dirs[dir]
                .get_or_init(|| Samples((0..blocks).map(|_| AtomicU64::new(0)).collect(), AtomicU64::new(0))),
        )
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

    /// Records whether a prediction of direction `dir` named the right page.
    pub(crate) fn check(&self, dir: usize, right: bool) {
        let Some(s) = self.samples(dir) else { return };
        let _ = s.1.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
            let (mut checked, mut good) = ((w >> 32) as u32 + 1, w as u32 + u32::from(right));
            if checked >= CHECK_WINDOW {
                (checked, good) = (checked / 2, good / 2);
            }
            Some((checked as u64) << 32 | good as u64)
        });
    }

    /// Whether direction `dir`'s predictions are worth a read: at least [`WARM_UP`] were
    /// checked and [`MIN_RIGHT`] of the recent ones were right.
    pub(crate) fn trusted(&self, dir: usize) -> bool {
        let Some(s) = self.samples(dir) else { return false };
        let w = s.1.load(Ordering::Relaxed);
        let (checked, good) = ((w >> 32) as u32, w as u32);
        checked >= WARM_UP && good as f64 >= MIN_RIGHT * checked as f64
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
    fn predictions_are_trusted_while_half_of_the_recent_ones_are_right() {
        let ls = ListStarts::new(4 * BLOCK);
        ls.set_enabled(true);
        assert!(!ls.trusted(0), "nothing checked yet");
        for _ in 0..WARM_UP - 1 {
            ls.check(0, true);
        }
        assert!(!ls.trusted(0), "still warming up");
        ls.check(0, true);
        assert!(ls.trusted(0));
        assert!(!ls.trusted(1), "each direction has its own checks");
        // 32 right, then wrong ones: trusted down to exactly half right.
        for _ in 0..WARM_UP {
            ls.check(0, false);
        }
        assert!(ls.trusted(0));
        ls.check(0, false);
        assert!(!ls.trusted(0));
        // Old checks fade: after many right ones, a run of wrong ones turns it off sooner than
        // the totals would.
        for _ in 0..4 * CHECK_WINDOW {
            ls.check(0, true);
        }
        assert!(ls.trusted(0));
        let mut wrong = 0;
        while ls.trusted(0) {
            ls.check(0, false);
            wrong += 1;
        }
        assert!(wrong <= CHECK_WINDOW, "{wrong}");
        ls.set_enabled(false);
        assert!(!ls.trusted(0), "off");
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
