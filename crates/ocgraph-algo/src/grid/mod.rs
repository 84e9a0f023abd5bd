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
//! On a symmetric grid (an undirected graph) WCC reads only the cells on and above the diagonal.
//! PageRank and SpMV read every cell: reading half and adding each arc to both ends was tried
//! and measured slower on kron22 (PageRank-20 5.2 s against 2.4 s in memory, 9.0 s against 6.1 s
//! with the pool at 10%, `bench/layouts/run.py` configurations): each cell then also reads and
//! writes back its row block's sums, 2.5 times the memory traffic of a pull.
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

use ocgraph_core::{CellBuf, EdgeGrid, Result};

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

/// Sums the arcs of column `c` into `acc` (zeroed first): `acc[v] += get(values[u]) * w(u, v)`
/// over the column's cells, `w = 1` unless `weighted`; `values` is padded ([`padded_len`]).
fn pull_column<G: EdgeGrid, T>(
    grid: &G,
    c: u32,
    values: &[T],
    get: impl Fn(&T) -> f64,
    weighted: bool,
    acc: &mut [f64; BLOCK_SPAN],
    buf: &mut CellBuf,
) -> Result<()> {
    acc.fill(0.0);
    for r in 0..grid.cells_per_side() {
        let src = block_window(grid, values, r);
        grid.for_each_piece(r, c, buf, |s, d, w| match (weighted, w) {
            (true, Some(w)) => {
                for i in 0..s.len() {
                    acc[d[i] as usize] += get(&src[s[i] as usize]) * w[i] as f64;
                }
            }
            _ => {
                for (&s, &d) in s.iter().zip(d) {
                    acc[d as usize] += get(&src[s as usize]);
                }
            }
        })?;
    }
    Ok(())
}
