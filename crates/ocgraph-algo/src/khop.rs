//! k-hop neighbourhoods and friends-of-friends.
//!
//! Definitions (hop distance follows out-edges from `v`; undirected graphs store both
//! directions so this is the usual undirected distance):
//! - [`k_hop`]: every vertex `w != v` with `1 <= dist(v, w) <= k`, sorted by id.
//! - [`friends_of_friends`]: every vertex at distance *exactly* 2: reachable in two hops, not
//!   `v` itself and not a direct out-neighbour of `v`; sorted by id.
//!
//! Algorithm: serial level-synchronous BFS limited to `k` levels, with each frontier sorted by id
//! before expansion so neighbour lists are read in file order. The visited set is a hash set
//! (FxHash) while the neighbourhood is small, so memory is proportional to it, not to the graph;
//! once a level would scan at least n/64 arcs, it becomes a bitmap of n bits (n/8 bytes, at
//! most 8 bytes per arc scanned), since a bit test is several times cheaper than a hash insert
//! (friends-of-friends through a hub of a Kronecker graph scans millions of arcs).

use std::collections::VecDeque;

use rustc_hash::FxHashSet;

use ocgraph_core::{Adjacency, Result, Vertex};

use crate::bfs::check_vertex;
use crate::bitmap::sort_through_bitmap;

/// The vertices seen so far: a hash set, or one bit per vertex once the search is large.
enum Seen {
    Hash(FxHashSet<Vertex>),
    /// The seen bits, and an all-zero bitmap of the same size to sort large levels through.
    Bits {
        seen: Vec<u64>,
        marks: Vec<u64>,
    },
}

impl Seen {
    /// Switches to a bitmap of `n` bits when `coming` more inserts would reach n/64 in all.
    fn reserve(&mut self, coming: u64, n: usize) {
        let Seen::Hash(set) = self else { return };
        if (set.len() as u64 + coming) < (n / 64) as u64 {
            set.reserve(coming.min(n as u64) as usize);
            return;
        }
        let mut seen = vec![0u64; n.div_ceil(64)];
        for &w in set.iter() {
            seen[w as usize / 64] |= 1 << (w % 64);
        }
        *self = Seen::Bits { marks: vec![0; seen.len()], seen };
    }

    /// Marks the neighbours of `frontier` seen; returns those not seen before, sorted by id.
    fn expand<A: Adjacency>(&mut self, g: &A, frontier: &[Vertex]) -> Vec<Vertex> {
        let mut next = Vec::new();
        let n = g.num_vertices();
        // An id past the graph is a corrupted lists file, which neither the set nor the
        // bitmap's last word would refuse: the CLI and Python report the file `check` finds.
        let listed = |u: Vertex| {
            let list = g.neighbors(u);
            assert!(
                list.iter().all(|&w| (w as usize) < n),
                "vertex {u} lists a neighbour past the graph's {n} vertices"
            );
            list
        };
        match self {
            Seen::Hash(set) => {
                for &u in frontier {
                    next.extend(listed(u).iter().filter(|&&w| set.insert(w)));
                }
                next.sort_unstable();
            }
            Seen::Bits { seen, marks } => {
                for &u in frontier {
                    for &w in listed(u).iter() {
                        let (word, bit) = (&mut seen[w as usize / 64], 1 << (w % 64));
                        if *word & bit == 0 {
                            *word |= bit;
                            next.push(w);
                        }
                    }
                }
                // A level of millions of vertices is sorted by a scan of the bits; a small one
                // (a long path's levels are one vertex each) by a sort, so a level costs what
                // it holds, not n/64 words.
                if next.len() >= marks.len() {
                    sort_through_bitmap(&mut next, marks);
                } else {
                    next.sort_unstable();
                }
            }
        }
        next
    }
}

/// Levels `1..=k` of a BFS from `v`, each sorted by id.
fn levels<A: Adjacency>(g: &A, v: Vertex, k: u32) -> Result<Vec<Vec<Vertex>>> {
    check_vertex(g, v, "start")?;
    let mut seen = Seen::Hash(FxHashSet::from_iter([v]));
    // Level 0 first, removed at the end.
    let mut out = vec![vec![v]];
    for _ in 0..k {
        let frontier = out.last().expect("level 0 is there");
        seen.reserve(g.estimated_degree_sum(frontier), g.num_vertices());
        let next = seen.expand(g, frontier);
        if next.is_empty() {
            break;
        }
        out.push(next);
    }
    out.remove(0);
    Ok(out)
}

/// Vertices within `k` hops of `v` (excluding `v`), sorted by id. `k = 0` gives an empty list.
///
/// Errors: `v` out of range.
pub fn k_hop<A: Adjacency>(g: &A, v: Vertex, k: u32) -> Result<Vec<Vertex>> {
    let mut all = levels(g, v, k)?.concat();
    all.sort_unstable();
    Ok(all)
}

/// Vertices exactly two hops from `v` (not `v`, not its direct out-neighbours), sorted by id.
///
/// Errors: `v` out of range.
pub fn friends_of_friends<A: Adjacency>(g: &A, v: Vertex) -> Result<Vec<Vertex>> {
    Ok(levels(g, v, 2)?.into_iter().nth(1).unwrap_or_default())
}

/// Full serial queue BFS from `v`: hop distance of every vertex (`u32::MAX` unreachable).
fn distances<A: Adjacency>(g: &A, v: Vertex) -> Vec<u32> {
    let mut dist = vec![u32::MAX; g.num_vertices()];
    dist[v as usize] = 0;
    let mut queue = VecDeque::from([v]);
    while let Some(u) = queue.pop_front() {
        for &w in g.neighbors(u).iter() {
            if dist[w as usize] == u32::MAX {
                dist[w as usize] = dist[u as usize] + 1;
                queue.push_back(w);
            }
        }
    }
    dist
}

/// Compares `result` with the vertices at distance `lo..=hi` found by a full serial BFS.
fn check_band<A: Adjacency>(g: &A, v: Vertex, lo: u32, hi: u32, result: &[Vertex]) -> Result<(), String> {
    if v as usize >= g.num_vertices() {
        return Err(format!("vertex {v} out of range"));
    }
    let expected: Vec<Vertex> = distances(g, v)
        .iter()
        .enumerate()
        .filter(|(_, &d)| d >= lo && d <= hi && d != u32::MAX)
        .map(|(w, _)| w as Vertex)
        .collect();
    if result != expected.as_slice() {
        return Err(format!(
            "{} vertices returned, {} expected at distance {lo}..={hi} from {v} (sorted, distinct)",
            result.len(),
            expected.len()
        ));
    }
    Ok(())
}

/// Checks a [`k_hop`] result against a full serial BFS.
pub fn verify_k_hop<A: Adjacency>(g: &A, v: Vertex, k: u32, result: &[Vertex]) -> Result<(), String> {
    if k == 0 {
        return if result.is_empty() { Ok(()) } else { Err("k = 0 must give no vertices".into()) };
    }
    check_band(g, v, 1, k, result)
}

/// Checks a [`friends_of_friends`] result against a full serial BFS.
pub fn verify_friends_of_friends<A: Adjacency>(g: &A, v: Vertex, result: &[Vertex]) -> Result<(), String> {
    check_band(g, v, 2, 2, result)
}
