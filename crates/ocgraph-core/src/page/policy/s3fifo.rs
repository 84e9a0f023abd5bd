//! S3-FIFO (Yang et al., SOSP 2023): a small FIFO `S` (10% of the frames) filters one-hit
//! pages; a main FIFO `M` with lazy promotion keeps the reused ones; a ghost FIFO `G` of keys
//! (as many as frames) sends a page evicted from `S` straight to `M` when it comes back.
//!
//! - A miss loads into `M` when its key is in `G` (and removes it from `G`), else into `S`.
//! - A hit increments the frame's 2-bit frequency (lock-free).
//! - Eviction: from `S` while `S` holds at least its target (or `M` is empty): the oldest
//!   frame of `S` moves to `M` if it was hit since its load, else it is evicted and its key goes
//!   to `G`. Otherwise from `M`: the oldest frame is reinserted at the back with its frequency
//!   decremented if it is nonzero, else evicted.
//! - A pinned candidate is moved to the back of its queue and the search goes on (in the
//!   other queue once every frame of this one was found pinned).

use std::sync::atomic::{AtomicU8, Ordering};

use parking_lot::Mutex;

use super::ghosts::KeyFifo;
use super::list::FrameList;
use super::{PageKey, ReplacementPolicy};

struct State {
    small: FrameList,
    main: FrameList,
    small_len: usize,
    main_len: usize,
    in_main: Vec<bool>,
    key: Vec<PageKey>,
    ghost: KeyFifo,
}

/// The S3-FIFO policy.
pub struct S3Fifo {
    state: Mutex<State>,
    freq: Box<[AtomicU8]>,
    small_target: usize,
    ghost_cap: usize,
}

impl S3Fifo {
    /// S3-FIFO over `frames` frames.
    pub fn new(frames: usize) -> S3Fifo {
        S3Fifo {
            state: Mutex::new(State {
                small: FrameList::new(frames),
                main: FrameList::new(frames),
                small_len: 0,
                main_len: 0,
                in_main: vec![false; frames],
                key: vec![0; frames],
                ghost: KeyFifo::default(),
            }),
            freq: (0..frames).map(|_| AtomicU8::new(0)).collect(),
            small_target: (frames / 10).max(1),
            ghost_cap: frames.max(1),
        }
    }
}

/// The oldest frame of a list.
fn front(l: &FrameList) -> Option<usize> {
    l.find_from_front(&mut |_| true)
}

impl ReplacementPolicy for S3Fifo {
    fn name(&self) -> &'static str {
        "s3fifo"
    }

    fn on_hit(&self, frame: usize) {
        let f = &self.freq[frame];
        let v = f.load(Ordering::Relaxed);
        if v < 3 {
            f.store(v + 1, Ordering::Relaxed);
        }
    }

    fn on_load(&self, frame: usize, key: PageKey) {
        let mut st = self.state.lock();
        self.freq[frame].store(0, Ordering::Relaxed);
        st.key[frame] = key;
        if st.ghost.remove(key) {
            st.main.push_back(frame);
            st.main_len += 1;
            st.in_main[frame] = true;
        } else {
            st.small.push_back(frame);
            st.small_len += 1;
            st.in_main[frame] = false;
        }
    }

    fn on_evict(&self, frame: usize) {
        let mut st = self.state.lock();
        if st.in_main[frame] {
            if st.main.contains(frame) {
                st.main.remove(frame);
                st.main_len -= 1;
            }
        } else if st.small.contains(frame) {
            st.small.remove(frame);
            st.small_len -= 1;
        }
    }

    fn victim(&self, _key: PageKey, evictable: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        let mut st = self.state.lock();
        let st = &mut *st;
        let frames = st.in_main.len();
        // Pinned frames skipped in each queue: once a whole queue was skipped, use the other.
        let (mut s_pinned, mut m_pinned) = (0, 0);
        // Every frame is looked at a bounded number of times (frequencies are at most 3).
        for _ in 0..8 * frames + 8 {
            let s_ok = st.small_len > s_pinned;
            let m_ok = st.main_len > m_pinned;
            if s_ok && (st.small_len >= self.small_target || !m_ok) {
                let f = front(&st.small).expect("small is not empty");
                if self.freq[f].load(Ordering::Relaxed) > 0 {
                    self.freq[f].store(0, Ordering::Relaxed);
                    st.small.remove(f);
                    st.small_len -= 1;
                    st.main.push_back(f);
                    st.main_len += 1;
                    st.in_main[f] = true;
                } else if evictable(f) {
                    st.ghost.push(st.key[f]);
                    if st.ghost.len() > self.ghost_cap {
                        st.ghost.pop_oldest();
                    }
                    return Some(f);
                } else {
                    st.small.push_back(f);
                    s_pinned += 1;
                }
            } else if m_ok {
                let f = front(&st.main).expect("main is not empty");
                let v = self.freq[f].load(Ordering::Relaxed);
                if v > 0 {
                    self.freq[f].store(v - 1, Ordering::Relaxed);
                    st.main.push_back(f);
                } else if evictable(f) {
                    return Some(f);
                } else {
                    st.main.push_back(f);
                    m_pinned += 1;
                }
            } else {
                return None;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_driver::evictions;
    use super::*;

    #[test]
    fn hand_checked_victim_order() {
        // 4 frames, small queue target 1 frame. 1..4 fill S; 5 evicts 1 (to G); 1 comes back
        // from G into M, evicting 2; likewise 2 (evicting 3), 3 (evicting 4) and 4 (evicting
        // 5, emptying S). The hit on 1 spares it once in M: 6 evicts 2.
        let refs = [1, 2, 3, 4, 5, 1, 2, 1, 3, 4, 6];
        assert_eq!(evictions(&S3Fifo::new(4), 4, &refs), vec![1, 2, 3, 4, 5, 2]);
    }

    #[test]
    fn pinned_small_queue_falls_back_to_main() {
        // 2 frames: 1 (pinned, in S) and 2 (hit, so moved to M on the first pass): 3 must
        // evict 2 rather than give up.
        let p = S3Fifo::new(2);
        p.on_load(0, 1);
        p.on_load(1, 2);
        p.on_hit(1);
        assert_eq!(p.victim(3, &mut |f| f != 0), Some(1));
        assert_eq!(p.victim(3, &mut |_| false), None);
    }

    #[test]
    fn a_page_hit_in_the_small_queue_moves_to_main() {
        // 10 frames (S target 1): 11 evicts 1; the hit on 2 moves it to M, so 12 evicts 3;
        // then 13 and 14 evict 4 and 5, never 2.
        let mut refs: Vec<u64> = (1..=10).collect();
        refs.extend([11, 2, 12, 13, 14]);
        assert_eq!(evictions(&S3Fifo::new(10), 10, &refs), vec![1, 3, 4, 5]);
    }
}
