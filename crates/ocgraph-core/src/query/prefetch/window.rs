//! The recent neighbourhood of an edge-query stream, weighed by vertex-table page.
//!
//! The window holds the last [`Window::capacity`] vertices seen: each visited vertex, then its
//! neighbours in list order, the way seed 000's alpha-recency stream fills its FIFO of recently
//! seen vertices (the advisor keeps its own window; it does not read the workload's
//! parameters). For every page of the list bounds (the vertex table) it counts the window's
//! vertices whose bounds start on it. A next query drawn from the recent vertices reads a page
//! with probability proportional to that count, so the heaviest pages are the ones worth
//! keeping in memory ([`Window::heaviest`]). (List pages are not weighed: with them, in a
//! hand-run on cnr-2000 at 10%, they crowded vertex-table pages out of the kept set and the
//! peeks at each neighbour's bounds cost the queries time; see `bench/queries/RESULTS.md`.)
//!
//! Memory: two hash maps of at most `capacity` entries each, and the window's vertices.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::graph::{Direction, Vertex};

/// The last vertices seen and, for every vertex-table page, how many of them are on it.
pub struct Window {
    capacity: usize,
    entries: VecDeque<Vertex>,
    /// How many times each vertex is in the window.
    members: FxHashMap<Vertex, u32>,
    /// How many of the window's vertices have their bounds on each page.
    weights: FxHashMap<u64, u32>,
    scratch: Vec<(u32, u64)>,
}

impl Window {
    /// An empty window of the last `capacity` vertices seen (at least 1).
    pub fn new(capacity: usize) -> Window {
        let capacity = capacity.max(1);
        Window {
            capacity,
            entries: VecDeque::with_capacity(capacity),
            members: FxHashMap::default(),
            weights: FxHashMap::default(),
            scratch: Vec::new(),
        }
    }

    /// How many vertices the window holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether `v` is among the vertices in the window.
    pub fn contains(&self, v: Vertex) -> bool {
        self.members.contains_key(&v)
    }

    /// Adds `v`; the oldest vertex leaves when the window is full.
    pub fn push(&mut self, v: Vertex) {
        if self.entries.len() == self.capacity {
            let old = self.entries.pop_front().expect("a full window is not empty");
            decrement(&mut self.members, old);
            decrement(&mut self.weights, page_of(old));
        }
        *self.members.entry(v).or_insert(0) += 1;
        *self.weights.entry(page_of(v)).or_insert(0) += 1;
        self.entries.push_back(v);
    }

    /// The (at most) `k` heaviest pages of the list bounds, each holding at least `min_weight`
    /// of the window's vertices, heaviest first (ties in no particular order).
    pub fn heaviest(&mut self, k: usize, min_weight: u32) -> impl Iterator<Item = u64> + '_ {
        self.scratch.clear();
        self.scratch.extend(self.weights.iter().filter(|(_, &w)| w >= min_weight).map(|(&p, &w)| (w, p)));
        let by_weight = |a: &(u32, u64), b: &(u32, u64)| b.0.cmp(&a.0);
        if self.scratch.len() > k && k > 0 {
            self.scratch.select_nth_unstable_by(k - 1, by_weight);
        }
        self.scratch.truncate(k);
        self.scratch.sort_unstable_by(by_weight);
        self.scratch.iter().map(|&(_, p)| p)
    }
}

/// The page of the list bounds on which `v`'s bounds start.
fn page_of(v: Vertex) -> u64 {
    v as u64 / Direction::BOUNDS_PER_PAGE
}

/// Takes one from `key`'s count, removing it at zero.
fn decrement<K: std::hash::Hash + Eq>(counts: &mut FxHashMap<K, u32>, key: K) {
    if let Some(c) = counts.get_mut(&key) {
        *c -= 1;
        if *c == 0 {
            counts.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window against a brute-force recount over the last `capacity` pushes.
    #[test]
    fn weights_and_members_match_a_recount_of_the_last_pushes() {
        let capacity = 7;
        let per_page = Direction::BOUNDS_PER_PAGE as Vertex;
        let mut w = Window::new(capacity);
        let mut pushed: Vec<Vertex> = Vec::new();
        let mut x = 12345u64;
        for _ in 0..300 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // 8 vertices on each of 3 bounds pages.
            let v = (x >> 33) as Vertex % 3 * per_page + (x >> 40) as Vertex % 8;
            w.push(v);
            pushed.push(v);
            let last = &pushed[pushed.len().saturating_sub(capacity)..];
            for &u in &pushed {
                assert_eq!(w.contains(u), last.contains(&u));
            }
            let mut counts: FxHashMap<u64, u32> = FxHashMap::default();
            for &u in last {
                *counts.entry((u / per_page) as u64).or_insert(0) += 1;
            }
            assert_eq!(w.weights, counts);
            // The heaviest 2 (weight >= 2): weights in descending order, and no page left out
            // is heavier than the lightest one taken (or than 1, when fewer were taken).
            let top: Vec<u64> = w.heaviest(2, 2).collect();
            let weights: Vec<u32> = top.iter().map(|p| counts[p]).collect();
            assert!(weights.windows(2).all(|p| p[0] >= p[1]) && weights.iter().all(|&c| c >= 2));
            let floor = if top.len() < 2 { 1 } else { weights[1] };
            assert!(counts.iter().all(|(p, &c)| top.contains(p) || c <= floor), "{counts:?} {top:?}");
        }
    }
}
