//! Random replacement with a seeded generator (reproducible runs).

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{PageKey, ReplacementPolicy};

/// Evicts a uniformly random loaded, unpinned frame.
pub struct RandomPolicy {
    rng: Mutex<Xoshiro256PlusPlus>,
    loaded: Box<[AtomicBool]>,
}

impl RandomPolicy {
    /// Random replacement over `frames` frames, seeded with `seed`.
    pub fn new(frames: usize, seed: u64) -> RandomPolicy {
        RandomPolicy {
            rng: Mutex::new(Xoshiro256PlusPlus::seed_from_u64(seed)),
            loaded: (0..frames).map(|_| AtomicBool::new(false)).collect(),
        }
    }
}

impl ReplacementPolicy for RandomPolicy {
    fn name(&self) -> &'static str {
        "random"
    }

    fn on_hit(&self, _frame: usize) {}

    fn on_load(&self, frame: usize, _key: PageKey) {
        self.loaded[frame].store(true, Ordering::Relaxed);
    }

    fn on_evict(&self, frame: usize) {
        self.loaded[frame].store(false, Ordering::Relaxed);
    }

    fn victim(&self, _key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let n = self.loaded.len();
        if n == 0 {
            return None;
        }
        let start = {
            let mut rng = self.rng.lock();
            // A few random probes, then a sweep from a random start (so an evictable frame is
            // always found when one exists).
            for _ in 0..8 {
                let f = rng.gen_range(0..n);
                if self.loaded[f].load(Ordering::Relaxed) && evictable(f) {
                    return Some(f);
                }
            }
            rng.gen_range(0..n)
        };
        (0..n).map(|i| (start + i) % n).find(|&f| self.loaded[f].load(Ordering::Relaxed) && evictable(f))
    }
}
