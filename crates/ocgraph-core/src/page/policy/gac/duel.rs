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

/// Finds `key` in `keys`: at `hint` when given (keys do not move), else through `index`.
fn find(keys: &[PageKey], index: &KeyIndex, key: PageKey, hint: Option<u32>) -> Option<usize> {
    match hint {
        Some(h) => (keys.get(h as usize) == Some(&key)).then_some(h as usize),
        None => index.find(keys, key),
    }
}

/// An empty [`KeyIndex`] entry.
const EMPTY: u8 = u8::MAX;

/// The slots of a shadow's keys (distinct, at most 64) by key: open addressing with linear
/// probing over a table of at least four times the capacity, backward-shift deletion. Replaces a
/// scan of the shadow when a request comes without a slot hint (a load, or the first request
/// of a page read ahead).
struct KeyIndex {
    /// Slot numbers, [`EMPTY`] where free.
    table: Vec<u8>,
    mask: usize,
}

impl KeyIndex {
    fn new(cap: usize) -> KeyIndex {
        let n = (4 * cap).next_power_of_two().max(2);
        KeyIndex { table: vec![EMPTY; n], mask: n - 1 }
    }

    #[inline]
    fn home(&self, key: PageKey) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize & self.mask
    }

    /// The slot of `key` in `keys`.
    #[inline]
    fn find(&self, keys: &[PageKey], key: PageKey) -> Option<usize> {
        let mut h = self.home(key);
        loop {
            let s = self.table[h];
            if s == EMPTY {
                return None;
            }
            if keys[s as usize] == key {
                return Some(s as usize);
            }
            h = (h + 1) & self.mask;
        }
    }

    /// Adds slot `slot` (its key in `keys`, not indexed yet).
    #[inline]
    fn insert(&mut self, keys: &[PageKey], slot: usize) {
        let mut h = self.home(keys[slot]);
        while self.table[h] != EMPTY {
            h = (h + 1) & self.mask;
        }
        self.table[h] = slot as u8;
    }

    /// Removes slot `slot` (indexed under its key in `keys`).
    fn remove(&mut self, keys: &[PageKey], slot: usize) {
        let mut h = self.home(keys[slot]);
        while self.table[h] as usize != slot {
            h = (h + 1) & self.mask;
        }
        // Backward shift: entries after the hole move into it unless their home lies
        // cyclically in (hole, entry].
        let mut hole = h;
        let mut j = h;
        loop {
            j = (j + 1) & self.mask;
            let s = self.table[j];
            if s == EMPTY {
                break;
            }
            let home = self.home(keys[s as usize]);
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.table[hole] = s;
                hole = j;
            }
        }
        self.table[hole] = EMPTY;
    }
}

/// No owner of a shadow slot.
pub(super) const NO_OWNER: u32 = u32::MAX;

/// The two shadow directories of one voter group.
pub(super) struct Duel {
    cap: usize,
    soft_lifo: bool,
    clock_keys: Vec<PageKey>,
    clock_index: KeyIndex,
    clock_ref: Vec<bool>,
    hand: usize,
    /// Keys of the LIFO shadow.
    lifo: Vec<PageKey>,
    lifo_index: KeyIndex,
    /// Indices in `lifo` of the newest and second newest keys (`usize::MAX`: none).
    newest: [usize; 2],
    /// Per slot of each shadow: the owner (a frame of the real cache) given by the last
    /// access that returned the slot, or [`NO_OWNER`]. When the slot's state changes (key
    /// replaced, CLOCK reference bit cleared) its owner is reported: a steady owner (see
    /// [`Duel::access_owned`]) is steady no longer.
    clock_owner: Vec<u32>,
    lifo_owner: Vec<u32>,
}

impl Duel {
    /// Shadows of `cap` entries each; `soft_lifo` as the real LIFO.
    pub(super) fn new(cap: usize, soft_lifo: bool) -> Duel {
        Duel {
            cap: cap.max(1),
            soft_lifo,
            clock_keys: Vec::with_capacity(cap),
            clock_index: KeyIndex::new(cap.max(1)),
            clock_ref: Vec::with_capacity(cap),
            hand: 0,
            lifo: Vec::with_capacity(cap),
            lifo_index: KeyIndex::new(cap.max(1)),
            newest: [usize::MAX; 2],
            clock_owner: Vec::with_capacity(cap),
            lifo_owner: Vec::with_capacity(cap),
        }
    }

    /// Replays a request for `key` in both shadows; returns `+1` when only LIFO held it, `-1`
    /// when only CLOCK did, else 0. (The policy uses [`Duel::access_owned`].)
    #[cfg(test)]
    pub(super) fn access(&mut self, key: PageKey) -> i32 {
        self.access_hinted(key, None).0
    }

    #[cfg(test)]
    /// [`Duel::access`] with a slot hint: `hint` is the [`Slots`] this function returned for
    /// `key`'s previous request, if any. Keys never move inside a shadow, so a slot still
    /// holding `key` finds it without a scan, and a slot holding another key proves `key` was
    /// evicted. Returns the points and the key's slots now.
    pub(super) fn access_hinted(&mut self, key: PageKey, hint: Option<Slots>) -> (i32, Slots) {
        let (p, s, _, _) = self.access_owned(key, hint, NO_OWNER, |_| {}, |_, _| {});
        (p, s)
    }

    /// [`Duel::access_hinted`] on behalf of `owner` (a frame), which becomes the owner of the
    /// key's slots; `changed` is called with the owner of every other slot whose state this
    /// access changes. Also returns whether the access left the key *steady*: held by both
    /// shadows with its CLOCK reference bit set, so that a repeated access changes nothing
    /// (0 points, same slots) until `changed` reports `owner`. `dropped` is called with the
    /// owner and the key of every slot whose key the LIFO shadow replaces (the owner may hold
    /// another page by now).
    #[inline]
    pub(super) fn access_owned(
        &mut self,
        key: PageKey,
        hint: Option<Slots>,
        owner: u32,
        mut changed: impl FnMut(u32),
        mut dropped: impl FnMut(u32, PageKey),
    ) -> (i32, Slots, bool, bool) {
        let (c, cs) = self.clock_access(key, hint.map(|h| h.clock), &mut changed);
        let (l, ls) = self.lifo_access(key, hint.map(|h| h.lifo), &mut changed, &mut dropped);
        self.clock_owner[cs as usize] = owner;
        self.lifo_owner[ls as usize] = owner;
        (l as i32 - c as i32, Slots { clock: cs, lifo: ls }, c && l, l)
    }

    /// The common case of [`Duel::access_owned`], cheaper: a request whose `hint` slots both
    /// still hold `key`. Both shadows hit (no points, and the key is steady afterwards): sets
    /// the CLOCK reference bit and makes `owner` the slots' owner. Returns false, changing
    /// nothing, when either slot holds another key.
    #[inline]
    pub(super) fn hit_both(&mut self, key: PageKey, hint: Slots, owner: u32) -> bool {
        let (c, l) = (hint.clock as usize, hint.lifo as usize);
        if self.clock_keys.get(c) != Some(&key) || self.lifo.get(l) != Some(&key) {
            return false;
        }
        self.clock_ref[c] = true;
        self.clock_owner[c] = owner;
        self.lifo_owner[l] = owner;
        true
    }

    /// Reports the owner of a slot whose state changes.
    #[inline]
    fn report(owners: &[u32], i: usize, changed: &mut impl FnMut(u32)) {
        let o = owners[i];
        if o != NO_OWNER {
            changed(o);
        }
    }

    /// CLOCK as [`Gac`](super::Gac) runs it in duel mode: a hit sets the reference bit, a
    /// load leaves it clear.
    #[inline]
    fn clock_access(
        &mut self,
        key: PageKey,
        hint: Option<u32>,
        changed: &mut impl FnMut(u32),
    ) -> (bool, u32) {
        if let Some(i) = find(&self.clock_keys, &self.clock_index, key, hint) {
            self.clock_ref[i] = true;
            return (true, i as u32);
        }
        if self.clock_keys.len() < self.cap {
            self.clock_keys.push(key);
            self.clock_index.insert(&self.clock_keys, self.clock_keys.len() - 1);
            self.clock_ref.push(false);
            self.clock_owner.push(NO_OWNER);
            return (false, self.clock_keys.len() as u32 - 1);
        }
        let cap = self.cap;
        let step = move |h: usize| if h + 1 == cap { 0 } else { h + 1 };
        while std::mem::take(&mut self.clock_ref[self.hand]) {
            Self::report(&self.clock_owner, self.hand, changed);
            self.hand = step(self.hand);
        }
        let i = self.hand;
        Self::report(&self.clock_owner, i, changed);
        self.clock_index.remove(&self.clock_keys, i);
        self.clock_keys[i] = key;
        self.clock_index.insert(&self.clock_keys, i);
        self.hand = step(i);
        (false, i as u32)
    }

    /// LIFO (soft: the second most recently loaded key goes).
    #[inline]
    fn lifo_access(
        &mut self,
        key: PageKey,
        hint: Option<u32>,
        changed: &mut impl FnMut(u32),
        dropped: &mut impl FnMut(u32, PageKey),
    ) -> (bool, u32) {
        if let Some(i) = find(&self.lifo, &self.lifo_index, key, hint) {
            return (true, i as u32);
        }
        let [n1, n2] = self.newest;
        let i = if self.lifo.len() < self.cap {
            self.lifo.push(key);
            self.lifo_index.insert(&self.lifo, self.lifo.len() - 1);
            self.lifo_owner.push(NO_OWNER);
            self.lifo.len() - 1
        } else {
            let v = if self.soft_lifo && n2 != usize::MAX { n2 } else { n1 };
            Self::report(&self.lifo_owner, v, changed);
            if self.lifo_owner[v] != NO_OWNER {
                dropped(self.lifo_owner[v], self.lifo[v]);
            }
            self.lifo_index.remove(&self.lifo, v);
            self.lifo[v] = key;
            self.lifo_index.insert(&self.lifo, v);
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

/// `count` test keys from xorshift seeded with `seed`: one in three among the `hot` first keys,
/// the others among 40.
#[cfg(test)]
fn keys(seed: u64, hot: u64, count: usize) -> impl Iterator<Item = PageKey> {
    let mut x = seed;
    (0..count).map(move |_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x.is_multiple_of(3) {
            x % hot
        } else {
            x % 40
        }
    })
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
        for key in keys(12345, 5, 20_000) {
            let (p, s) = hinted.access_hinted(key, slots.get(&key).copied());
            slots.insert(key, s);
            assert_eq!(p, plain.access(key));
        }
    }
}

#[cfg(test)]
mod fast_path_tests {
    use super::*;

    #[test]
    fn hit_both_agrees_with_the_full_access() {
        // One shadow pair fed every request in full, the other trying `hit_both` first with
        // the slots of the key's last request: same points throughout, and whenever the fast
        // path takes a request the full access would have scored 0 and left the slots as they
        // were.
        for soft in [true, false] {
            let (mut full, mut fast) = (Duel::new(8, soft), Duel::new(8, soft));
            let mut slots: [Option<Slots>; 40] = [None; 40];
            let mut taken = 0;
            for key in keys(99, 6, 50_000) {
                let k = key as usize;
                let (want, want_at) = full.access_hinted(key, slots[k]);
                if let Some(at) = slots[k] {
                    if fast.hit_both(key, at, NO_OWNER) {
                        assert_eq!((want, want_at), (0, at));
                        taken += 1;
                        continue;
                    }
                }
                let (p, at) = fast.access_hinted(key, slots[k]);
                assert_eq!((p, at), (want, want_at));
                slots[k] = Some(at);
            }
            assert!(taken > 10_000, "fast path taken {taken} times");
        }
    }
}

#[cfg(test)]
mod steady_tests {
    use super::*;

    #[test]
    fn skipping_steady_accesses_changes_nothing() {
        // One shadow pair fed every request, the other skipping requests for steady keys
        // (each key its own owner): same points, and a skipped access is always a no-op.
        for soft in [true, false] {
            let (mut plain, mut skipping) = (Duel::new(8, soft), Duel::new(8, soft));
            let mut steady = [false; 40];
            let mut slots: [Option<Slots>; 40] = [None; 40];
            for key in keys(4242, 6, 50_000) {
                let want = plain.access(key);
                let k = key as usize;
                if steady[k] {
                    assert_eq!(want, 0);
                    continue;
                }
                let (p, s, st, _) = skipping.access_owned(
                    key,
                    slots[k],
                    key as u32,
                    |o| steady[o as usize] = false,
                    |_, _| {},
                );
                assert_eq!(p, want);
                slots[k] = Some(s);
                steady[k] = st;
            }
        }
    }
}

#[cfg(test)]
mod index_tests {
    use super::*;

    #[test]
    fn index_finds_what_a_scan_finds() {
        // Random replacements in 64 slots of keys from a small range (many collisions in a
        // 256-entry table): the index agrees with a scan for every key after every change.
        let mut keys: Vec<PageKey> = (0..64).collect();
        let mut index = KeyIndex::new(64);
        for s in 0..64 {
            index.insert(&keys, s);
        }
        let mut x = 777u64;
        for _ in 0..5_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = (x >> 8) % 200;
            if keys.contains(&key) {
                continue;
            }
            let slot = (x % 64) as usize;
            index.remove(&keys, slot);
            keys[slot] = key;
            index.insert(&keys, slot);
            for k in 0..200 {
                assert_eq!(index.find(&keys, k), keys.iter().position(|&q| q == k), "key {k}");
            }
        }
    }
}
