//! LIFO: evicts the frame loaded last; hits change nothing. (Good for repeated scans larger
//! than memory, where the oldest pages are the next ones needed.)

use parking_lot::Mutex;

use super::list::FrameList;
use super::{PageKey, ReplacementPolicy};

/// Last in, first out.
pub struct Lifo {
    list: Mutex<FrameList>,
}

impl Lifo {
    /// LIFO over `frames` frames.
    pub fn new(frames: usize) -> Lifo {
        Lifo { list: Mutex::new(FrameList::new(frames)) }
    }
}

impl ReplacementPolicy for Lifo {
    fn name(&self) -> &'static str {
        "lifo"
    }

    fn on_hit(&self, _frame: usize) {}

    fn on_load(&self, frame: usize, _key: PageKey) {
        self.list.lock().push_back(frame);
    }

    fn on_evict(&self, frame: usize) {
        self.list.lock().remove(frame);
    }

    fn victim(&self, _key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        self.list.lock().find_from_back(evictable)
    }
}
