//! Unweighted shortest path between two vertices.
//!
//! Returns one shortest (fewest-hops) directed path from `s` to `t` as its vertex list, both
//! ends included (`[s]` when `s == t`), or `None` when `t` is unreachable.
//!
//! Algorithm: bidirectional (two-ended) BFS (I. Pohl, "Bi-directional search", Machine
//! Intelligence 6, 1971): a forward search over out-edges from `s` and a backward search over
//! in-edges from `t`, each level-synchronous; every step expands the frontier with fewer arcs to
//! scan (its degree sum: a frontier of one hub can cost more than thousands of other vertices;
//! frontiers are sorted by id, so lists are read in file order) and stops at the first vertex
//! seen by both searches.
//! When the frontiers have depths `a` and `b` and have not met, every path is longer than
//! `a + b`, and any meeting found while expanding one level gives a path of length at most
//! `a + b + 1`, so the first meeting gives a shortest path. Visited sets are hash maps, so
//! memory is proportional to the explored region.

use std::collections::{HashMap, VecDeque};

use ocgraph_core::{Adjacency, Result, Vertex};

use crate::bfs::{check_directions, check_vertex};

/// Expands the sorted `frontier` one level over `g`, recording predecessors in `mine`; returns
/// the next frontier, sorted, or `Err(meeting vertex)` when a vertex already in `other` is
/// reached.
fn expand<A: Adjacency>(
    g: &A,
    frontier: &[Vertex],
    mine: &mut HashMap<Vertex, Vertex>,
    other: &HashMap<Vertex, Vertex>,
) -> std::result::Result<Vec<Vertex>, Vertex> {
    let mut next = Vec::new();
    for &u in frontier.iter() {
        for &w in g.neighbors(u).iter() {
            if let std::collections::hash_map::Entry::Vacant(e) = mine.entry(w) {
                e.insert(u);
                if other.contains_key(&w) {
                    return Err(w);
                }
                next.push(w);
            }
        }
    }
    next.sort_unstable();
    Ok(next)
}

/// A shortest path from `s` to `t` following out-edges of `out` (`in_` gives the in-edges; pass
/// the same adjacency twice for an undirected graph), or `None` if there is none.
///
/// Errors: `s` or `t` out of range, mismatched directions.
pub fn shortest_path<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    s: Vertex,
    t: Vertex,
) -> Result<Option<Vec<Vertex>>> {
    check_vertex(out, s, "source")?;
    check_vertex(out, t, "target")?;
    check_directions(out, in_)?;
    if s == t {
        return Ok(Some(vec![s]));
    }
    let mut fwd: HashMap<Vertex, Vertex> = HashMap::from([(s, s)]);
    let mut bwd: HashMap<Vertex, Vertex> = HashMap::from([(t, t)]);
    let (mut ff, mut bf) = (vec![s], vec![t]);
    // The arcs each frontier would scan.
    let (mut fa, mut ba) = (out.degree(s) as u64, in_.degree(t) as u64);
    let meet = loop {
        if ff.is_empty() || bf.is_empty() {
            return Ok(None);
        }
        let step = if fa <= ba {
            expand(out, &ff, &mut fwd, &bwd).map(|next| {
                fa = out.estimated_degree_sum(&next);
                ff = next;
            })
        } else {
            expand(in_, &bf, &mut bwd, &fwd).map(|next| {
                ba = in_.estimated_degree_sum(&next);
                bf = next;
            })
        };
        if let Err(m) = step {
            break m;
        }
    };
    let mut path = vec![meet];
    let mut x = meet;
    while x != s {
        x = fwd[&x];
        path.push(x);
    }
    path.reverse();
    x = meet;
    while x != t {
        x = bwd[&x];
        path.push(x);
    }
    Ok(Some(path))
}

/// Checks a path with a serial queue BFS from `s`: `None` exactly when `t` is unreachable;
/// otherwise the path starts at `s`, ends at `t`, follows arcs of `out`, and has
/// `dist(s, t) + 1` vertices.
pub fn verify_shortest_path<O: Adjacency>(
    out: &O,
    s: Vertex,
    t: Vertex,
    path: Option<&[Vertex]>,
) -> Result<(), String> {
    let n = out.num_vertices();
    if s as usize >= n || t as usize >= n {
        return Err(format!("endpoints ({s}, {t}) out of range"));
    }
    let mut dist = vec![u64::MAX; n];
    dist[s as usize] = 0;
    let mut queue = VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        for &v in out.neighbors(u).iter() {
            if dist[v as usize] == u64::MAX {
                dist[v as usize] = dist[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    let d = dist[t as usize];
    match path {
        None if d == u64::MAX => Ok(()),
        None => Err(format!("no path returned, but {t} is {d} hops from {s}")),
        Some(_) if d == u64::MAX => Err(format!("path returned, but {t} is unreachable from {s}")),
        Some(p) => {
            if p.first() != Some(&s) || p.last() != Some(&t) {
                return Err(format!("path {p:?} does not run from {s} to {t}"));
            }
            if p.len() as u64 != d + 1 {
                return Err(format!("path has {} hops, shortest is {d}", p.len() - 1));
            }
            for w in p.windows(2) {
                if w[0] as usize >= n || out.neighbors(w[0]).binary_search(&w[1]).is_err() {
                    return Err(format!("path step {} -> {} is not an arc", w[0], w[1]));
                }
            }
            Ok(())
        }
    }
}
