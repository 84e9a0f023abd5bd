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
    /// when only CLOCK did, else 0.
    pub(super) fn access(&mut self, key: PageKey) -> i32 {
        let c = self.clock_access(key);
        let l = self.lifo_access(key);
        l as i32 - c as i32
    }

    /// CLOCK as [`Gac`](super::Gac) runs it in duel mode: a hit sets the reference bit, a
    /// load leaves it clear.
    fn clock_access(&mut self, key: PageKey) -> bool {
        if let Some(i) = self.clock_keys.iter().position(|&k| k == key) {
            self.clock_ref[i] = true;
            return true;
        }
        if self.clock_keys.len() < self.cap {
            self.clock_keys.push(key);
            self.clock_ref.push(false);
            return false;
        }
        while std::mem::take(&mut self.clock_ref[self.hand]) {
            self.hand = (self.hand + 1) % self.cap;
        }
        self.clock_keys[self.hand] = key;
        self.hand = (self.hand + 1) % self.cap;
        false
    }

    /// LIFO (soft: the second most recently loaded key goes).
    fn lifo_access(&mut self, key: PageKey) -> bool {
        if self.lifo.contains(&key) {
            return true;
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
        false
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
