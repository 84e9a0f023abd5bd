//! LRU: evicts the least recently used frame. Hits take a mutex (to move the frame to the back
//! of the recency list), so LRU is the reference policy, not the fast one.

use parking_lot::Mutex;

use super::list::FrameList;
use super::{PageKey, ReplacementPolicy};

/// Least recently used.
pub struct Lru {
    list: Mutex<FrameList>,
}

impl Lru {
    /// LRU over `frames` frames.
    pub fn new(frames: usize) -> Lru {
        Lru { list: Mutex::new(FrameList::new(frames)) }
    }
}

impl ReplacementPolicy for Lru {
    fn name(&self) -> &'static str {
        "lru"
    }

    fn on_hit(&self, frame: usize) {
        let mut l = self.list.lock();
        if l.contains(frame) {
            l.push_back(frame);
        }
    }

    fn on_load(&self, frame: usize, _key: PageKey) {
        self.list.lock().push_back(frame);
    }

    fn on_evict(&self, frame: usize) {
        self.list.lock().remove(frame);
    }

    fn victim(&self, _key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        self.list.lock().find_from_front(evictable)
    }
}
