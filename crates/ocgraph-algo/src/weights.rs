//! The error of an arc weight a kernel refuses, or the panic of a damaged weights file.

use ocgraph_core::{Adjacency, Error, Vertex};

/// The error of arc `u -> v` of `g`, whose weight `w` the kernel refuses (`needs`: "PageRank
/// needs finite weights >= 0"). A graph that records its weights' range
/// ([`Adjacency::weight_range`]) holds only finite weights `>= 0` (the range is written only
/// then), so there such a weight is a damaged weights file, not the user's graph: it panics,
/// and the CLI and Python report the file that `ocgraph check` finds damaged.
pub(crate) fn refused_weight<A: Adjacency>(g: &A, u: Vertex, v: Vertex, w: f32, needs: &str) -> Error {
    assert!(
        g.weight_range().is_none(),
        "arc {u} -> {v} has weight {w}, outside the range the graph records: its weights file is damaged"
    );
    Error::invalid(format!("arc {u} -> {v} has weight {w}; {needs}"))
}
