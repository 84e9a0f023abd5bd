//! The omniscient prefetcher: it knows the query stream, and advises what query `i` will read
//! while earlier queries run. It bounds what a prefetcher driven by visited vertices can gain.
//!
//! What it advises per query:
//! - edge query `v`: `v`'s offsets and neighbour list (exactly what the query reads);
//! - friends-of-friends `v`: `v`'s list and the lists of all its neighbours (exactly the reads);
//! - shortest path `(s, t)`: the lists of `s`, `t` and of their neighbours (the first level of
//!   both searches; deeper levels depend on the search).
//!
//! How far ahead ([`Lookahead`]): at most the lookahead ([`default_lookahead`] by kind), and no
//! further than the advised queries not yet started fit in [`MEMORY_SHARE`] of the memory (by
//! the pages each reads), but always the next query. Without that bound, on the small real
//! graphs (pools of 46-200 frames) the loads for 64 queries ahead evicted pages before their
//! queries came, and the "bound" was slower than no prefetching (`bench/queries/run.py`).

use std::collections::VecDeque;

use super::Sink;
use crate::graph::{Adjacency, Vertex};
use crate::query::workload::{QueryKind, Workload};

/// Queries advised ahead of the running one, by kind.
pub fn default_lookahead(kind: QueryKind) -> usize {
    match kind {
        QueryKind::Edge => 64,
        QueryKind::FriendsOfFriends => 4,
        QueryKind::ShortestPath => 2,
    }
}

/// Share of the memory that advice for queries not yet started may fill.
pub const MEMORY_SHARE: u64 = 4;

/// Pages of 4 KiB that query `q` of `kind` reads, as [`advise`] advises them: one offsets page
/// per vertex and the pages of each list (for friends-of-friends, also the neighbours' lists;
/// a shortest path counts only its two ends' lists, though their neighbours' are advised too).
fn pages(dir: crate::graph::Direction<'_>, kind: QueryKind, q: &[Vertex]) -> u64 {
    let list = |v: Vertex| {
        let r = dir.list_bytes(v);
        1 + if r.is_empty() { 0 } else { (r.end - 1) / 4096 - r.start / 4096 + 1 }
    };
    let mut n = 0;
    for &v in q {
        n += list(v);
        if kind == QueryKind::FriendsOfFriends {
            n += dir.neighbors(v).iter().map(|&w| list(w)).sum::<u64>();
        }
    }
    n
}

/// How far the omniscient prefetcher has advised, and the pages of the advised queries that
/// have not started yet.
pub struct Lookahead {
    /// Most queries advised ahead of the running one.
    max: usize,
    /// Pages the advised queries not yet started may fill.
    budget: u64,
    /// Queries `[0, advised_to)` have been advised.
    advised_to: usize,
    /// The advised queries not yet started, with their pages.
    ahead: VecDeque<(usize, u64)>,
    /// Sum of the pages in `ahead`.
    pages_ahead: u64,
}

impl Lookahead {
    /// At most `max` queries ahead, within [`MEMORY_SHARE`] of `memory_pages` (`None`:
    /// unbounded).
    pub fn new(max: usize, memory_pages: Option<u64>) -> Lookahead {
        Lookahead {
            max,
            budget: memory_pages.map_or(u64::MAX, |m| (m / MEMORY_SHARE).max(1)),
            advised_to: 0,
            ahead: VecDeque::new(),
            pages_ahead: 0,
        }
    }

    /// `started` queries of `workload` have begun: advises the next ones not advised yet, as
    /// far as the bounds allow (always the next query). Returns how many it advised. (Each
    /// query's list bounds are read twice, to count its pages and to advise them.)
    pub fn advise(&mut self, sink: &mut Sink<'_>, workload: &Workload, started: usize) -> u64 {
        while let Some(&(i, p)) = self.ahead.front() {
            if i >= started {
                break;
            }
            self.pages_ahead -= p;
            self.ahead.pop_front();
        }
        let from = self.advised_to.max(started);
        // `max` may be `usize::MAX` ("as far as the budget allows"): saturate, not wrap.
        let end = started.saturating_add(self.max).min(workload.len());
        let mut to = from;
        while to < end {
            let p = pages(sink.dir(), workload.kind, workload.query(to));
            if !self.ahead.is_empty() && self.pages_ahead + p > self.budget {
                break;
            }
            self.ahead.push_back((to, p));
            self.pages_ahead += p;
            to += 1;
        }
        if from < to {
            advise(sink, workload.kind, (from..to).map(|i| workload.query(i)));
            self.advised_to = to;
        }
        (to - from) as u64
    }
}

/// Advises the reads of `queries` (each one query of `kind`): first the offsets of every
/// query vertex (so those reads overlap), then each query's lists.
fn advise<'q>(sink: &mut Sink<'_>, kind: QueryKind, queries: impl Iterator<Item = &'q [Vertex]> + Clone) {
    let dir = sink.dir();
    for q in queries.clone() {
        for &v in q {
            dir.will_need_offsets(v);
        }
    }
    for q in queries {
        for &v in q {
            let r = dir.list_bytes(v);
            sink.bytes(r.start, r.end);
            if kind == QueryKind::Edge {
                continue;
            }
            let nbrs = dir.neighbors(v).to_vec();
            for w in nbrs {
                let r = dir.list_bytes(w);
                sink.bytes(r.start, r.end);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
    use crate::{Graph, OpenOptions};

    #[test]
    fn pages_count_offsets_and_list_pages() {
        // 0 -> 2..1502 (1500 arcs: bytes 0..6000 of the lists, pages 0 and 1); 1 has no arcs;
        // 2 -> 0, 1 (bytes 6000..6008, page 1).
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g");
        let mut b = GraphBuilder::new(&out, BuildOptions::default()).unwrap();
        let (mut src, mut dst): (Vec<u32>, Vec<u32>) = (2..1502).map(|w| (0, w)).unzip();
        src.extend([2, 2]);
        dst.extend([0, 1]);
        b.push(&src, &dst, None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let g = Graph::open(&out, &OpenOptions::default()).unwrap();
        let d = g.out();
        assert_eq!(pages(d, QueryKind::Edge, &[0]), 1 + 2);
        assert_eq!(pages(d, QueryKind::Edge, &[1]), 1);
        assert_eq!(pages(d, QueryKind::ShortestPath, &[0, 2]), (1 + 2) + (1 + 1));
        // Friends of friends of 2: its list, then 0's and 1's.
        assert_eq!(pages(d, QueryKind::FriendsOfFriends, &[2]), (1 + 1) + (1 + 2) + 1);
    }

    #[test]
    fn an_unbounded_lookahead_advises_the_rest_of_the_workload() {
        // `usize::MAX` queries ahead once wrapped to "one query before the current one", and
        // nothing was advised after the first call (a panic in debug builds).
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g");
        let mut b = GraphBuilder::new(&out, BuildOptions::default()).unwrap();
        b.push(&[0, 1, 2, 3], &[1, 2, 3, 0], None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let g = Graph::open(&out, &OpenOptions::default()).unwrap();
        let w = Workload::shortest_paths(4, 10, 1).unwrap();
        let mut ahead = Lookahead::new(usize::MAX, None);
        let mut sink = Sink::new(g.out());
        assert_eq!(ahead.advise(&mut sink, &w, 0), 10);
        assert_eq!(ahead.advise(&mut sink, &w, 3), 0);
        let mut ahead = Lookahead::new(usize::MAX, None);
        assert_eq!(ahead.advise(&mut sink, &w, 4), 6);
    }
}
