//! Durable updates (issue 7): the mutable newest level of a writable graph.
//!
//! - [`delta`]: the [`DeltaLog`] trait: an append-only, multiversioned record of arc operations
//!   per source vertex, read as of a sequence number (so snapshots see no later update).
//! - [`paged_delta`]: [`PagedDelta`], a delta log stored in buffer-pool pages of a delta file.

mod delta;
pub mod paged_delta;

pub use delta::{fold_ops, ArcOp, DeltaLog};
pub use paged_delta::{PagedDelta, PagedDeltaOptions};
