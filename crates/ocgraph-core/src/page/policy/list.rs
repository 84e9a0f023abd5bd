//! An intrusive doubly-linked list of frame indices (shared by LRU, FIFO and LIFO).

const NIL: u32 = u32::MAX;

/// Frames in insertion (or recency) order: front = oldest, back = newest.
pub(super) struct FrameList {
    prev: Vec<u32>,
    next: Vec<u32>,
    linked: Vec<bool>,
    head: u32,
    tail: u32,
}

impl FrameList {
    /// An empty list over `frames` frames.
    pub(super) fn new(frames: usize) -> FrameList {
        assert!(frames < NIL as usize, "too many frames");
        FrameList {
            prev: vec![NIL; frames],
            next: vec![NIL; frames],
            linked: vec![false; frames],
            head: NIL,
            tail: NIL,
        }
    }

    /// Appends `f` at the back (removing it first if present).
    pub(super) fn push_back(&mut self, f: usize) {
        self.remove(f);
        let fi = f as u32;
        self.prev[f] = self.tail;
        self.next[f] = NIL;
        if self.tail == NIL {
            self.head = fi;
        } else {
            self.next[self.tail as usize] = fi;
        }
        self.tail = fi;
        self.linked[f] = true;
    }

    /// Unlinks `f` (no-op when absent).
    pub(super) fn remove(&mut self, f: usize) {
        if !self.linked[f] {
            return;
        }
        let (p, n) = (self.prev[f], self.next[f]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.linked[f] = false;
    }

    /// Whether `f` is in the list.
    pub(super) fn contains(&self, f: usize) -> bool {
        self.linked[f]
    }

    /// The first frame from the front accepted by `pick`.
    pub(super) fn find_from_front(&self, pick: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let mut cur = self.head;
        while cur != NIL {
            if pick(cur as usize) {
                return Some(cur as usize);
            }
            cur = self.next[cur as usize];
        }
        None
    }

    /// The first frame from the back accepted by `pick`.
    pub(super) fn find_from_back(&self, pick: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let mut cur = self.tail;
        while cur != NIL {
            if pick(cur as usize) {
                return Some(cur as usize);
            }
            cur = self.prev[cur as usize];
        }
        None
    }
}
