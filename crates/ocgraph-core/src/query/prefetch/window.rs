//! The recent neighbourhood of an edge-query stream, weighed by page.
//!
//! The window holds the last [`Window::capacity`] vertices seen: each visited vertex, then its
//! neighbours in list order, the way seed 000's alpha-recency stream fills its FIFO of recently
//! seen vertices (the advisor keeps its own window; it does not read the workload's
//! parameters). For every page of the list bounds (the vertex table) it counts the window's
//! vertices whose bounds start on it, and for every page of the lists the vertices whose list
//! starts on it (where the caller knows it). A next query drawn from the recent vertices reads
//! a page with probability proportional to that count, so the heaviest pages are the ones
//! worth keeping in memory: [`Window::heaviest`] ranks the vertex-table pages alone,
//! [`Window::ranked`] both kinds together.
//!
//! Memory: three hash maps of at most `capacity` entries each, the window's vertices, and
//! scratch space for the rankings.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::graph::{Direction, Vertex};

/// The last vertices seen and, for every vertex-table page, how many of them are on it.
pub struct Window {
    capacity: usize,
    /// The window's vertices, each with the page its list starts on (if known).
    entries: VecDeque<(Vertex, Option<u64>)>,
    /// How many times each vertex is in the window.
    members: FxHashMap<Vertex, u32>,
    /// How many of the window's vertices have their bounds on each page.
    weights: FxHashMap<u64, u32>,
    /// How many of the window's vertices have their list start on each page of the lists.
    lists: FxHashMap<u64, u32>,
    scratch: Vec<(u32, u64)>,
    ranking: Vec<(u32, WindowPage)>,
}

/// A page the window weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowPage {
    /// A page of the list bounds (the vertex table).
    Bounds(u64),
    /// A page of the lists.
    List(u64),
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
            lists: FxHashMap::default(),
            scratch: Vec::new(),
            ranking: Vec::new(),
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

    /// Adds `v`, whose list starts on page `list_page` of the lists (if known); the oldest
    /// vertex leaves when the window is full.
    pub fn push(&mut self, v: Vertex, list_page: Option<u64>) {
        if self.entries.len() == self.capacity {
            let (old, old_list) = self.entries.pop_front().expect("a full window is not empty");
            decrement(&mut self.members, old);
            decrement(&mut self.weights, page_of(old));
            if let Some(p) = old_list {
                decrement(&mut self.lists, p);
            }
        }
        *self.members.entry(v).or_insert(0) += 1;
        *self.weights.entry(page_of(v)).or_insert(0) += 1;
        if let Some(p) = list_page {
            *self.lists.entry(p).or_insert(0) += 1;
        }
        self.entries.push_back((v, list_page));
    }

    /// Distinct pages the window's vertices need: pages of the list bounds plus (known) first
    /// pages of lists.
    pub fn pages(&self) -> usize {
        self.weights.len() + self.lists.len()
    }

    /// The (at most) `k` heaviest pages of the list bounds, each holding at least `min_weight`
    /// of the window's vertices, heaviest first (ties in no particular order).
    pub fn heaviest(&mut self, k: usize, min_weight: u32) -> impl Iterator<Item = u64> + '_ {
        self.scratch.clear();
        self.scratch.extend(self.weights.iter().filter(|(_, &w)| w >= min_weight).map(|(&p, &w)| (w, p)));
        keep_heaviest(&mut self.scratch, k);
        self.scratch.iter().map(|&(_, p)| p)
    }

    /// The (at most) `k` heaviest pages of the window, of both kinds ranked together, heaviest
    /// first (ties in no particular order). The neighbourhood prefetcher asks every other
    /// visit, for a few tens of a window's thousand pages.
    pub fn ranked(&mut self, k: usize) -> impl Iterator<Item = WindowPage> + '_ {
        self.ranking.clear();
        self.ranking.extend(self.weights.iter().map(|(&p, &w)| (w, WindowPage::Bounds(p))));
        self.ranking.extend(self.lists.iter().map(|(&p, &w)| (w, WindowPage::List(p))));
        keep_heaviest(&mut self.ranking, k);
        self.ranking.iter().map(|&(_, p)| p)
    }
}

/// Cuts `items` (weight, item) to its (at most) `k` heaviest, heaviest first: selects them in
/// linear time and sorts only those.
fn keep_heaviest<T>(items: &mut Vec<(u32, T)>, k: usize) {
    let heavier_first = |r: &(u32, T)| std::cmp::Reverse(r.0);
    if items.len() > k && k > 0 {
        items.select_nth_unstable_by_key(k - 1, heavier_first);
    }
    items.truncate(k);
    items.sort_unstable_by_key(heavier_first);
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
            // A list page known for most pushes: 5 pages, by the vertex.
            let list = (!v.is_multiple_of(7)).then_some(v as u64 % 5);
            w.push(v, list);
            pushed.push(v);
            let last = &pushed[pushed.len().saturating_sub(capacity)..];
            for &u in &pushed {
                assert_eq!(w.contains(u), last.contains(&u));
            }
            let mut counts: FxHashMap<u64, u32> = FxHashMap::default();
            let mut lists: FxHashMap<u64, u32> = FxHashMap::default();
            for &u in last {
                *counts.entry((u / per_page) as u64).or_insert(0) += 1;
                if !u.is_multiple_of(7) {
                    *lists.entry(u as u64 % 5).or_insert(0) += 1;
                }
            }
            assert_eq!((&w.weights, &w.lists), (&counts, &lists));
            assert_eq!(w.pages(), counts.len() + lists.len());
            // Both kinds ranked together: every page once, weights in descending order.
            let weight = |p: &WindowPage| match *p {
                WindowPage::Bounds(p) => counts[&p],
                WindowPage::List(p) => lists[&p],
            };
            let ranked: Vec<WindowPage> = w.ranked(usize::MAX).collect();
            assert_eq!(ranked.len(), counts.len() + lists.len());
            assert!(ranked.windows(2).all(|p| weight(&p[0]) >= weight(&p[1])), "{ranked:?}");
            assert!(counts.keys().all(|&p| ranked.contains(&WindowPage::Bounds(p))));
            assert!(lists.keys().all(|&p| ranked.contains(&WindowPage::List(p))));
            // The heaviest 3 of them: heaviest first, and none left out heavier than the
            // lightest taken.
            let top3: Vec<WindowPage> = w.ranked(3).collect();
            assert_eq!(top3.len(), ranked.len().min(3));
            assert!(top3.windows(2).all(|p| weight(&p[0]) >= weight(&p[1])), "{top3:?}");
            let least = top3.last().map_or(0, weight);
            assert!(ranked.iter().all(|p| top3.contains(p) || weight(p) <= least), "{top3:?}");
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
