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

/// Most edges a generator accepts to make (2^40, 8 TiB of edge records): a larger request is a
/// typo to refuse at once, not hours of work that would fill the disk.
pub const MAX_EDGES: u64 = 1 << 40;

/// The error for a request of `edges` (more than [`MAX_EDGES`]) from generator `what`.
fn too_many_edges(what: &str, edges: f64) -> crate::Error {
    crate::Error::invalid(format!(
        "{what}: {edges:.3e} edges asked for; at most 2^40 ({MAX_EDGES}) can be generated"
    ))
}

use crate::error::Result;
use crate::ingest::{GraphBuilder, Progress, Unit};

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

/// Streams every edge of `generator` into `builder` (declaring its vertex count first), reporting
/// a `"generate"` phase counted in edges to `progress`. Returns the number of edges pushed.
/// Call [`GraphBuilder::finish`] afterwards.
pub fn generate_into(
    builder: &mut GraphBuilder,
    generator: &dyn Generator,
    progress: &dyn Progress,
) -> Result<u64> {
    builder.reserve_vertices(generator.num_vertices());
    progress.phase("generate", Some(generator.expected_edges()), Unit::Edges);
    let mut pushed = 0u64;
    generator.for_each_batch(&mut |b| {
        builder.push(&b.src, &b.dst, b.weights.as_deref())?;
        pushed += b.len() as u64;
        progress.advance(b.len() as u64);
        Ok(())
    })?;
    Ok(pushed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{BuildOptions, IdMap, NoProgress};
    use crate::{Adjacency, Graph, OpenOptions};

    #[test]
    fn generate_into_builds_the_same_undirected_graph_as_brute_force() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g");
        let gen = kronecker(8, 8, 5).unwrap();
        let opts = BuildOptions { directed: false, dedup: true, drop_self_loops: true, ..Default::default() };
        let mut b = GraphBuilder::new(&out, opts).unwrap();
        assert_eq!(generate_into(&mut b, &gen, &NoProgress).unwrap(), 8 << 8);
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let g = Graph::open(&out, &OpenOptions::default()).unwrap();
        let mut adj = vec![std::collections::BTreeSet::new(); 256];
        let e = batch::testutil::collect(&gen);
        for (&u, &v) in e.src.iter().zip(&e.dst) {
            if u != v {
                adj[u as usize].insert(v);
                adj[v as usize].insert(u);
            }
        }
        assert_eq!(g.num_vertices(), 256);
        for v in 0..256u32 {
            let want: Vec<u32> = adj[v as usize].iter().copied().collect();
            assert_eq!(&*g.out().neighbors(v), &want[..], "vertex {v}");
        }
    }
}
