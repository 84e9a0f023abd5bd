//! Duel evidence: a voter group replays every request for its pages through two shadow
//! directories (keys only, no data) of the group's capacity — one run by CLOCK, one by LIFO —
//! and each request that exactly one of them holds is a point for that policy.
//!
//! Both contenders are judged on the same requests at the moment of the request, so a looping
//! scan's evidence (LIFO's stable pages re-requested a whole loop later) counts as much as a
//! skewed workload's (CLOCK's hot pages re-requested soon). The seed's rules judge a choice
//! when it is disclosed and decay it by the delay, which starves the loop's evidence when a
//! loop is longer than a few group turnovers (see `Evidence::Rules`).

use super::PageKey;

/// Where a key sits in the two shadows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slots {
    /// Index in the CLOCK shadow.
    pub(super) clock: u32,
    /// Index in the LIFO shadow.
    pub(super) lifo: u32,
}

impl Slots {
    /// Packed in a `u64` (CLOCK slot low).
    pub(super) fn pack(self) -> u64 {
        u64::from(self.lifo) << 32 | u64::from(self.clock)
    }

    /// From [`Slots::pack`].
    pub(super) fn unpack(v: u64) -> Slots {
        Slots { clock: v as u32, lifo: (v >> 32) as u32 }
    }
}

/// Finds `key` in `keys`: at `hint` when given (keys do not move), else by a scan.
fn find(keys: &[PageKey], key: PageKey, hint: Option<u32>) -> Option<usize> {
    match hint {
        Some(h) => (keys.get(h as usize) == Some(&key)).then_some(h as usize),
        None => keys.iter().position(|&k| k == key),
    }
}

/// The two shadow directories of one voter group.
pub(super) struct Duel {
    cap: usize,
    soft_lifo: bool,
    clock_keys: Vec<PageKey>,
    clock_ref: Vec<bool>,
    hand: usize,
    /// Keys of the LIFO shadow.
    lifo: Vec<PageKey>,
    /// Indices in `lifo` of the newest and second newest keys (`usize::MAX`: none).
    newest: [usize; 2],
}

impl Duel {
    /// Shadows of `cap` entries each; `soft_lifo` as the real LIFO.
    pub(super) fn new(cap: usize, soft_lifo: bool) -> Duel {
        Duel {
            cap: cap.max(1),
            soft_lifo,
            clock_keys: Vec::with_capacity(cap),
            clock_ref: Vec::with_capacity(cap),
            hand: 0,
            lifo: Vec::with_capacity(cap),
            newest: [usize::MAX; 2],
        }
    }

    /// Replays a request for `key` in both shadows; returns `+1` when only LIFO held it, `-1`
    /// when only CLOCK did, else 0. (The policy uses [`Duel::access_hinted`].)
    #[cfg(test)]
    pub(super) fn access(&mut self, key: PageKey) -> i32 {
        self.access_hinted(key, None).0
    }

    /// [`Duel::access`] with a slot hint: `hint` is the [`Slots`] this function returned for
    /// `key`'s previous request, if any. Keys never move inside a shadow, so a slot still
    /// holding `key` finds it without a scan, and a slot holding another key proves `key` was
    /// evicted. Returns the points and the key's slots now.
    pub(super) fn access_hinted(&mut self, key: PageKey, hint: Option<Slots>) -> (i32, Slots) {
        let (c, cs) = self.clock_access(key, hint.map(|h| h.clock));
        let (l, ls) = self.lifo_access(key, hint.map(|h| h.lifo));
        (l as i32 - c as i32, Slots { clock: cs, lifo: ls })
    }

    /// CLOCK as [`Gac`](super::Gac) runs it in duel mode: a hit sets the reference bit, a
    /// load leaves it clear.
    fn clock_access(&mut self, key: PageKey, hint: Option<u32>) -> (bool, u32) {
        if let Some(i) = find(&self.clock_keys, key, hint) {
            self.clock_ref[i] = true;
            return (true, i as u32);
        }
        if self.clock_keys.len() < self.cap {
            self.clock_keys.push(key);
            self.clock_ref.push(false);
            return (false, self.clock_keys.len() as u32 - 1);
        }
        while std::mem::take(&mut self.clock_ref[self.hand]) {
            self.hand = (self.hand + 1) % self.cap;
        }
        let i = self.hand;
        self.clock_keys[i] = key;
        self.hand = (self.hand + 1) % self.cap;
        (false, i as u32)
    }

    /// LIFO (soft: the second most recently loaded key goes).
    fn lifo_access(&mut self, key: PageKey, hint: Option<u32>) -> (bool, u32) {
        if let Some(i) = find(&self.lifo, key, hint) {
            return (true, i as u32);
        }
        let [n1, n2] = self.newest;
        let i = if self.lifo.len() < self.cap {
            self.lifo.push(key);
            self.lifo.len() - 1
        } else {
            let v = if self.soft_lifo && n2 != usize::MAX { n2 } else { n1 };
            self.lifo[v] = key;
            v
        };
        if i != n1 {
            self.newest = [i, n1];
        }
        (false, i as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadows_match_hand_checked_strings() {
        // Capacity 2, hard LIFO: 1 2 3 (3 replaces 2) 1 (LIFO hit; CLOCK evicted 1 for 3).
        let mut d = Duel::new(2, false);
        let got: Vec<i32> = [1, 2, 3, 1].iter().map(|&k| d.access(k)).collect();
        assert_eq!(got, vec![0, 0, 0, 1]);
        let mut d = Duel::new(2, false);
        // CLOCK: [1*] ; [1*,2] ; 3: clear 1, evict 2 -> [1,3] ; 1 hit ; 3 hit.
        // LIFO:  [1]  ; [1,2]  ; 3 replaces 2 -> [1,3]      ; 1 hit ; 3 hit.
        let got: Vec<i32> = [1, 1, 2, 3, 1, 3].iter().map(|&k| d.access(k)).collect();
        assert_eq!(got, vec![0, 0, 0, 0, 0, 0]);
        // 4: CLOCK [1*,3*] clears both, evicts 1 -> [4,3]; LIFO replaces 3 -> [1,4].
        assert_eq!(d.access(4), 0);
        assert_eq!(d.access(3), -1); // only CLOCK holds 3
                                     // CLOCK [4,3*]: clears 3, evicts 4 -> [1,3]; LIFO [1,4] holds 1.
        assert_eq!(d.access(1), 1);
    }
}

#[cfg(test)]
mod hint_tests {
    use super::*;

    #[test]
    fn hinted_access_matches_scanning_access() {
        // Two shadows fed the same string, one with the slots of each key's last request as
        // hints: same points throughout.
        let (mut plain, mut hinted) = (Duel::new(8, true), Duel::new(8, true));
        let mut slots = std::collections::HashMap::new();
        let mut x = 12345u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = if x.is_multiple_of(3) { x % 5 } else { x % 40 };
            let (p, s) = hinted.access_hinted(key, slots.get(&key).copied());
            slots.insert(key, s);
            assert_eq!(p, plain.access(key));
        }
    }
}
