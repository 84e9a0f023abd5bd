//! The page access layer: every read of graph data goes through a [`PageSource`].
//!
//! Backends:
//! - [`mmap`]: whole files memory-mapped; the OS page cache does the I/O.
//! - [`pool`]: a user-space buffer pool of fixed-size frames with direct I/O, a hard capacity
//!   in bytes and a pluggable [`policy::ReplacementPolicy`].
//!
//! Readers get a [`Slice`]: a typed view that keeps the pages it covers pinned until dropped
//! (zero-copy when the range lies in one frame or the backend is mmap; a private copy when it
//! spans frames of the pool).

mod backend;
mod huge;
mod mmap;
mod slice;
mod stats;

pub mod policy;
pub mod pool;
pub mod scratch;
pub mod sim;
pub mod trace;

pub use backend::{Advice, BackendKind, FileId, PagedFile};
pub(crate) use backend::{CompressedFile, PageSource, PartitionCut};
pub use huge::huge_vec;
pub(crate) use mmap::MmapSource;
pub use pool::{carry_read_errors, catch_read_errors};
pub use slice::Slice;
pub use stats::IoStats;
