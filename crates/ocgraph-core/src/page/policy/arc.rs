//! ARC, adaptive replacement cache (Megiddo & Modha, FAST 2003), over frames.
//!
//! `T1` holds pages seen once recently, `T2` pages seen at least twice (both LRU lists of
//! frames); `B1`/`B2` are ghost lists of keys evicted from them. The target size `p` of `T1`
//! grows on a miss found in `B1` and shrinks on a miss found in `B2`; eviction takes the LRU
//! frame of `T1` when `|T1| > p` (or `= p` on a `B2` hit), else of `T2`; ghost lists are
//! trimmed so `|T1| + |B1| <= c` and the total stays within `2c`. Hits take the mutex (a hit
//! moves the frame to the MRU end of `T2`). A pinned candidate is skipped for the next one of
//! the same list, then of the other list.

use parking_lot::Mutex;

use super::ghosts::KeyFifo;
use super::list::FrameList;
use super::{PageKey, ReplacementPolicy};

struct State {
    t1: FrameList,
    t2: FrameList,
    t1_len: usize,
    t2_len: usize,
    in_t2: Vec<bool>,
    key: Vec<PageKey>,
    b1: KeyFifo,
    b2: KeyFifo,
    /// Target size of `T1`.
    p: f64,
    /// Key whose ghost hit already adapted `p` in `victim` (so `on_load` does not adapt again).
    adapted: Option<PageKey>,
}

/// The ARC policy.
pub struct ArcPolicy {
    state: Mutex<State>,
    c: usize,
}

impl ArcPolicy {
    /// ARC over `frames` frames.
    pub fn new(frames: usize) -> ArcPolicy {
        ArcPolicy {
            state: Mutex::new(State {
                t1: FrameList::new(frames),
                t2: FrameList::new(frames),
                t1_len: 0,
                t2_len: 0,
                in_t2: vec![false; frames],
                key: vec![0; frames],
                b1: KeyFifo::default(),
                b2: KeyFifo::default(),
                p: 0.0,
                adapted: None,
            }),
            c: frames,
        }
    }
}

impl State {
    /// Adapts `p` for a miss on `key` found in a ghost list.
    fn adapt(&mut self, key: PageKey, c: usize) {
        let (l1, l2) = (self.b1.len() as f64, self.b2.len() as f64);
        if self.b1.contains(key) {
            self.p = (self.p + (l2 / l1).max(1.0)).min(c as f64);
        } else if self.b2.contains(key) {
            self.p = (self.p - (l1 / l2).max(1.0)).max(0.0);
        }
    }

    /// Evicts the first evictable LRU frame of `T1` (`from_t1`) or `T2`, recording its key in
    /// `B1` or `B2` when `ghost`.
    fn take(
        &mut self,
        from_t1: bool,
        ghost: bool,
        evictable: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        let list = if from_t1 { &self.t1 } else { &self.t2 };
        let f = list.find_from_front(evictable)?;
        if ghost {
            let k = self.key[f];
            if from_t1 {
                self.b1.push(k);
            } else {
                self.b2.push(k);
            }
        }
        Some(f)
    }

    /// ARC's REPLACE, falling back to the other list when every frame of the chosen one is pinned.
    fn replace(&mut self, in_b2: bool, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let t1 = self.t1_len as f64;
        let from_t1 = self.t1_len >= 1 && (t1 > self.p || (in_b2 && t1 == self.p));
        self.take(from_t1, true, evictable).or_else(|| self.take(!from_t1, true, evictable))
    }
}

impl ReplacementPolicy for ArcPolicy {
    fn name(&self) -> &'static str {
        "arc"
    }

    fn on_hit(&self, frame: usize) {
        let mut st = self.state.lock();
        if st.in_t2[frame] {
            if st.t2.contains(frame) {
                st.t2.push_back(frame);
            }
        } else if st.t1.contains(frame) {
            st.t1.remove(frame);
            st.t1_len -= 1;
            st.t2.push_back(frame);
            st.t2_len += 1;
            st.in_t2[frame] = true;
        }
    }

    fn on_load(&self, frame: usize, key: PageKey) {
        let mut st = self.state.lock();
        st.key[frame] = key;
        if st.b1.contains(key) || st.b2.contains(key) {
            if st.adapted != Some(key) {
                st.adapt(key, self.c);
            }
            st.b1.remove(key);
            st.b2.remove(key);
            st.t2.push_back(frame);
            st.t2_len += 1;
            st.in_t2[frame] = true;
        } else {
            st.t1.push_back(frame);
            st.t1_len += 1;
            st.in_t2[frame] = false;
        }
        st.adapted = None;
    }

    fn on_evict(&self, frame: usize) {
        let mut st = self.state.lock();
        if st.in_t2[frame] {
            if st.t2.contains(frame) {
                st.t2.remove(frame);
                st.t2_len -= 1;
            }
        } else if st.t1.contains(frame) {
            st.t1.remove(frame);
            st.t1_len -= 1;
        }
    }

    fn victim(&self, key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let mut st = self.state.lock();
        let c = self.c;
        if st.b1.contains(key) || st.b2.contains(key) {
            st.adapt(key, c);
            st.adapted = Some(key);
            let in_b2 = st.b2.contains(key);
            return st.replace(in_b2, evictable);
        }
        st.adapted = None;
        if st.t1_len + st.b1.len() >= c {
            if st.t1_len < c {
                st.b1.pop_oldest();
                st.replace(false, evictable)
            } else {
                // T1 fills the cache: drop its LRU page without a ghost.
                st.take(true, false, evictable).or_else(|| st.take(false, true, evictable))
            }
        } else {
            if st.t1_len + st.t2_len + st.b1.len() + st.b2.len() >= 2 * c {
                st.b2.pop_oldest();
            }
            st.replace(false, evictable)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::super::test_driver::evictions;
    use super::*;

    /// ARC as printed in the paper (figure 4), over keys: the evicted keys in order.
    fn reference_arc(refs: &[u64], c: usize) -> Vec<u64> {
        let (mut t1, mut t2, mut b1, mut b2) =
            (VecDeque::new(), VecDeque::new(), VecDeque::<u64>::new(), VecDeque::<u64>::new());
        let mut p = 0.0f64;
        let mut out = Vec::new();
        let take = |q: &mut VecDeque<u64>, x: u64| q.iter().position(|&y| y == x).map(|i| q.remove(i));
        for &x in refs {
            if take(&mut t1, x).is_some() || take(&mut t2, x).is_some() {
                t2.push_back(x);
                continue;
            }
            let in_b1 = b1.contains(&x);
            let in_b2 = b2.contains(&x);
            let mut replace = |t1: &mut VecDeque<u64>,
                               t2: &mut VecDeque<u64>,
                               b1: &mut VecDeque<u64>,
                               b2: &mut VecDeque<u64>,
                               p: f64| {
                let l1 = t1.len() as f64;
                if !t1.is_empty() && (l1 > p || (in_b2 && l1 == p)) {
                    let y = t1.pop_front().unwrap();
                    b1.push_back(y);
                    out.push(y);
                } else {
                    let y = t2.pop_front().unwrap();
                    b2.push_back(y);
                    out.push(y);
                }
            };
            if in_b1 {
                p = (p + (b2.len() as f64 / b1.len() as f64).max(1.0)).min(c as f64);
                replace(&mut t1, &mut t2, &mut b1, &mut b2, p);
                take(&mut b1, x);
                t2.push_back(x);
            } else if in_b2 {
                p = (p - (b1.len() as f64 / b2.len() as f64).max(1.0)).max(0.0);
                replace(&mut t1, &mut t2, &mut b1, &mut b2, p);
                take(&mut b2, x);
                t2.push_back(x);
            } else {
                if t1.len() + b1.len() == c {
                    if t1.len() < c {
                        b1.pop_front();
                        replace(&mut t1, &mut t2, &mut b1, &mut b2, p);
                    } else {
                        out.push(t1.pop_front().unwrap());
                    }
                } else if t1.len() + t2.len() + b1.len() + b2.len() >= c {
                    if t1.len() + t2.len() + b1.len() + b2.len() == 2 * c {
                        b2.pop_front();
                    }
                    replace(&mut t1, &mut t2, &mut b1, &mut b2, p);
                }
                t1.push_back(x);
            }
        }
        out
    }

    #[test]
    fn hand_checked_scan_resistance() {
        // 1 and 2 are reused (T2); the scan 3..7 only cycles T1: 1 and 2 are never evicted.
        let refs = [1, 2, 1, 2, 3, 4, 5, 6, 7, 1, 2];
        assert_eq!(evictions(&ArcPolicy::new(4), 4, &refs), vec![3, 4, 5]);
    }

    #[test]
    fn matches_the_papers_pseudocode() {
        let mut s = 42u64;
        for case in 0..200 {
            let c = 2 + case % 7;
            let pages = (c + 2 + case % 13) as u64;
            let refs: Vec<u64> = (0..300)
                .map(|_| {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    // Skewed: half the requests go to the first quarter of the pages.
                    let r = s >> 33;
                    if r.is_multiple_of(2) {
                        r / 2 % (pages / 4 + 1)
                    } else {
                        r / 2 % pages
                    }
                })
                .collect();
            assert_eq!(
                evictions(&ArcPolicy::new(c), c, &refs),
                reference_arc(&refs, c),
                "c {c} refs {refs:?}"
            );
        }
    }
}
