//! A group's ordinary pages (loaded, not deferred) in LIFO order: a doubly-linked list of the
//! group's frames sorted by load sequence, newest at the tail, so that LIFO's choice (the
//! newest or second newest) is O(1) even after the newest ones were evicted or deferred.

/// No frame (group frames are `0..64`).
const NIL: u8 = u8::MAX;

/// Frames of one group (indices within the group) sorted by load sequence.
pub(super) struct Arrivals {
    prev: Vec<u8>,
    next: Vec<u8>,
    /// Bit `i`: frame `i` is in the list.
    linked: u64,
    /// Oldest.
    head: u8,
    /// Newest.
    tail: u8,
}

impl Arrivals {
    /// An empty list over `frames` (at most 64) frames.
    pub(super) fn new(frames: usize) -> Arrivals {
        assert!(frames <= 64, "GAC groups have at most 64 frames");
        Arrivals { prev: vec![NIL; frames], next: vec![NIL; frames], linked: 0, head: NIL, tail: NIL }
    }

    /// Empties the list.
    pub(super) fn clear(&mut self) {
        self.linked = 0;
        self.head = NIL;
        self.tail = NIL;
    }

    /// Number of frames in the list.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.linked.count_ones() as usize
    }

    /// The newest frame and the one before it.
    #[cfg(test)]
    pub(super) fn newest(&self) -> (Option<usize>, Option<usize>) {
        let some = |i: u8| (i != NIL).then_some(i as usize);
        let t = self.tail;
        (some(t), if t == NIL { None } else { some(self.prev[t as usize]) })
    }

    /// The frames newest first; `soft`: the newest goes after the others.
    #[inline]
    pub(super) fn newest_first(&self, soft: bool) -> impl Iterator<Item = usize> + '_ {
        let t = self.tail;
        let (start, last) = if soft && t != NIL && self.prev[t as usize] != NIL {
            (self.prev[t as usize], Some(t as usize))
        } else {
            (t, None)
        };
        let mut cur = start;
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let i = cur;
            cur = self.prev[i as usize];
            Some(i as usize)
        })
        .chain(last)
    }

    /// Unlinks frame `i` (no-op when absent).
    #[inline]
    pub(super) fn remove(&mut self, i: usize) {
        if self.linked & 1 << i == 0 {
            return;
        }
        let (p, n) = (self.prev[i], self.next[i]);
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
        self.linked &= !(1 << i);
    }

    /// Links frame `i` (absent) after every frame whose sequence (`seq`) is smaller: walks
    /// from the newest, so an arrival (the largest sequence so far) is O(1).
    #[inline]
    pub(super) fn insert(&mut self, i: usize, seq: impl Fn(usize) -> u64) {
        debug_assert!(self.linked & 1 << i == 0);
        let s = seq(i);
        let mut after = self.tail;
        while after != NIL && seq(after as usize) > s {
            after = self.prev[after as usize];
        }
        let before = if after == NIL { self.head } else { self.next[after as usize] };
        self.prev[i] = after;
        self.next[i] = before;
        if after == NIL {
            self.head = i as u8;
        } else {
            self.next[after as usize] = i as u8;
        }
        if before == NIL {
            self.tail = i as u8;
        } else {
            self.prev[before as usize] = i as u8;
        }
        self.linked |= 1 << i;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_frames_sorted_by_sequence() {
        let seq = [5u64, 1, 9, 3, 7];
        let mut a = Arrivals::new(5);
        for i in [0, 1, 2, 3, 4] {
            a.insert(i, |f| seq[f]);
        }
        assert_eq!(a.len(), 5);
        assert_eq!(a.newest(), (Some(2), Some(4)));
        assert_eq!(a.newest_first(false).collect::<Vec<_>>(), vec![2, 4, 0, 3, 1]);
        assert_eq!(a.newest_first(true).collect::<Vec<_>>(), vec![4, 0, 3, 1, 2]);
        a.remove(2);
        assert_eq!(a.newest(), (Some(4), Some(0)));
        a.remove(4);
        a.remove(0);
        a.remove(0);
        assert_eq!(a.newest(), (Some(3), Some(1)));
        a.remove(3);
        assert_eq!(a.newest(), (Some(1), None));
        a.remove(1);
        assert_eq!((a.len(), a.newest()), (0, (None, None)));
    }
}
