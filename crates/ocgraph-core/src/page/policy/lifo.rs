//! LIFO: evicts the frame loaded last; hits change nothing. (Good for repeated scans larger
//! than memory, where the oldest pages are the next ones needed.)
//!
//! A page read ahead arrives at its first request, not at its load: until then it is the next
//! page a scan needs, not the last one it used, so it goes only when no other page can
//! (otherwise LIFO evicts every window it reads ahead before the scan gets there: kron22
//! PageRank at a 10% pool read 5.5 M pages ahead and used 0.8 M of them). And it spares the
//! few newest arrivals while older ones remain ([`SPARED`]; seed 001's soft LIFO spares one).

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use super::list::FrameList;
use super::{PageKey, ReplacementPolicy};

/// The newest arrivals LIFO passes over while it has older ones, at most: the pages the
/// readers are still on between two requests (a scan requests its page again for every vertex
/// on it; with the newest going first each of those requests missed: kron22 PageRank at a 10%
/// pool, 2 threads, 82 k demand misses in 5 iterations, 12 k when sparing 8; hand-run). Pools
/// of fewer than `64 * SPARED` frames spare 1/64 of their frames (none below 64).
const SPARED: usize = 8;

/// Last in, first out.
pub struct Lifo {
    lists: Mutex<Lists>,
    /// Newest arrivals passed over (see [`SPARED`]).
    spared: usize,
    /// Per frame: holds a page read ahead and not requested yet.
    ahead: Vec<AtomicBool>,
}

/// Loaded frames: `arrived` by arrival (load or first request), `ahead` by load.
struct Lists {
    arrived: FrameList,
    ahead: FrameList,
}

impl Lifo {
    /// LIFO over `frames` frames.
    pub fn new(frames: usize) -> Lifo {
        Lifo {
            lists: Mutex::new(Lists { arrived: FrameList::new(frames), ahead: FrameList::new(frames) }),
            ahead: (0..frames).map(|_| AtomicBool::new(false)).collect(),
            spared: (frames / 64).min(SPARED),
        }
    }
}

impl ReplacementPolicy for Lifo {
    fn name(&self) -> &'static str {
        "lifo"
    }

    fn on_hit(&self, frame: usize) {
        if self.ahead[frame].load(Ordering::Relaxed) && self.ahead[frame].swap(false, Ordering::Relaxed) {
            let mut l = self.lists.lock();
            l.ahead.remove(frame);
            l.arrived.push_back(frame);
        }
    }

    fn on_load(&self, frame: usize, _key: PageKey) {
        self.lists.lock().arrived.push_back(frame);
    }

    fn on_load_ahead(&self, frame: usize, _key: PageKey) {
        self.ahead[frame].store(true, Ordering::Relaxed);
        self.lists.lock().ahead.push_back(frame);
    }

    fn on_evict(&self, frame: usize) {
        self.ahead[frame].store(false, Ordering::Relaxed);
        let mut l = self.lists.lock();
        l.arrived.remove(frame);
        l.ahead.remove(frame);
    }

    fn victim(&self, _key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let l = self.lists.lock();
        // Pages read ahead last: the one loaded last (needed last) first.
        let mut skip = self.spared;
        l.arrived
            .find_from_back(&mut |f| {
                if skip > 0 {
                    skip -= 1;
                    false
                } else {
                    evictable(f)
                }
            })
            .or_else(|| l.arrived.find_from_back(evictable))
            .or_else(|| l.ahead.find_from_back(evictable))
    }
}
