//! Edge-centric kernels over the grid layout ([`ocgraph_core::EdgeGrid`]): PageRank, weakly
//! connected components and SpMV, each equal to its CSR counterpart.
//!
//! Every kernel pulls into one destination block (a column of cells) at a time: the cells of
//! a column are stored one after the other, so a worker reads one contiguous run of the file,
//! and the vertex state it touches is the column's block (written by this worker alone, no
//! locks) and one source block per cell, both of at most 2^16 entries: they stay in the
//! processor's cache, where the CSR's pull reads the sources' state all over memory. Columns
//! are handed to the threads in order ([`crate::chunks::in_order`]) so that the threads read
//! the file as one front.
//!
//! On a symmetric grid (an undirected graph) PageRank (power iteration) and SpMV read only the
//! cells on and above the diagonal, each arc serving both of its ends ([`symmetric_product`]);
//! WCC does the same with its links.
//!
//! Vertex state is kept in arrays padded to `P * 2^block_bits + 2^16` entries, so that any
//! 16-bit offset in any cell indexes inside them: a corrupted cell gives a wrong answer (which
//! `ocgraph check` catches by its checksum), never an out-of-bounds access.

mod pagerank;
mod spmv;
mod wcc;

pub use pagerank::pagerank_grid;
pub use spmv::spmv_grid;
pub use wcc::wcc_grid;

use ocgraph_core::{CellBuf, EdgeGrid, Result, Vertex};
use rayon::prelude::*;

use crate::chunks::in_order;
use crate::pagerank::Contrib;

/// Ids a 16-bit offset can name.
const BLOCK_SPAN: usize = 1 << 16;

/// Length of a padded vertex-state array (see the module documentation).
fn padded_len<G: EdgeGrid>(grid: &G) -> usize {
    ((grid.cells_per_side() as usize) << grid.block_bits()) + BLOCK_SPAN
}

/// The `2^16` padded entries of `state` starting at block `b`'s first vertex.
fn block_window<'a, T, G: EdgeGrid>(grid: &G, state: &'a [T], b: u32) -> &'a [T; BLOCK_SPAN] {
    let lo = (b as usize) << grid.block_bits();
    state[lo..lo + BLOCK_SPAN].try_into().expect("padded state array")
}

/// The first vertex of block `b`.
fn block_start<G: EdgeGrid>(grid: &G, b: u32) -> Vertex {
    grid.block(b).start
}

/// `y[v] = Σ_{u~v} w(u,v) * value[u]` on a symmetric grid, reading only the cells on and above
/// the diagonal (half the bytes): each arc of such a cell adds to both of its ends. The two
/// blocks a cell touches are again cache-sized, but a column's worker now also writes into the
/// row's block, so each worker sums into an array of its own over all vertices (8 bytes per
/// vertex and thread), and the arrays are added at the end. `value` is padded
/// ([`padded_len`]); `weighted`: use the cells' weights (else 1).
fn symmetric_product<G: EdgeGrid, C: Contrib>(grid: &G, value: &[C], weighted: bool) -> Result<Vec<f64>> {
    let n = grid.num_vertices();
    let (p, bits) = (grid.cells_per_side(), grid.block_bits());
    let len = padded_len(grid);
    // Two blocks written at once must not overlap, so the written windows are one block long
    // and the offsets masked to it (a no-op on a sound grid).
    let (block, mask) = (1usize << bits, (1usize << bits) - 1);
    let sums = in_order(
        (0..p).collect(),
        || (Vec::new(), CellBuf::default(), Ok(())),
        |(acc, buf, status): &mut (Vec<f64>, CellBuf, Result<()>), c: u32| {
            if acc.is_empty() {
                acc.resize(len, 0.0);
            }
            let col_lo = (c as usize) << bits;
            let col_val = block_window(grid, value, c);
            for r in 0..=c {
                let row_lo = (r as usize) << bits;
                let row_val = block_window(grid, value, r);
                let done = if r == c {
                    let a = &mut acc[col_lo..col_lo + block];
                    grid.for_each_piece(r, c, buf, |s, d, w| {
                        for i in 0..s.len() {
                            let (s, d) = (s[i] as usize & mask, d[i] as usize & mask);
                            let w = if weighted { w.map_or(1.0, |w| w[i] as f64) } else { 1.0 };
                            if s < d {
                                a[d] += row_val[s].to_f64() * w;
                                a[s] += col_val[d].to_f64() * w;
                            } else if s == d {
                                a[d] += row_val[s].to_f64() * w;
                            }
                        }
                    })
                } else {
                    // r < c: the row's block lies before the column's.
                    let (head, tail) = acc.split_at_mut(col_lo);
                    let (row_acc, col_acc) = (&mut head[row_lo..row_lo + block], &mut tail[..block]);
                    grid.for_each_piece(r, c, buf, |s, d, w| match (weighted, w) {
                        (true, Some(w)) => {
                            for i in 0..s.len() {
                                let (s, d, w) = (s[i] as usize & mask, d[i] as usize & mask, w[i] as f64);
                                col_acc[d] += row_val[s].to_f64() * w;
                                row_acc[s] += col_val[d].to_f64() * w;
                            }
                        }
                        _ => {
                            for (&s, &d) in s.iter().zip(d) {
                                let (s, d) = (s as usize & mask, d as usize & mask);
                                col_acc[d] += row_val[s].to_f64();
                                row_acc[s] += col_val[d].to_f64();
                            }
                        }
                    })
                };
                if let Err(e) = done {
                    *status = Err(e);
                    return;
                }
            }
        },
    );
    let mut parts = Vec::with_capacity(sums.len());
    for (acc, _, status) in sums {
        status?;
        if !acc.is_empty() {
            parts.push(acc);
        }
    }
    let mut y = vec![0.0; n];
    y.par_chunks_mut(1 << 16).enumerate().for_each(|(k, out)| {
        let lo = k << 16;
        for part in &parts {
            for (o, a) in out.iter_mut().zip(&part[lo..]) {
                *o += a;
            }
        }
    });
    Ok(y)
}
