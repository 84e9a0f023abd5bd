//! Sparse matrix-vector product over the grid: `y[v] = Σ_{u→v} w(u,v) * x[u]` (`w = 1` when
//! unweighted), the product of the transposed adjacency matrix with `x`, as GridGraph's
//! `spmv` computes it. Same result as [`crate::spmv`] on the CSR (up to the order of the sums).
//!
//! Algorithm: per column of cells, a worker accumulates the destination block's sums in an
//! array of `2^16` f64 (see [`super`]).

use ocgraph_core::{CellBuf, EdgeGrid, Error, Result};

use super::{padded_len, pull_column, BLOCK_SPAN};
use crate::chunks::in_order;

/// `y = Aᵀx` over the grid; `x` has one value per vertex. Runs on the current rayon pool.
///
/// Errors: `x` of the wrong length; a cell that does not decode.
pub fn spmv_grid<G: EdgeGrid>(grid: &G, x: &[f64]) -> Result<Vec<f64>> {
    let n = grid.num_vertices();
    if x.len() != n {
        return Err(Error::invalid(format!("x has {} values for {n} vertices", x.len())));
    }
    // The CSR kernel's state and the padded copy of `x` (8 bytes a vertex).
    crate::state::check_state("spmv", n, crate::spmv::SPMV_STATE_BYTES + 8)?;
    let mut xs = vec![0.0f64; padded_len(grid)];
    xs[..n].copy_from_slice(x);
    let mut y = vec![0.0f64; n];
    let columns: Vec<(u32, &mut [f64])> =
        (0..grid.cells_per_side()).zip(y.chunks_mut(1 << grid.block_bits())).collect();
    let results = in_order(
        columns,
        || (vec![0.0f64; BLOCK_SPAN], CellBuf::default(), Ok(())),
        |(acc, buf, status): &mut (Vec<f64>, CellBuf, Result<()>), (c, out): (u32, &mut [f64])| {
            let acc: &mut [f64; BLOCK_SPAN] = acc.as_mut_slice().try_into().expect("block span");
            if let Err(e) = pull_column(grid, c, &xs, |x| *x, true, acc, buf) {
                *status = Err(e);
                return;
            }
            out.copy_from_slice(&acc[..out.len()]);
        },
    );
    for (_, _, status) in results {
        status?;
    }
    Ok(y)
}
