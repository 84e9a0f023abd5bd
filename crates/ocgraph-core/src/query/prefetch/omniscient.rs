//! The omniscient prefetcher: it knows the query stream, and advises what query `i` will read
//! while earlier queries run. It bounds what a prefetcher driven by visited vertices can gain.
//!
//! What it advises per query:
//! - edge query `v`: `v`'s offsets and neighbour list (exactly what the query reads);
//! - friends-of-friends `v`: `v`'s list and the lists of all its neighbours (exactly the reads);
//! - shortest path `(s, t)`: the lists of `s`, `t` and of their neighbours (the first level of
//!   both searches; deeper levels depend on the search).

use super::Sink;
use crate::graph::{Adjacency, Vertex};
use crate::query::workload::QueryKind;

/// Queries advised ahead of the running one, by kind.
pub fn default_lookahead(kind: QueryKind) -> usize {
    match kind {
        QueryKind::Edge => 64,
        QueryKind::FriendsOfFriends => 4,
        QueryKind::ShortestPath => 2,
    }
}

/// Advises the reads of `queries` (each one query of `kind`): first the offsets of every
/// query vertex (so those reads overlap), then each query's lists.
pub fn advise<'q>(sink: &mut Sink<'_>, kind: QueryKind, queries: impl Iterator<Item = &'q [Vertex]> + Clone) {
    let dir = sink.dir();
    for q in queries.clone() {
        for &v in q {
            dir.will_need_offsets(v);
        }
    }
    for q in queries {
        for &v in q {
            let r = dir.list_bytes(v);
            sink.bytes(r.start, r.end);
            if kind == QueryKind::Edge {
                continue;
            }
            let nbrs = dir.neighbors(v).to_vec();
            for w in nbrs {
                let r = dir.list_bytes(w);
                sink.bytes(r.start, r.end);
            }
        }
    }
}
