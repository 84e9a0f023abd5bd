//! [`GraphView`]: what a reader opens. A graph that was never updated is read as stored; a graph
//! with updates (levels or a write-ahead log) is read as the snapshot of its latest durable
//! state, so no reader ever sees a stale base by mistake.
//!
//! Kernels are generic over [`Adjacency`](crate::Adjacency); the [`with_adjacency!`] macro
//! hands either variant's out- and in-directions to one generic body.

use std::path::Path;
use std::sync::Arc;

use crate::error::Result;
use crate::format::{while_manifest_changes, IdMapKind, Manifest};
use crate::graph::{Graph, Grid, Hubs, OpenOptions};
use crate::ids::IdLookup;
use crate::page::IoStats;
use crate::update::ids_log::read_added_ids;
use crate::update::{Durability, Snapshot, WritableGraph, WriteOptions, WAL_DIR};

/// An opened graph for reading: as stored, or the latest snapshot of an updated graph.
#[derive(Clone)]
pub enum GraphView {
    /// A graph without updates.
    Stored(Arc<Graph>),
    /// A snapshot of a graph with updates (base + levels + replayed log).
    Updated(Snapshot),
}

impl GraphView {
    /// Opens `dir` for reading. When the graph has updates, this loads its latest durable
    /// state as [`WritableGraph::open`] does (replaying the log up to a torn tail, which a
    /// reader does not cut: it changes no file, as a writer may have the graph open) and
    /// returns a snapshot of it.
    pub fn open(dir: impl AsRef<Path>, options: &OpenOptions) -> Result<GraphView> {
        // A writer may switch the manifest while this opens (a compaction removes the WAL
        // segments and the base it replaced): retried until the manifest held still.
        let dir = dir.as_ref();
        while_manifest_changes(dir, 100, false, |_| Self::open_once(dir, options))
    }

    fn open_once(dir: &Path, options: &OpenOptions) -> Result<GraphView> {
        if !has_updates(dir)? {
            return Ok(GraphView::Stored(Arc::new(Graph::open(dir, options)?)));
        }
        let opts = WriteOptions {
            backend: options.backend.clone(),
            durability: Durability::None,
            auto_compact_levels: None,
            ..WriteOptions::default()
        };
        let w = WritableGraph::open_for_reading(dir, &opts)?;
        let snap = w.snapshot();
        // The names of added vertices are read now: a writer's compaction rewrites `ids.log`
        // for its new base, which this snapshot does not read.
        let base = snap.base().manifest();
        if base.id_map != IdMapKind::Identity {
            let added = (snap.num_vertices() as u64).saturating_sub(base.num_vertices);
            snap.keep_added_ids(w.added_ids(added as usize));
        }
        w.close()?;
        Ok(GraphView::Updated(snap))
    }

    /// The base graph (the stored CSR under any levels).
    pub fn base(&self) -> &Graph {
        match self {
            GraphView::Stored(g) => g,
            GraphView::Updated(s) => s.base(),
        }
    }

    /// The vertex labels, if any, over every vertex of the view: those stored with the base,
    /// under the label changes of updates for an updated graph ([`crate::labels::NO_LABEL`]
    /// for a vertex never labelled).
    pub fn labels(&self) -> Result<Option<Vec<u32>>> {
        match self {
            GraphView::Stored(g) => {
                g.labels()?.map(|l| crate::labels::padded(l, self.num_vertices())).transpose()
            }
            GraphView::Updated(s) => s.labels(),
        }
    }

    /// The original ids of every vertex: the base's id map, and for an updated graph of a
    /// relabelled base the ids of the vertices updates added (from `ids.log`).
    pub fn ids(&self) -> Result<IdLookup> {
        let base = self.base();
        let n = self.num_vertices() as u64;
        let ids = base.ids()?.identity_over(n);
        if n <= ids.len() {
            return Ok(ids);
        }
        if let GraphView::Updated(s) = self {
            if let Some(added) = s.added_ids() {
                return ids.with_added(added);
            }
        }
        let m = base.manifest();
        let added = read_added_ids(base.path(), m.id_map, m.num_vertices, n)?;
        ids.with_added(&added)
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        match self {
            GraphView::Stored(g) => g.num_vertices(),
            GraphView::Updated(s) => s.num_vertices(),
        }
    }

    /// Number of edges as the user sees them (an undirected edge counts once).
    pub fn num_edges(&self) -> u64 {
        match self {
            GraphView::Stored(g) => g.num_edges(),
            GraphView::Updated(s) => s.num_edges(),
        }
    }

    /// Number of stored arcs in the out-direction (an undirected edge `u != v` counts twice).
    pub fn num_arcs(&self) -> u64 {
        match self {
            GraphView::Stored(g) => g.num_arcs(),
            GraphView::Updated(s) => crate::Adjacency::num_arcs(&s.out()),
        }
    }

    /// The graph directory.
    pub fn path(&self) -> &Path {
        self.base().path()
    }

    /// Whether the graph is directed.
    pub fn is_directed(&self) -> bool {
        self.base().is_directed()
    }

    /// Whether arcs carry weights.
    pub fn is_weighted(&self) -> bool {
        self.base().is_weighted()
    }

    /// I/O statistics of the base graph's page backend (levels are memory-mapped).
    pub fn io_stats(&self) -> IoStats {
        self.base().io_stats()
    }

    /// Resets the I/O statistics.
    pub fn reset_io_stats(&self) {
        self.base().reset_io_stats()
    }
}

/// Which stored layout a kernel reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// For PageRank, WCC and SpMV, the grid when the graph has one and no pending updates: the
    /// grid's kernels read as many bytes and keep the vertex state they touch in cache, and
    /// were faster at every memory budget measured. Otherwise the adjacency lists: their
    /// packed copies (`ocgraph layout pack`) when the graph has them and the buffer pool is
    /// smaller than the plain lists (they are about half the bytes to read: BFS on kron22 took
    /// half the time at 5%, 10% and 25% of the graph), else the plain lists (faster to decode
    /// in memory). BFS and WCC also read the hub index (`ocgraph layout hubs`) when the graph
    /// has one and no pending updates ([`GraphView::choose_hubs`]; WCC then leaves the grid
    /// out): it was the fastest layout for both at every budget measured. `bench/layouts/run.py`
    /// measures the rule, docs/layouts.md gives the numbers.
    #[default]
    Auto,
    /// The plain adjacency lists (a packed graph's packed lists).
    Csr,
    /// The packed copies of the adjacency lists (`ocgraph layout pack`); an error when the
    /// graph has none.
    Packed,
    /// The grid (`ocgraph layout grid`); an error when the graph has none.
    Grid,
    /// For BFS and WCC, the hub index (`ocgraph layout hubs`) with the lists `Auto` reads; an
    /// error when the graph has none.
    Hubs,
}

impl std::str::FromStr for Layout {
    type Err = crate::Error;

    fn from_str(s: &str) -> Result<Layout> {
        match s {
            "auto" => Ok(Layout::Auto),
            "csr" => Ok(Layout::Csr),
            "packed" => Ok(Layout::Packed),
            "grid" => Ok(Layout::Grid),
            "hubs" => Ok(Layout::Hubs),
            _ => Err(crate::Error::invalid(format!("unknown layout {s:?} (auto, csr, packed, grid, hubs)"))),
        }
    }
}

impl GraphView {
    /// The grid a kernel should read under `layout` (`None`: the adjacency lists), and why; for
    /// the adjacency lists, makes the base read their plain lists or their packed copies
    /// ([`Graph::read_packed_copy`]). `edge_centric`: whether the kernel has a grid version
    /// (PageRank, WCC, SpMV).
    ///
    /// Errors: `Layout::Grid` for a kernel without a grid version, or for a graph without a
    /// grid or with updates since it was built (a writable graph without updates, or just
    /// compacted, reads its base's grid); `Layout::Packed` for a graph without packed copies.
    pub fn choose_layout(&self, layout: Layout, edge_centric: bool) -> Result<(Option<Grid<'_>>, String)> {
        self.choose_lists(layout, edge_centric, "layout hubs")
    }

    /// [`GraphView::choose_layout`], saying `hubs_why` of the lists read beside a hub index.
    fn choose_lists(
        &self,
        layout: Layout,
        edge_centric: bool,
        hubs_why: &str,
    ) -> Result<(Option<Grid<'_>>, String)> {
        let base = self.base();
        let m = base.manifest();
        match layout {
            Layout::Csr => {
                base.read_packed_copy(false);
                return Ok((None, "layout csr".into()));
            }
            Layout::Packed if m.has_packed_copy() || m.is_packed() => {
                base.read_packed_copy(true);
                return Ok((None, "layout packed".into()));
            }
            Layout::Packed => {
                return Err(crate::Error::invalid(format!(
                    "layout packed: {}: the graph has no packed copy of its lists; build one with `ocgraph layout pack`",
                    self.path().display()
                )))
            }
            Layout::Grid | Layout::Auto | Layout::Hubs => {}
        }
        let (grid, why) = match layout {
            Layout::Hubs => (None, hubs_why.into()),
            _ => self.choose_grid(layout == Layout::Grid, edge_centric)?,
        };
        if grid.is_some() {
            return Ok((grid, why));
        }
        let plain = plain_lists_bytes(m);
        let small = base.memory_budget().is_some_and(|b| b < plain);
        let packed = m.has_packed_copy();
        base.read_packed_copy(packed && small);
        if !packed {
            return Ok((None, why));
        }
        let budget = base.memory_budget().map_or("the page cache".into(), crate::size::format_size);
        let (copy, cmp) = if small { ("packed copies", "<") } else { ("plain lists", ">=") };
        let why = format!(
            "{why}; the {copy}: memory {budget} {cmp} plain lists {}",
            crate::size::format_size(plain)
        );
        Ok((None, why))
    }

    /// The stored layouts a kernel reads under `layout`, and why: the grid, for a kernel with a
    /// grid version (`edge_centric`), and the hub index, for one that reads it (`reads_hubs`:
    /// BFS and WCC); settles the lists the base reads beside them as
    /// [`GraphView::choose_layout`] does. A kernel that reads the hub index reads no grid.
    ///
    /// Errors: as [`GraphView::choose_layout`] and [`GraphView::choose_hubs`], and `Hubs` for a
    /// kernel that does not read the hub index.
    pub fn choose_stored(
        &self,
        layout: Layout,
        edge_centric: bool,
        reads_hubs: bool,
    ) -> Result<(Option<Grid<'_>>, Option<Hubs<'_>>, String)> {
        if layout == Layout::Hubs && !reads_hubs {
            return Err(crate::Error::invalid("layout hubs: only bfs and wcc read the hub index"));
        }
        let hubs = if reads_hubs { self.choose_hubs(layout)? } else { None };
        let lists = if hubs.is_some() { Layout::Hubs } else { layout };
        let hubs_why = if layout == Layout::Auto { "auto: the graph has a hub index" } else { "layout hubs" };
        let (grid, why) = self.choose_lists(lists, edge_centric, hubs_why)?;
        Ok((grid, hubs, why))
    }

    /// The hub index a BFS or WCC reads under `layout`: under `Hubs` the graph's (an error
    /// when it has none, or updates since it was built), under `Auto` the graph's when it has
    /// one and no pending updates, otherwise none.
    pub fn choose_hubs(&self, layout: Layout) -> Result<Option<Hubs<'_>>> {
        let hubs = match self {
            GraphView::Stored(g) => g.hubs(),
            GraphView::Updated(s) if s.is_base() => s.base().hubs(),
            GraphView::Updated(_) => None,
        };
        match (layout, hubs) {
            (Layout::Hubs | Layout::Auto, Some(h)) => Ok(Some(h)),
            (Layout::Hubs, None) => Err(crate::Error::invalid(format!(
                "layout hubs: {}: {}",
                self.path().display(),
                match self {
                    GraphView::Updated(s) if self.base().hubs().is_some() => stale_base_file(s, "hub index"),
                    _ => "the graph has no hub index; build one with `ocgraph layout hubs`".into(),
                }
            ))),
            _ => Ok(None),
        }
    }

    /// [`GraphView::choose_layout`]'s choice of the grid under `Layout::Grid` (`forced`) or
    /// `Layout::Auto`: the grid, or `None` for the adjacency lists.
    fn choose_grid(&self, forced: bool, edge_centric: bool) -> Result<(Option<Grid<'_>>, String)> {
        let grid = match self {
            GraphView::Stored(g) => g.grid(),
            GraphView::Updated(s) if s.is_base() => s.base().grid(),
            GraphView::Updated(_) => None,
        };
        let missing = match self {
            GraphView::Updated(s) if s.base().grid().is_some() => stale_base_file(s, "grid"),
            _ => "the graph has no grid; build one with `ocgraph layout grid`".into(),
        };
        Ok(match (forced, grid) {
            (true, _) if !edge_centric => {
                return Err(crate::Error::invalid("layout grid: only pagerank, wcc and spmv run on the grid"))
            }
            (true, Some(g)) => (Some(g), "layout grid".into()),
            (true, None) => {
                return Err(crate::Error::invalid(format!(
                    "layout grid: {}: {missing}",
                    self.path().display()
                )))
            }
            (false, _) if !edge_centric => (None, "auto: this kernel follows adjacency lists".into()),
            (false, Some(g)) => (Some(g), "auto: an edge-centric kernel and the graph has a grid".into()),
            (false, None) => (None, format!("auto: {missing}")),
        })
    }
}

/// Why the base's `what` (its grid or hub index, built from the base alone) does not serve
/// the snapshot `s`, which is not [`Snapshot::is_base`].
fn stale_base_file(s: &Snapshot, what: &str) -> String {
    if s.has_updates() {
        format!("the graph has updates since its {what} was built; run `ocgraph compact`")
    } else {
        format!(
            "the graph's base holds repeated edges, which a graph opened for updates reads once \
             each, and its {what} was built from the base as stored; run `ocgraph compact` to \
             store the graph without them"
        )
    }
}

/// Bytes of the plain lists of the graph of manifest `m` (offsets and neighbours, both
/// directions): what [`Layout::Auto`] compares the memory budget with.
fn plain_lists_bytes(m: &Manifest) -> u64 {
    use crate::format::FileRole::{InNeighbors, InOffsets, OutNeighbors, OutOffsets};
    [OutOffsets, OutNeighbors, InOffsets, InNeighbors].iter().filter_map(|&r| m.file(r)).map(|e| e.len).sum()
}

/// Whether the graph at `dir` has updates not merged into its base: levels in its manifest,
/// or a non-empty write-ahead log segment (batches after the last checkpoint: a freeze starts
/// a new segment and removes the ones it covers). A compacted graph with an empty log has none.
pub fn has_updates(dir: &Path) -> Result<bool> {
    let manifest = Manifest::read(dir)?;
    // A log that should reach past the checkpoint has updates even when its segments are gone
    // (the open then says they are missing), and so does a checkpoint whose vertex count is not
    // the base's though no level holds more (the open then refuses it, as damage).
    let n = manifest.num_vertices;
    if manifest
        .updates
        .as_ref()
        .is_some_and(|u| !u.levels.is_empty() || u.closed_seq > u.checkpoint_seq || u.num_vertices != n)
    {
        return Ok(true);
    }
    let wal = dir.join(WAL_DIR);
    let Ok(entries) = std::fs::read_dir(&wal) else { return Ok(false) };
    for e in entries {
        let e = e.map_err(|e| crate::Error::io(&wal, "list the write-ahead log", e))?;
        let len = match e.metadata() {
            Ok(meta) => meta.len(),
            // Removed meanwhile by a writer's compaction: its batches are in the new base.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => 0,
            Err(err) => return Err(crate::Error::io(e.path(), "stat", err)),
        };
        if len > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Runs `$body` with `$out` and `$inn` bound to the out- and in-directions of a
/// [`GraphView`] (each implements [`Adjacency`](crate::Adjacency)).
///
/// ```ignore
/// let n = with_adjacency!(&view, |out, inn| ocgraph_algo::wcc(&out, &inn))?;
/// ```
#[macro_export]
macro_rules! with_adjacency {
    ($view:expr, |$out:ident, $inn:ident| $body:expr) => {
        match $view {
            $crate::GraphView::Stored(g) => {
                let ($out, $inn) = (g.out(), g.in_());
                #[allow(clippy::let_and_return)]
                let result = $body;
                result
            }
            $crate::GraphView::Updated(s) => {
                let ($out, $inn) = (s.out(), s.in_());
                #[allow(clippy::let_and_return)]
                let result = $body;
                result
            }
        }
    };
}
