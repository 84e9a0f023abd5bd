//! A fixed-size lock-free ring through which query threads tell the advisor thread which
//! vertices they visit (seed 000's design).
//!
//! Producers (any number of query threads) call [`Ring::push`]: one `fetch_add` on the head and
//! one store into the slot, so a push never blocks, never waits for the consumer and never
//! allocates. When the ring is full the oldest entries are simply overwritten. The single
//! consumer (the advisor) calls [`Ring::drain`] with its own cursor and reads what is there: it
//! jumps over entries already overwritten (counting them as lost), and skips entries whose epoch
//! is `max_stale` or more epochs behind the newest epoch ([`Ring::begin_epoch`]), as the seed
//! skips prefetches that are too late to help.
//!
//! Each slot is one `AtomicU64` holding `(epoch << 32) | vertex`, so a slot is never torn. A
//! producer that has taken a slot index but not stored yet leaves the slot's previous content
//! (an older entry, or [`EMPTY`]) for the consumer to read: the consumer may see an old entry
//! again or miss the new one, which only changes which hints are given, never memory safety.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::graph::Vertex;

/// Content of a slot never written.
const EMPTY: u64 = u64::MAX;

/// A multi-producer, single-consumer ring of `(vertex, epoch)` entries that overwrites when full.
pub struct Ring {
    slots: Box<[AtomicU64]>,
    mask: u64,
    /// Entries pushed so far (the next slot index, unwrapped).
    head: AtomicU64,
    /// The newest epoch.
    epoch: AtomicU32,
}

/// Where a consumer is in the ring, and what it saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    /// The next entry index to read (unwrapped).
    pub next: u64,
    /// Entries handed to the consumer.
    pub read: u64,
    /// Entries that were `max_stale` or more epochs old (skipped unless asked for).
    pub stale: u64,
    /// Entries overwritten before the consumer reached them.
    pub lost: u64,
}

impl Ring {
    /// A ring of `capacity` slots (rounded up to a power of two, at least 2).
    pub fn new(capacity: usize) -> Ring {
        let cap = capacity.max(2).next_power_of_two();
        Ring {
            slots: (0..cap).map(|_| AtomicU64::new(EMPTY)).collect(),
            mask: cap as u64 - 1,
            head: AtomicU64::new(0),
            epoch: AtomicU32::new(0),
        }
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Starts a new epoch and returns it (query threads call this once per query).
    #[inline]
    pub fn begin_epoch(&self) -> u32 {
        self.epoch.fetch_add(1, Ordering::AcqRel).wrapping_add(1)
    }

    /// The newest epoch.
    #[inline]
    pub fn epoch(&self) -> u32 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Records that `vertex` was visited in `epoch`, overwriting the oldest entry when full.
    /// Wait-free: one `fetch_add` and one store.
    #[inline]
    pub fn push(&self, vertex: Vertex, epoch: u32) {
        let i = self.head.fetch_add(1, Ordering::Relaxed);
        self.slots[(i & self.mask) as usize].store((epoch as u64) << 32 | vertex as u64, Ordering::Release);
    }

    /// Entries pushed since the ring was made.
    pub fn pushed(&self) -> u64 {
        self.head.load(Ordering::Acquire)
    }

    /// Calls `f(vertex, stale)` for every entry pushed since `cursor.next` that is still in the
    /// ring, oldest first, and advances the cursor. An entry `max_stale` or more epochs behind
    /// the newest is stale: counted as such, and handed to `f` (with `stale` true) only if
    /// `with_stale` (a consumer that keeps a history of the visits wants them all). Returns
    /// the number of entries handed to `f`.
    pub fn drain(
        &self,
        cursor: &mut Cursor,
        max_stale: u32,
        with_stale: bool,
        mut f: impl FnMut(Vertex, bool),
    ) -> u64 {
        let head = self.head.load(Ordering::Acquire);
        let cap = self.slots.len() as u64;
        if head.saturating_sub(cursor.next) > cap {
            cursor.lost += head - cap - cursor.next;
            cursor.next = head - cap;
        }
        let mut n = 0;
        while cursor.next < head {
            // Re-read per entry: the consumer may fall behind while it handles a long batch.
            let now = self.epoch();
            let w = self.slots[(cursor.next & self.mask) as usize].load(Ordering::Acquire);
            cursor.next += 1;
            if w == EMPTY {
                continue;
            }
            let (v, e) = (w as u32, (w >> 32) as u32);
            let stale = now.wrapping_sub(e) >= max_stale && now.wrapping_sub(e) < u32::MAX / 2;
            cursor.stale += stale as u64;
            if stale && !with_stale {
                continue;
            }
            cursor.read += 1;
            n += 1;
            f(v, stale);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fresh entries drained.
    fn collect(r: &Ring, c: &mut Cursor, stale: u32) -> Vec<Vertex> {
        let mut out = Vec::new();
        r.drain(c, stale, false, |v, stale| {
            assert!(!stale);
            out.push(v)
        });
        out
    }

    #[test]
    fn fifo_order_and_capacity_rounding() {
        let r = Ring::new(5);
        assert_eq!(r.capacity(), 8);
        let e = r.begin_epoch();
        for v in 0..5 {
            r.push(v, e);
        }
        let mut c = Cursor::default();
        assert_eq!(collect(&r, &mut c, 4), (0..5).collect::<Vec<_>>());
        assert!(collect(&r, &mut c, 4).is_empty(), "nothing new");
        assert_eq!(c, Cursor { next: 5, read: 5, stale: 0, lost: 0 });
    }

    #[test]
    fn wraparound_overwrites_oldest_and_counts_lost() {
        let r = Ring::new(4);
        let e = r.begin_epoch();
        for v in 0..11 {
            r.push(v, e);
        }
        let mut c = Cursor::default();
        // 11 pushed into 4 slots: the consumer gets the newest 4, in order, and 7 were lost.
        assert_eq!(collect(&r, &mut c, 4), vec![7, 8, 9, 10]);
        assert_eq!((c.lost, c.read), (7, 4));
        // Keeps working across further laps.
        for v in 11..14 {
            r.push(v, e);
        }
        assert_eq!(collect(&r, &mut c, 4), vec![11, 12, 13]);
        assert_eq!(c.lost, 7);
    }

    #[test]
    fn stale_epochs_are_skipped() {
        let r = Ring::new(16);
        for v in 0..8 {
            let e = r.begin_epoch(); // epochs 1..=8
            r.push(v, e);
        }
        // Newest epoch 8: entries of epochs 5..=8 are fewer than 4 behind; 1..=4 are 4+ behind.
        let mut c = Cursor::default();
        let got = collect(&r, &mut c, 4);
        assert_eq!(got, vec![4, 5, 6, 7]);
        assert_eq!(c.stale, 4);
        // A larger tolerance keeps them all.
        let mut c = Cursor::default();
        assert_eq!(collect(&r, &mut c, 100).len(), 8);
        // Asked for, the stale ones are handed over too, flagged, in order.
        let mut c = Cursor::default();
        let mut all = Vec::new();
        r.drain(&mut c, 4, true, |v, stale| all.push((v, stale)));
        assert_eq!(all, (0..8).map(|v| (v, v < 4)).collect::<Vec<_>>());
        assert_eq!((c.read, c.stale), (8, 4));
    }

    #[test]
    fn stalled_consumer_never_blocks_producers() {
        // The consumer never reads: many threads push far more than the capacity; every push
        // returns and the ring holds exactly the newest `capacity` indices.
        let r = Ring::new(64);
        std::thread::scope(|s| {
            for t in 0..4u32 {
                let r = &r;
                s.spawn(move || {
                    for i in 0..100_000u32 {
                        r.push(t * 1_000_000 + i, r.epoch());
                    }
                });
            }
        });
        assert_eq!(r.pushed(), 400_000);
        let mut c = Cursor::default();
        let got = collect(&r, &mut c, u32::MAX / 4);
        assert_eq!(got.len(), 64);
        assert_eq!(c.lost, 400_000 - 64);
        for v in got {
            assert!(v % 1_000_000 < 100_000, "entry {v} was never pushed");
        }
    }
}
