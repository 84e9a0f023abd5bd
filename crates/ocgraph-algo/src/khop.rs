//! k-hop neighbourhoods and friends-of-friends.
//!
//! Definitions (hop distance follows out-edges from `v`; undirected graphs store both
//! directions so this is the usual undirected distance):
//! - [`k_hop`]: every vertex `w != v` with `1 <= dist(v, w) <= k`, sorted by id.
//! - [`friends_of_friends`]: every vertex at distance *exactly* 2: reachable in two hops, not
//!   `v` itself and not a direct out-neighbour of `v`; sorted by id.
//!
//! Algorithm: serial level-synchronous BFS limited to `k` levels, with each frontier sorted by id
//! before expansion so neighbour lists are read in file order; the visited set is a hash set, so
//! memory is proportional to the neighbourhood, not to the graph.

use std::collections::{HashSet, VecDeque};

use ocgraph_core::{Adjacency, Result, Vertex};

use crate::bfs::check_vertex;

/// Levels `1..=k` of a BFS from `v`, each sorted by id.
fn levels<A: Adjacency>(g: &A, v: Vertex, k: u32) -> Result<Vec<Vec<Vertex>>> {
    check_vertex(g, v, "start")?;
    let mut seen: HashSet<Vertex> = HashSet::from([v]);
    let mut frontier = vec![v];
    let mut out = Vec::new();
    for _ in 0..k {
        let mut next = Vec::new();
        for &u in &frontier {
            for &w in g.neighbors(u).iter() {
                if seen.insert(w) {
                    next.push(w);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        next.sort_unstable();
        out.push(next.clone());
        frontier = next;
    }
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
