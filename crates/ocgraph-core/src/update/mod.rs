//! Durable updates: write-ahead log, in-memory delta, immutable levels, snapshots
//! and compaction over the CSR base (after LLAMA's multiversioned CSR).
//!
//! - `delta`: the [`DeltaLog`] trait: an append-only, multiversioned record of arc operations
//!   per source vertex, read as of a sequence number (so snapshots see no later update).
//! - [`wal`] / [`wal_frame`] / [`log_file`]: the framed, checksummed write-ahead log with group
//!   commit, written through the [`LogFile`] trait (fault injection in tests).
//! - [`memory_delta`]: [`MemoryDelta`], the in-memory [`DeltaLog`].
//! - `label_log`: vertex label changes since the base, in memory and in the label log.
//! - `level`: immutable on-disk levels (CSR over touched vertices, with tombstones).
//! - [`snapshot`]: [`Snapshot`], a consistent view (base + levels + delta as of a batch).
//! - [`stream`]: the change feed (what each batch changed, delivered to subscribers).
//! - [`update_file`]: binary update files (a stream of items in the WAL's item encoding).
//! - [`writable`]: [`WritableGraph`], the update API (WAL -> delta -> levels -> compaction).
//! - `writer_lock`: one writer per graph directory ([`WRITER_LOCK`]).
//! - [`paged_delta`]: [`PagedDelta`], a delta log stored in buffer-pool pages of a delta file.
//! - `graph_entries`: the names the engine keeps in a graph directory (a user's other files
//!   are never replaced with the graph).
//! - [`check_updates`]: the verification of a graph's levels and log (`ocgraph check`).
//! - [`saved_results`]: the maintained results saved beside the updates, as a writer's open
//!   must know them (it removes those saved for a batch that recovery dropped).

mod apply;
mod check;
mod compact;
mod delta;
mod graph_entries;
pub mod ids_log;
mod label_log;
mod level;
pub mod log_file;
pub mod memory_delta;
pub mod paged_delta;
mod radix;
pub mod saved_results;
pub mod snapshot;
pub mod stream;
pub mod update_file;
pub mod wal;
mod wal_flusher;
pub mod wal_frame;
pub mod writable;
mod writer_lock;

pub use check::{check_updates, UpdatesCheck};
pub use delta::{fold_ops, fold_ops_into, ArcOp, DeltaLog, VertexOpsFn};
pub(crate) use graph_entries::foreign_entries;
pub use log_file::{LogFile, LogFs, StdLogFs};
pub use memory_delta::MemoryDelta;
pub use paged_delta::{PagedDelta, PagedDeltaOptions};
pub use saved_results::{MAINTAINED_DIR, SAVED_RESULT_MAGIC};
pub use snapshot::{Snapshot, SnapshotDirection};
pub use stream::{BatchChanges, ChangeSubscriber, EdgeChange, SubscriptionId};
pub use update_file::{is_update_file, update_file_items, UpdateFileWriter, UPDATE_FILE_MAGIC};
pub use wal::{Durability, RecoveryReport, Replay, Wal, WalOptions};
pub use wal_frame::WalItem;
pub use writable::{DeltaKind, WritableGraph, WriteOptions, DELTA_DIR, LEVELS_DIR, WAL_DIR};
pub use writer_lock::WRITER_LOCK;
pub(crate) use writer_lock::{lock_for_replacing, lock_for_writing, removing_leftovers_on_error, WriterLock};
