//! [`Hubs`]: the hub index of a graph (`hubs.u32`, [`crate::format::hubs`]), read through the
//! page layer.

use std::ops::Range;

use super::{Adjacency, Graph, Slice, Vertex};
use crate::format::hubs::{decode_checked, HUBS_PER_VERTEX};
use crate::format::FileRole;
use crate::page::FileId;

/// Vertices whose entries [`Hubs::for_each_in_range`] reads at once (48 KiB).
const PIECE: u32 = 4096;

/// Each vertex's in-neighbours of highest out-degree, at most [`HUBS_PER_VERTEX`], and whether
/// it has more (see [`crate::format::hubs`]).
#[derive(Clone, Copy)]
pub struct Hubs<'g> {
    graph: &'g Graph,
    file: FileId,
}

impl<'g> Hubs<'g> {
    /// The hub index of `graph`, when it has one.
    pub(super) fn new(graph: &'g Graph) -> Option<Hubs<'g>> {
        Some(Hubs { graph, file: graph.files[FileRole::Hubs as usize]? })
    }

    /// Entries per vertex.
    pub const PER_VERTEX: usize = HUBS_PER_VERTEX;

    /// Whether `lists` may be read with this index: false when they name lists
    /// ([`Adjacency::lists_id`]) of another graph, or of a snapshot whose updates the index,
    /// built from its base, does not hold.
    pub fn indexes<A: Adjacency>(&self, lists: &A) -> bool {
        self.graph.may_be_read_as(lists)
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    /// Calls `f(v, hubs, more)` for every vertex of `vertices` in order (`more`: its in-list
    /// holds more than `hubs`; without it, `hubs` is its whole in-list), reading the index
    /// [`PIECE`] vertices at a time (one read each: the pages of a piece are pinned together,
    /// or copied when the pool holds them apart).
    pub fn for_each_in_range<F: FnMut(Vertex, &[Vertex], bool)>(&self, vertices: Range<Vertex>, mut f: F) {
        let n = self.graph.num_vertices() as u64;
        let entry = 4 * HUBS_PER_VERTEX;
        let mut lo = vertices.start;
        while lo < vertices.end {
            let hi = vertices.end.min(lo.saturating_add(PIECE));
            let bytes =
                self.graph.source.read(self.file, lo as u64 * entry as u64, (hi - lo) as usize * entry);
            let entries: Slice<'_, [u32; HUBS_PER_VERTEX]> = bytes.typed();
            for (v, e) in (lo..hi).zip(entries.iter()) {
                let (hubs, len, more) = decode_checked(e, n).unwrap_or_else(|msg| self.corrupt(v, &msg));
                f(v, &hubs[..len], more);
            }
            lo = hi;
        }
    }

    /// An entry naming no vertex: the file is corrupted (reads of graph data have no error
    /// path, as for an I/O error; `ocgraph check` finds it with a proper error).
    #[cold]
    fn corrupt(&self, v: Vertex, msg: &str) -> ! {
        let path = self.graph.data_path().join(FileRole::Hubs.file_name());
        panic!(
            "ocgraph: corrupted hub index entry of vertex {v} in {} at byte {} ({msg}); run `ocgraph check`",
            path.display(),
            v as u64 * 4 * HUBS_PER_VERTEX as u64
        )
    }
}
