//! PageRank over the grid, with the definition, stopping rules and methods of
//! [`crate::pagerank`] (networkx's power iteration, or GAPBS's Gauss-Seidel sweep), so that
//! both layouts return the same scores (Jacobi; Gauss-Seidel up to its timing-dependent
//! iterates) and are checked by the same [`crate::verify_pagerank`].
//!
//! Algorithm: per iteration, each column of cells is pulled into a `2^16`-entry f64 array
//! ([`super`]): `acc[v] += contrib[u] * w(u,v)` for the column's arcs, then the block's new
//! scores are `acc + base * p`. Jacobi computes every contribution `d * x[u] / W(u)` before the
//! pass; Gauss-Seidel writes a block's new contributions as soon as its column is done, so the
//! columns after it (taken in order, forwards and backwards in turn) already use them. The out-weights `W(u)` come from one
//! scan of the CSR's offsets (or weights), as the CSR kernel finds them. Contributions are
//! stored as `f32` from [`crate::pagerank::F32_CONTRIB_MIN_VERTICES`] vertices on, unless an
//! out-weight is extreme, as there.

use parking_lot::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64};

use ocgraph_core::{Adjacency, CellBuf, EdgeGrid, Error, Result};
use rayon::prelude::*;

use super::{padded_len, pull_column, BLOCK_SPAN};
use crate::chunks::{in_order, ordered_sum};
use crate::pagerank::{
    f32_contributions_fit, normalised, out_weights, teleport_vector, Method, PageRankOptions, PageRankResult,
    SharedContrib,
};

/// PageRank of the graph whose arcs `grid` holds; `out` is the same graph's out-CSR, read once
/// for the out-weights. Runs on the current rayon pool.
///
/// Errors: as [`crate::pagerank`], a cell that does not decode, and `out` not of the grid's
/// graph ([`EdgeGrid::holds_lists_of`]).
pub fn pagerank_grid<G: EdgeGrid, O: Adjacency>(
    grid: &G,
    out: &O,
    opts: &PageRankOptions,
) -> Result<PageRankResult> {
    let n = grid.num_vertices();
    if out.num_vertices() != n {
        return Err(Error::invalid(format!(
            "grid and CSR disagree on the vertex count ({n} vs {})",
            out.num_vertices()
        )));
    }
    if !grid.holds_lists_of(out) {
        return Err(Error::invalid(
            "the grid is not of these lists (of another graph, or of the base of a snapshot with \
             updates, which it does not hold)",
        ));
    }
    if n == 0 {
        teleport_vector(0, &PageRankOptions { personalization: None, ..opts.clone() })?;
        return Ok(PageRankResult { scores: Vec::new(), iterations: 0, converged: true });
    }
    crate::state::check_state("pagerank", n, crate::pagerank::PAGERANK_STATE_BYTES)?;
    let weighted = opts.use_weights && out.is_weighted() && grid.is_weighted();
    let w_out = out_weights(out, weighted)?;
    if f32_contributions_fit(n, &w_out, opts.tol) {
        iterate::<G, AtomicU32>(grid, opts, weighted, w_out)
    } else {
        iterate::<G, AtomicU64>(grid, opts, weighted, w_out)
    }
}

/// The iterations, with the out-weights `w_out` (weighted or degrees) known.
fn iterate<G: EdgeGrid, C: SharedContrib>(
    grid: &G,
    opts: &PageRankOptions,
    weighted: bool,
    w_out: Vec<f64>,
) -> Result<PageRankResult> {
    let n = grid.num_vertices();
    let p = teleport_vector(n, opts)?;
    let d = opts.damping;
    let gauss_seidel = opts.method == Method::GaussSeidel;
    let contrib_of = |xu: f64, wu: f64| if wu > 0.0 { d * xu / wu } else { 0.0 };
    let mut x = if gauss_seidel { p.clone() } else { vec![1.0 / n as f64; n] };
    let mut next = vec![0.0; n];
    let contrib: Vec<C> = (0..padded_len(grid)).into_par_iter().map(|_| C::new(0.0)).collect();
    let cells = grid.cells_per_side();
    let block = 1usize << grid.block_bits();
    // Each thread's column sums and cell buffer, kept from pass to pass: allocated anew each
    // pass, a decoded LZ4 cell's buffer grew the peak from pass to pass as the allocator kept
    // the freed blocks (peak RSS of `ocgraph run pagerank --layout grid --max-iter N` over an
    // LZ4 grid with a 1 MiB pool, `/usr/bin/time`, grew with N; it no longer does).
    let scratch: Vec<Mutex<(Vec<f64>, CellBuf)>> = (0..rayon::current_num_threads())
        .map(|_| Mutex::new((vec![0.0f64; BLOCK_SPAN], CellBuf::default())))
        .collect();
    for iter in 1..=opts.max_iter {
        let mut base = 1.0 - d;
        if !gauss_seidel || iter == 1 {
            contrib[..n].par_iter().zip(&x).zip(&w_out).for_each(|((c, &xu), &wu)| c.set(contrib_of(xu, wu)));
        }
        if !gauss_seidel {
            let dangling = ordered_sum(n, |u| if w_out[u] > 0.0 { 0.0 } else { x[u] });
            base += d * dangling;
        }
        // Gauss-Seidel updates `x` in place; Jacobi writes `next`.
        let target: &mut [f64] = if gauss_seidel { &mut x } else { &mut next };
        // Every other pass takes the columns from the last: the cells the previous pass read
        // last are the ones a buffer pool smaller than the grid still holds, so they are read
        // first, while resident (`bench/layouts/run.py`, pool at 10%: fewer bytes read).
        let mut columns: Vec<(u32, &mut [f64])> = (0..cells).zip(target.chunks_mut(block)).collect();
        if iter % 2 == 0 {
            columns.reverse();
        }
        let (p, w_out, contrib) = (&p, &w_out, &contrib);
        let results = in_order(
            columns,
            || (0.0f64, 0.0f64, Ok(())),
            |(err, sum, status): &mut (f64, f64, Result<()>), (c, slot): (u32, &mut [f64])| {
                let mut mine = scratch[rayon::current_thread_index().unwrap_or(0) % scratch.len()].lock();
                let (acc, buf) = &mut *mine;
                let acc: &mut [f64; BLOCK_SPAN] = acc.as_mut_slice().try_into().expect("block span");
                if let Err(e) = pull_column(grid, c, contrib, C::get, weighted, acc, buf) {
                    *status = Err(e);
                    return;
                }
                let lo = c as usize * block;
                for (i, score) in slot.iter_mut().enumerate() {
                    let v = lo + i;
                    let val = acc[i] + base * p[v];
                    if gauss_seidel {
                        *err += (val - *score).abs();
                        contrib[v].set(contrib_of(val, w_out[v]));
                    }
                    *sum += val;
                    *score = val;
                }
            },
        );
        let (mut err, mut sum) = (0.0, 0.0);
        for (e, s, status) in results {
            status?;
            err += e;
            sum += s;
        }
        if gauss_seidel {
            if err < n as f64 * opts.tol * sum {
                return Ok(normalised(x, iter, true));
            }
        } else {
            err = ordered_sum(n, |v| (next[v] - x[v]).abs());
            std::mem::swap(&mut x, &mut next);
            if err < n as f64 * opts.tol {
                return Ok(normalised(x, iter, true));
            }
        }
    }
    Ok(normalised(x, opts.max_iter, false))
}
