//! The kernels that answer online queries ([`ocgraph_core::query::Answerer`]):
//! friends-of-friends by [`crate::khop::friends_of_friends`] (distance exactly 2) and shortest
//! paths by the two-ended BFS of [`crate::shortest_path::shortest_path`].

use ocgraph_core::query::Answerer;
use ocgraph_core::{Adjacency, Result, Vertex};

/// Answers queries with this crate's kernels; pass it to [`ocgraph_core::query::run_queries`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Kernels;

impl Answerer for Kernels {
    fn friends_of_friends<A: Adjacency>(&self, g: &A, v: Vertex) -> Result<Vec<Vertex>> {
        crate::khop::friends_of_friends(g, v)
    }

    fn shortest_path<O: Adjacency, I: Adjacency>(
        &self,
        out: &O,
        in_: &I,
        s: Vertex,
        t: Vertex,
    ) -> Result<Option<Vec<Vertex>>> {
        crate::shortest_path::shortest_path(out, in_, s, t)
    }
}
