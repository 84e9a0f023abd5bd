//! Sparse matrix-vector product: `y[v] = Σ_{u→v} w(u,v) * x[u]` (`w = 1` when unweighted or
//! weights are not used), the transposed adjacency matrix times `x` (GridGraph's `spmv`).
//!
//! Algorithm: a pull over the in-lists in vertex ranges balanced by in-degree, on the caller's
//! rayon pool; the grid layout's version is [`crate::grid::spmv_grid`].

use ocgraph_core::{Adjacency, Error, Result, Vertex};

use crate::bfs::check_directions;
use crate::chunks::{degrees, edge_balanced_ranges, in_order, mark_cuts, pieces_for, split_by_ranges};

/// Bytes per vertex SpMV makes sure are available before it starts: `y` and the result's copy.
pub const SPMV_STATE_BYTES: u64 = 16;

/// `y = Aᵀx`: for each vertex the weighted sum of `x` over its in-neighbours. `in_` gives the
/// in-edges (with their weights on a weighted directed graph). Runs on the current rayon pool.
///
/// Errors: `x` of the wrong length, or directions that disagree.
pub fn spmv<O: Adjacency, I: Adjacency>(out: &O, in_: &I, x: &[f64]) -> Result<Vec<f64>> {
    check_directions(out, in_)?;
    let n = in_.num_vertices();
    if x.len() != n {
        return Err(Error::invalid(format!("x has {} values for {n} vertices", x.len())));
    }
    crate::state::check_state("spmv", n, SPMV_STATE_BYTES)?;
    let ranges = edge_balanced_ranges(&degrees(in_), pieces_for(n));
    mark_cuts(in_, &ranges);
    let mut y = vec![0.0; n];
    let pieces = split_by_ranges(&mut y, &ranges);
    let weighted = in_.is_weighted();
    in_order(
        pieces,
        || (),
        |_, (r, slot): (std::ops::Range<Vertex>, &mut [f64])| {
            let lo = r.start;
            if weighted {
                in_.for_each_weighted_in_range(r, |v, nbrs, ws| {
                    slot[(v - lo) as usize] =
                        nbrs.iter().zip(ws).fold(0.0, |s, (&u, &w)| s + x[u as usize] * w as f64);
                });
            } else {
                in_.for_each_in_range(r, |v, nbrs| {
                    slot[(v - lo) as usize] = nbrs.iter().fold(0.0, |s, &u| s + x[u as usize]);
                });
            }
        },
    );
    Ok(y)
}

/// Checks `y` serially against a push over the out-lists: `y[v]` must equal
/// `Σ_{u→v} w(u,v) * x[u]` within `1e-9` relative to the sum of the terms' magnitudes.
pub fn verify_spmv<O: Adjacency>(out: &O, x: &[f64], y: &[f64]) -> Result<(), String> {
    let n = out.num_vertices();
    if y.len() != n {
        return Err(format!("{} values for {n} vertices", y.len()));
    }
    let mut want = vec![0.0f64; n];
    let mut scale = vec![0.0f64; n];
    for u in 0..n as Vertex {
        let nbrs = out.neighbors(u);
        let ws = out.weights(u);
        for (i, &v) in nbrs.iter().enumerate() {
            let w = ws.as_ref().map_or(1.0, |w| w[i] as f64);
            want[v as usize] += w * x[u as usize];
            scale[v as usize] += (w * x[u as usize]).abs();
        }
    }
    match (0..n).find(|&v| (y[v] - want[v]).abs() > 1e-9 * scale[v].max(1.0)) {
        Some(v) => Err(format!("y[{v}] = {}, expected {}", y[v], want[v])),
        None => Ok(()),
    }
}
