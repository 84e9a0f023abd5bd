//! Deterministic graph generators: Kronecker (Graph500 R-MAT), Erdős–Rényi and a road-like grid.
//!
//! A generator produces its edges as a sequence of [`EdgeBatch`]es. Batches are generated in
//! parallel, each block of edges from its own RNG derived from `(seed, block index)`, and handed
//! out in block order, so the output depends only on the parameters and the seed, never on the
//! number of threads. [`generate_into`] streams a generator into a [`GraphBuilder`].

mod batch;
mod erdos_renyi;
mod kronecker;
mod road;

pub use batch::EdgeBatch;
pub use erdos_renyi::{erdos_renyi, ErdosRenyi, ErdosRenyiSize};
pub use kronecker::{kronecker, Kronecker};
pub use road::{road_grid, RoadGrid};

use crate::error::Result;

/// A deterministic source of edges.
pub trait Generator: Sync {
    /// Number of vertices of the generated graph (ids are `0..num_vertices`).
    fn num_vertices(&self) -> u64;

    /// Number of edges the generator will emit (exact, or the expectation for random-size models).
    fn expected_edges(&self) -> u64;

    /// A one-line description (recorded as the graph's source).
    fn describe(&self) -> String;

    /// Calls `sink` with every batch of edges, in a deterministic order; stops at the first error.
    fn for_each_batch(&self, sink: &mut dyn FnMut(&EdgeBatch) -> Result<()>) -> Result<()>;
}
