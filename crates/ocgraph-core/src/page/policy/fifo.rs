//! FIFO: evicts the frame loaded first; hits change nothing.

use parking_lot::Mutex;

use super::list::FrameList;
use super::{PageKey, ReplacementPolicy};

/// First in, first out.
pub struct Fifo {
    list: Mutex<FrameList>,
}

impl Fifo {
    /// FIFO over `frames` frames.
    pub fn new(frames: usize) -> Fifo {
        Fifo { list: Mutex::new(FrameList::new(frames)) }
    }
}

impl ReplacementPolicy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    fn on_hit(&self, _frame: usize) {}

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
