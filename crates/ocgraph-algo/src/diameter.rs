//! Diameter estimate by repeated BFS sweeps.
//!
//! Returns a lower bound on the diameter (the largest finite hop distance) and two vertices at
//! that distance. On a directed graph distances follow out-edges, so the bound is on the largest
//! finite directed distance; unreachable pairs are ignored.
//!
//! Algorithm: iterated double sweep (C. Magnien, M. Latapy, M. Habib, "Fast computation of
//! empirically tight bounds for the diameter of massive graphs", JEA 2009): BFS from the start
//! vertex, then BFS again from the farthest vertex found, `sweeps` times in all; the bound is
//! the largest eccentricity seen. Each sweep is a parallel [`crate::bfs()`].

use ocgraph_core::{Adjacency, Error, Result, Vertex};
use std::collections::VecDeque;

use crate::bfs::{bfs, BfsResult};

/// A diameter lower bound and the pair of vertices realising it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiameterEstimate {
    /// Hop distance from `endpoints.0` to `endpoints.1`: a lower bound on the diameter.
    pub lower_bound: u64,
    /// `(from, to)` with `dist(from, to) == lower_bound`.
    pub endpoints: (Vertex, Vertex),
}

/// Runs `sweeps` (at least 1) BFS sweeps, starting from `start`, each from the farthest vertex
/// of the previous one (ties: smallest id), stopping early when a sweep would start from a
/// vertex one already started from (the sweeps after it repeat). Runs on the current rayon pool.
///
/// Errors: `start` out of range, `sweeps == 0`, mismatched directions.
pub fn diameter_estimate<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    start: Vertex,
    sweeps: usize,
) -> Result<DiameterEstimate> {
    if sweeps == 0 {
        return Err(Error::invalid("diameter estimate needs at least one sweep"));
    }
    let mut best = DiameterEstimate { lower_bound: 0, endpoints: (start, start) };
    let mut from = start;
    let mut started = std::collections::HashSet::from([start]);
    for _ in 0..sweeps {
        let r = bfs(out, in_, from)?;
        let (far, ecc) = r.depth.iter().enumerate().fold((from, 0u32), |acc, (v, &d)| {
            if d != BfsResult::UNREACHED && d > acc.1 {
                (v as Vertex, d)
            } else {
                acc
            }
        });
        if ecc as u64 > best.lower_bound {
            best = DiameterEstimate { lower_bound: ecc as u64, endpoints: (from, far) };
        }
        // A sweep is determined by its start, so once a start comes back the sweeps repeat
        // (on an undirected graph they soon bounce between two ends): nothing new to find.
        if !started.insert(far) {
            break;
        }
        from = far;
    }
    Ok(best)
}

/// Checks an estimate with a serial queue BFS: the hop distance from `endpoints.0` to
/// `endpoints.1` must equal `lower_bound`.
pub fn verify_diameter_estimate<O: Adjacency>(out: &O, est: &DiameterEstimate) -> Result<(), String> {
    let n = out.num_vertices();
    let (a, b) = est.endpoints;
    if a as usize >= n || b as usize >= n {
        return Err(format!("endpoints ({a}, {b}) out of range"));
    }
    let mut dist = vec![u64::MAX; n];
    dist[a as usize] = 0;
    let mut queue = VecDeque::from([a]);
    while let Some(u) = queue.pop_front() {
        for &v in out.neighbors(u).iter() {
            if dist[v as usize] == u64::MAX {
                dist[v as usize] = dist[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    if dist[b as usize] != est.lower_bound {
        return Err(format!(
            "dist({a}, {b}) is {}, estimate says {}",
            dist[b as usize] as i64, est.lower_bound
        ));
    }
    Ok(())
}
