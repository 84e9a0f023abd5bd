//! A FIFO of page keys with O(1) membership test and removal (ghost lists of S3-FIFO and ARC).

use std::collections::{HashMap, VecDeque};

use super::PageKey;

/// Keys in insertion order; removed keys leave stale queue entries that are skipped.
#[derive(Default)]
pub(super) struct KeyFifo {
    queue: VecDeque<(PageKey, u64)>,
    live: HashMap<PageKey, u64>,
    next: u64,
}

impl KeyFifo {
    /// Number of keys.
    pub(super) fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether `key` is present.
    pub(super) fn contains(&self, key: PageKey) -> bool {
        self.live.contains_key(&key)
    }

    /// Appends `key` as the newest (moving it when present).
    pub(super) fn push(&mut self, key: PageKey) {
        self.next += 1;
        self.live.insert(key, self.next);
        self.queue.push_back((key, self.next));
        if self.queue.len() > 2 * self.live.len() + 16 {
            let live = &self.live;
            self.queue.retain(|(k, s)| live.get(k) == Some(s));
        }
    }

    /// Removes `key`; returns whether it was present.
    pub(super) fn remove(&mut self, key: PageKey) -> bool {
        self.live.remove(&key).is_some()
    }

    /// Removes and returns the oldest key.
    pub(super) fn pop_oldest(&mut self) -> Option<PageKey> {
        while let Some((k, s)) = self.queue.pop_front() {
            if self.live.get(&k) == Some(&s) {
                self.live.remove(&k);
                return Some(k);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_order_with_removals() {
        let mut q = KeyFifo::default();
        for k in 1..=5 {
            q.push(k);
        }
        assert!(q.remove(2));
        assert!(!q.remove(2));
        q.push(1); // moves 1 to the back
        assert_eq!(q.len(), 4);
        assert!(q.contains(3) && !q.contains(2));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_oldest()).collect();
        assert_eq!(order, vec![3, 4, 5, 1]);
    }
}
