//! A cache simulator: replays a page-request sequence through a [`ReplacementPolicy`] (the same
//! policy code the buffer pool runs) or through Belady's offline optimum, and counts hits.
//!
//! The simulator follows the pool's protocol: a lookup table from page to frame; on a hit
//! `on_hit`; on a miss a free frame (lowest index first, as the pool's free list hands them out)
//! or `victim` (frames are never pinned here), then `on_evict` and `on_load`.
//!
//! Hit ratios exclude cold misses (first requests of a page), as in seed 001:
//! `hits / (hits + capacity misses)`.

use std::collections::{BinaryHeap, HashMap};

use super::policy::{policy_by_name, PageKey, ReplacementPolicy};
use crate::error::Result;

/// Counts of one simulation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Requests replayed.
    pub requests: u64,
    /// Requests found resident.
    pub hits: u64,
    /// First requests of a page.
    pub cold_misses: u64,
    /// Misses on pages requested before.
    pub capacity_misses: u64,
}

impl SimStats {
    /// `hits / (hits + capacity misses)` (1.0 when there are neither).
    pub fn hit_ratio(&self) -> f64 {
        let d = self.hits + self.capacity_misses;
        if d == 0 {
            1.0
        } else {
            self.hits as f64 / d as f64
        }
    }
}

/// A request sequence with its pages renumbered densely (`0..distinct`) for fast lookups.
#[derive(Debug, Clone)]
pub struct DenseTrace {
    /// The original keys, in request order.
    pub keys: Vec<PageKey>,
    /// The dense id of each request's page.
    pub ids: Vec<u32>,
    /// Number of distinct pages.
    pub distinct: usize,
}

impl DenseTrace {
    /// Renumbers `keys` in order of first request.
    pub fn new(keys: Vec<PageKey>) -> DenseTrace {
        let mut map: HashMap<PageKey, u32> = HashMap::new();
        let ids = keys
            .iter()
            .map(|&k| {
                let n = map.len() as u32;
                *map.entry(k).or_insert(n)
            })
            .collect();
        DenseTrace { keys, ids, distinct: map.len() }
    }
}

/// Sentinel: page not resident / frame empty.
const NONE: u32 = u32::MAX;

/// A cache of `frames` frames driven by a replacement policy.
pub struct CacheSim {
    policy: Box<dyn ReplacementPolicy>,
    /// Per dense page id: its frame or [`NONE`].
    frame_of: Vec<u32>,
    /// Per frame: the dense page id it holds or [`NONE`].
    owner: Vec<u32>,
    seen: Vec<bool>,
    /// Free frames, popped from the back (frame 0 first).
    free: Vec<usize>,
    stats: SimStats,
}

impl CacheSim {
    /// A simulator of `frames` frames (at least 1) for pages with dense ids `0..distinct`.
    pub fn new(policy: Box<dyn ReplacementPolicy>, frames: usize, distinct: usize) -> CacheSim {
        let frames = frames.max(1);
        CacheSim {
            policy,
            frame_of: vec![NONE; distinct],
            owner: vec![NONE; frames],
            seen: vec![false; distinct],
            free: (0..frames).rev().collect(),
            stats: SimStats::default(),
        }
    }

    /// Requests page `id` (dense) whose key is `key`; returns whether it was a hit.
    pub fn access(&mut self, id: u32, key: PageKey) -> bool {
        self.stats.requests += 1;
        let f = self.frame_of[id as usize];
        if f != NONE {
            self.stats.hits += 1;
            self.policy.on_hit(f as usize);
            return true;
        }
        if std::mem::replace(&mut self.seen[id as usize], true) {
            self.stats.capacity_misses += 1;
        } else {
            self.stats.cold_misses += 1;
        }
        let f = match self.free.pop() {
            Some(f) => f,
            None => {
                let v =
                    self.policy.victim(key, &mut |_| true).expect("an unpinned cache always has a victim");
                let old = self.owner[v];
                debug_assert_ne!(old, NONE);
                self.frame_of[old as usize] = NONE;
                self.policy.on_evict(v);
                v
            }
        };
        self.owner[f] = id;
        self.frame_of[id as usize] = f as u32;
        self.policy.on_load(f, key);
        false
    }

    /// The counts so far.
    pub fn stats(&self) -> SimStats {
        self.stats
    }

    /// The policy being driven.
    pub fn policy(&self) -> &dyn ReplacementPolicy {
        self.policy.as_ref()
    }
}

/// Replays `trace` through the policy named `policy` (see
/// [`policy_by_name`](super::policy::policy_by_name)) with `frames` frames.
pub fn simulate(policy: &str, trace: &DenseTrace, frames: usize) -> Result<SimStats> {
    let mut sim = CacheSim::new(policy_by_name(policy, frames.max(1))?, frames, trace.distinct);
    for (&id, &key) in trace.ids.iter().zip(&trace.keys) {
        sim.access(id, key);
    }
    Ok(sim.stats())
}

/// Belady's offline optimum (OPT/MIN): on a miss with a full cache, evicts the resident page
/// whose next request is farthest in the future (or never comes).
pub fn simulate_opt(trace: &DenseTrace, frames: usize) -> SimStats {
    let frames = frames.max(1);
    let n = trace.ids.len();
    // next[i]: index of the next request of the same page after i (usize::MAX: none).
    let mut next = vec![usize::MAX; n];
    let mut last = vec![usize::MAX; trace.distinct];
    for i in (0..n).rev() {
        let id = trace.ids[i] as usize;
        next[i] = last[id];
        last[id] = i;
    }
    let mut resident_next = vec![NONE as usize; trace.distinct];
    let mut resident = vec![false; trace.distinct];
    let mut seen = vec![false; trace.distinct];
    let mut heap: BinaryHeap<(usize, u32)> = BinaryHeap::new();
    let mut count = 0;
    let mut s = SimStats::default();
    for (i, &id) in trace.ids.iter().enumerate() {
        let p = id as usize;
        s.requests += 1;
        if resident[p] {
            s.hits += 1;
        } else {
            if std::mem::replace(&mut seen[p], true) {
                s.capacity_misses += 1;
            } else {
                s.cold_misses += 1;
            }
            if count == frames {
                // Pop stale entries until the farthest live one.
                loop {
                    let (nu, q) = heap.pop().expect("a full cache has heap entries");
                    if resident[q as usize] && resident_next[q as usize] == nu {
                        resident[q as usize] = false;
                        break;
                    }
                }
            } else {
                count += 1;
            }
            resident[p] = true;
        }
        resident_next[p] = next[i];
        heap.push((next[i], id));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fewest misses over every eviction choice (exhaustive search).
    fn brute_force_min_misses(refs: &[u32], frames: usize) -> u64 {
        fn go(refs: &[u32], frames: usize, cache: &mut Vec<u32>) -> u64 {
            let Some((&p, rest)) = refs.split_first() else { return 0 };
            if cache.contains(&p) {
                return go(rest, frames, cache);
            }
            if cache.len() < frames {
                cache.push(p);
                let m = 1 + go(rest, frames, cache);
                cache.pop();
                return m;
            }
            let mut best = u64::MAX;
            for i in 0..cache.len() {
                let old = std::mem::replace(&mut cache[i], p);
                best = best.min(1 + go(rest, frames, cache));
                cache[i] = old;
            }
            best
        }
        go(refs, frames, &mut Vec::new())
    }

    #[test]
    fn opt_matches_brute_force_on_tiny_traces() {
        let mut state = 0x2545f4914f6cdd1du64;
        for case in 0..300 {
            let len = 1 + case % 12;
            let pages = 2 + (case / 12) % 5;
            let refs: Vec<u64> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state % pages as u64
                })
                .collect();
            let t = DenseTrace::new(refs.clone());
            for frames in 1..=3 {
                let s = simulate_opt(&t, frames);
                let misses = s.cold_misses + s.capacity_misses;
                assert_eq!(misses, brute_force_min_misses(&t.ids, frames), "refs {refs:?} frames {frames}");
                assert_eq!(s.hits + misses, len as u64);
            }
        }
    }

    #[test]
    fn opt_textbook_example() {
        // Silberschatz's reference string with 3 frames: 9 page faults under OPT.
        let refs = [7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1];
        let s = simulate_opt(&DenseTrace::new(refs.to_vec()), 3);
        assert_eq!(s.cold_misses + s.capacity_misses, 9);
        assert_eq!(s.cold_misses, 6);
    }

    #[test]
    fn simulator_counts_like_hand_checked_lru() {
        // LRU, 3 frames, same string: 12 faults (textbook).
        let refs = [7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1];
        let s = simulate("lru", &DenseTrace::new(refs.to_vec()), 3).unwrap();
        assert_eq!(s.cold_misses + s.capacity_misses, 12);
        assert_eq!(s.hits, 8);
        // FIFO: 15 faults.
        let s = simulate("fifo", &DenseTrace::new(refs.to_vec()), 3).unwrap();
        assert_eq!(s.cold_misses + s.capacity_misses, 15);
        assert!((s.hit_ratio() - 5.0 / 14.0).abs() < 1e-12);
    }

    #[test]
    fn opt_is_an_upper_bound_for_every_policy() {
        let mut state = 99u64;
        let refs: Vec<u64> = (0..5000)
            .map(|i| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                if i % 3 == 0 {
                    (state >> 33) % 400
                } else {
                    (state >> 33) % 40
                }
            })
            .collect();
        let t = DenseTrace::new(refs);
        for frames in [8, 32, 100] {
            let opt = simulate_opt(&t, frames);
            for p in crate::page::policy::POLICY_NAMES {
                let s = simulate(p, &t, frames).unwrap();
                assert_eq!(s.cold_misses, opt.cold_misses);
                assert!(s.hits <= opt.hits, "{p} beat OPT at {frames} frames");
            }
        }
    }
}
