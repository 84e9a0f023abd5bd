//! The user-space buffer pool (TODO(page-layer helper): implement).

use super::backend::{Advice, FileId, PageSource, PagedFile};
use super::slice::Bytes;
use super::stats::IoStats;
use crate::error::{Error, Result};

/// A buffer pool of fixed-size frames.
pub(crate) struct BufferPool {}

impl BufferPool {
    /// Opens a pool over `files`.
    pub(crate) fn open(
        _files: &[PagedFile],
        _capacity: u64,
        _page_size: usize,
        _policy: &str,
    ) -> Result<BufferPool> {
        Err(Error::invalid("the pool backend is not built yet"))
    }
}

impl PageSource for BufferPool {
    fn read(&self, _file: FileId, _offset: u64, _len: usize) -> Bytes<'_> {
        unreachable!()
    }
    fn advise(&self, _file: FileId, _offset: u64, _len: u64, _advice: Advice) {}
    fn stats(&self) -> IoStats {
        IoStats::default()
    }
    fn reset_stats(&self) {}
}
