//! Weakly connected components over the grid: one label per vertex, the smallest vertex id of
//! its component, as [`crate::wcc`] returns.
//!
//! Algorithm: one pass of union-find over the grid's arcs (a concurrent forest as in
//! [`crate::wcc`]: a root is only linked below a smaller root, by compare-and-swap; finds halve
//! the paths they walk, so the trees stay shallow without compression passes), then path
//! compression. GridGraph propagates labels instead, which reads every active cell once per
//! round and needs as many rounds as the graph's diameter; linking reads each cell once. On a
//! symmetric grid ([`EdgeGrid::is_symmetric`]) only the cells on and above the diagonal are
//! read, and in a diagonal cell only the arcs `u <= v`.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use ocgraph_core::{CellBuf, EdgeGrid, Result, Vertex};
use rayon::prelude::*;

use super::padded_len;
use crate::chunks::in_order;
use crate::wcc::compress;

/// The root of `x`'s tree, halving the path on the way: each vertex passed is pointed at its
/// grandparent (an ancestor, so every tree keeps its root and its smaller-parent order).
fn find(mut x: Vertex, comp: &[AtomicU32]) -> Vertex {
    loop {
        let p = comp[x as usize].load(Relaxed);
        if p == x {
            return x;
        }
        let pp = comp[p as usize].load(Relaxed);
        if pp != p {
            let _ = comp[x as usize].compare_exchange(p, pp, Relaxed, Relaxed);
        }
        x = pp;
    }
}

/// Joins the trees of `u` and `v`: the larger root goes under the smaller one, by
/// compare-and-swap (retried from the new roots when another thread moved one first).
fn link(u: Vertex, v: Vertex, comp: &[AtomicU32]) {
    loop {
        let (ru, rv) = (find(u, comp), find(v, comp));
        if ru == rv {
            return;
        }
        let (high, low) = if ru > rv { (ru, rv) } else { (rv, ru) };
        if comp[high as usize].compare_exchange(high, low, Relaxed, Relaxed).is_ok() {
            return;
        }
    }
}

/// Component labels of the graph whose arcs `grid` holds (on a symmetric grid, half of the
/// cells are read). Runs on the current rayon pool.
///
/// Errors: a cell that does not decode.
pub fn wcc_grid<G: EdgeGrid>(grid: &G) -> Result<Vec<Vertex>> {
    let n = grid.num_vertices();
    crate::state::check_state("wcc", n, crate::wcc::WCC_STATE_BYTES)?;
    let symmetric = grid.is_symmetric();
    let comp: Vec<AtomicU32> = (0..padded_len(grid) as u32).into_par_iter().map(AtomicU32::new).collect();
    let p = grid.cells_per_side();
    let results = in_order(
        (0..p).collect(),
        || (CellBuf::default(), Ok(())),
        |(buf, status): &mut (CellBuf, Result<()>), c: u32| {
            let col = grid.block(c).start;
            let rows = if symmetric { 0..c + 1 } else { 0..p };
            for r in rows {
                let row = grid.block(r).start;
                let diagonal = symmetric && r == c;
                let done = grid.for_each_piece(r, c, buf, |s, d, _| {
                    for (&s, &d) in s.iter().zip(d) {
                        if !(diagonal && s > d) {
                            link(row + s as Vertex, col + d as Vertex, &comp);
                        }
                    }
                });
                if let Err(e) = done {
                    *status = Err(e);
                    return;
                }
            }
        },
    );
    for (_, status) in results {
        status?;
    }
    compress(&comp);
    Ok(comp[..n].par_iter().map(|c| c.load(Relaxed)).collect())
}
