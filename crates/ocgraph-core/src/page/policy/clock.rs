//! CLOCK (second chance): a hand sweeps the frames; a frame whose reference bit is set has the
//! bit cleared and is passed over once; the first loaded frame with a clear bit that can be
//! claimed is evicted. Reference bits are atomics, so hits take no lock.
//!
//! A freshly loaded frame starts with its bit clear: only a hit after the load earns the second
//! chance (a page touched once by a scan does not push out pages that were reused).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::Mutex;

use super::{PageKey, ReplacementPolicy};

/// The CLOCK second-chance policy.
pub struct Clock {
    referenced: Box<[AtomicBool]>,
    loaded: Box<[AtomicBool]>,
    hand: Mutex<usize>,
    /// Loaded frame count (bounds the sweep).
    count: AtomicUsize,
}

impl Clock {
    /// CLOCK over `frames` frames.
    pub fn new(frames: usize) -> Clock {
        Clock {
            referenced: (0..frames).map(|_| AtomicBool::new(false)).collect(),
            loaded: (0..frames).map(|_| AtomicBool::new(false)).collect(),
            hand: Mutex::new(0),
            count: AtomicUsize::new(0),
        }
    }
}

impl ReplacementPolicy for Clock {
    fn name(&self) -> &'static str {
        "clock"
    }

    fn on_hit(&self, frame: usize) {
        // Test before setting: avoids dirtying a shared cache line on every hit.
        if !self.referenced[frame].load(Ordering::Relaxed) {
            self.referenced[frame].store(true, Ordering::Relaxed);
        }
    }

    fn on_load(&self, frame: usize, _key: PageKey) {
        self.referenced[frame].store(false, Ordering::Relaxed);
        if !self.loaded[frame].swap(true, Ordering::Relaxed) {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn on_evict(&self, frame: usize) {
        self.referenced[frame].store(false, Ordering::Relaxed);
        if self.loaded[frame].swap(false, Ordering::Relaxed) {
            self.count.fetch_sub(1, Ordering::Relaxed);
        }
    }

    fn victim(&self, _key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let n = self.referenced.len();
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
            if self.referenced[f].swap(false, Ordering::Relaxed) {
                continue;
            }
            if evictable(f) {
                return Some(f);
            }
        }
        None
    }
}
