//! Edge-list parsers and the budgeted CSR builder.
//!
//! - [`GraphBuilder`]: batches of edges in, a graph directory out, within a memory budget
//!   (in-memory counting sort when everything fits, else sorted runs and a k-way merge).
//! - [`import`]: reads an edge-list file (SNAP text, CSV, MatrixMarket, gzip'd versions of these,
//!   binary u32/u64 pairs, with or without weights), optionally relabels ids, and builds the
//!   graph; it refuses ids so sparse that the graph would be mostly empty vertices.
//! - [`pack`]: a copy of a stored graph with packed neighbour lists.
//! - [`build_grid`]: the grid layout of a stored graph, built beside its CSR.
//! - [`set_labels`]: stores vertex labels with a graph.
//! - [`reorder`]: a copy of a stored graph with its vertices renumbered by descending degree.

mod builder;
mod compress;
mod csr;
mod grid;
mod hubs;
mod import;
mod labels;
mod memory;
mod merge;
mod pack;
mod parse;
mod progress;
mod record;
mod relabel;
mod remove;
mod reorder;
mod runs;

pub use builder::{BuildOptions, BuildReport, GraphBuilder, IdMap, LabelSource, MIN_BUILD_MEMORY};
pub(crate) use compress::compress_adjacency_unlocked;
pub(crate) use compress::copies_block_size;
pub use compress::{compress_adjacency, remove_compressed, CompressReport};
pub(crate) use grid::build_grid_unlocked;
pub use grid::{build_grid, remove_grid, GridOptions, GridReport};
pub(crate) use hubs::index_hubs_unlocked;
pub use hubs::{index_hubs, remove_hubs, HubsReport};
#[cfg(feature = "fuzzing")]
pub use import::parse_bytes;
pub use import::{
    check_num_vertices, has_parquet_magic, import, num_vertices_with_string_ids, sparse_ids_problem, Columns,
    ImportOptions, InputFormat, Relabel, SPARSE_IDS_MAX_RATIO, SPARSE_IDS_MIN_BYTES,
};
pub use labels::{remove_labels, set_labels, set_labels_from_file};
pub(crate) use pack::pack_copy_unlocked;
pub use pack::{pack, pack_copy, remove_packed_copy, PackReport};
pub use parse::source::{text_reader, GZIP_MAGIC};
pub use parse::{is_integer, parse_weight};
pub use progress::{NoProgress, Progress, Unit};
pub use reorder::{is_reordered, reorder};
