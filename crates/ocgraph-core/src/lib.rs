//! ocgraph-core: the storage engine of ocgraph.
//!
//! - [`format`]: the on-disk graph format v1 (manifest + page-aligned CSR files).
//! - [`page`]: the page access layer: every read of graph data goes through a
//!   [`page::PageSource`] backend (`mmap` or the user-space buffer pool).
//! - [`graph`]: [`Graph`], an opened graph, and the [`Adjacency`] neighbour-access trait
//!   the algorithm crate is generic over.
//! - [`ingest`]: parsers for edge-list formats and the budgeted CSR builder.
//! - [`generate`]: deterministic graph generators (Kronecker, Erdős–Rényi, road grid).
//! - [`query`]: online query workloads, the query runner and graph-aware prefetchers.
//! - [`labels`]: vertex labels stored with a graph (`labels.u32`).
//! - [`memory`]: allocations sized by the graph that fail with an error, not an abort.
//! - [`mix`]: a reproducible 64-bit mixer.
//! - [`update`]: durable updates: the delta log (WAL, levels and compaction build on it).
//! - [`GraphView`]: what readers open: a graph as stored or the latest snapshot of an updated one.
//! - [`error`]: the error type shared by all layers.

pub mod error;
pub mod format;
pub mod generate;
pub mod graph;
pub mod ids;
pub mod ingest;
pub mod labels;
pub mod memory;
pub mod mix;
pub mod page;
pub mod process;
pub mod query;
pub mod size;
pub mod update;
mod view;

pub use error::{Error, Result};
pub use graph::{Adjacency, CellBuf, Direction, EdgeGrid, Graph, Grid, Hubs, OpenOptions, Slice, Vertex};
pub use view::{has_updates, GraphView, Layout};
