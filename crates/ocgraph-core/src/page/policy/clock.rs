//! CLOCK (second chance): a hand sweeps the frames; a frame whose reference bit is set has the
//! bit cleared and is passed over once; the first loaded frame with a clear bit that can be
//! claimed is evicted. Reference bits are atomics, so hits take no lock; they are packed 64 to
//! a word so that the bitmap (one bit per frame) stays in cache on the pool's hit path.
//!
//! A freshly loaded frame starts with its bit clear: only a hit after the load earns the second
//! chance (a page touched once by a scan does not push out pages that were reused).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use parking_lot::Mutex;

use super::{PageKey, ReplacementPolicy};

/// The CLOCK second-chance policy.
pub struct Clock {
    /// Reference bits, bit `f % 64` of word `f / 64` for frame `f`.
    referenced: Box<[AtomicU64]>,
    loaded: Box<[AtomicBool]>,
    hand: Mutex<usize>,
    /// Loaded frame count (bounds the sweep).
    count: AtomicUsize,
}

impl Clock {
    /// CLOCK over `frames` frames.
    pub fn new(frames: usize) -> Clock {
        Clock {
            referenced: (0..frames.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            loaded: (0..frames).map(|_| AtomicBool::new(false)).collect(),
            hand: Mutex::new(0),
            count: AtomicUsize::new(0),
        }
    }

    /// The word holding frame `f`'s reference bit, and the bit.
    #[inline]
    fn bit(&self, f: usize) -> (&AtomicU64, u64) {
        (&self.referenced[f / 64], 1 << (f % 64))
    }

    /// Clears frame `f`'s reference bit; returns whether it was set.
    fn clear(&self, f: usize) -> bool {
        let (word, bit) = self.bit(f);
        word.fetch_and(!bit, Ordering::Relaxed) & bit != 0
    }
}

impl ReplacementPolicy for Clock {
    fn name(&self) -> &'static str {
        "clock"
    }

    #[inline]
    fn on_hit(&self, frame: usize) {
        // Test before setting: avoids dirtying a shared cache line on every hit.
        let (word, bit) = self.bit(frame);
        if word.load(Ordering::Relaxed) & bit == 0 {
            word.fetch_or(bit, Ordering::Relaxed);
        }
    }

    fn on_load(&self, frame: usize, _key: PageKey) {
        self.clear(frame);
        if !self.loaded[frame].swap(true, Ordering::Relaxed) {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn on_load_ahead(&self, frame: usize, key: PageKey) {
        // A page read ahead has not been requested yet: it keeps its frame for one turn of the
        // hand, as a referenced page (otherwise the hand may take it before its first use).
        self.on_load(frame, key);
        self.on_hit(frame);
    }

    fn on_evict(&self, frame: usize) {
        self.clear(frame);
        if self.loaded[frame].swap(false, Ordering::Relaxed) {
            self.count.fetch_sub(1, Ordering::Relaxed);
        }
    }

    fn victim(&self, _key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let n = self.loaded.len();
        if n == 0 || self.count.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut hand = self.hand.lock();
        // Two full turns: the first may only clear reference bits.
        for _ in 0..2 * n {
            let f = *hand;
            *hand = (f + 1) % n;
            if !self.loaded[f].load(Ordering::Relaxed) {
                continue;
            }
            if self.clear(f) {
                continue;
            }
            if evictable(f) {
                return Some(f);
            }
        }
        None
    }
}
