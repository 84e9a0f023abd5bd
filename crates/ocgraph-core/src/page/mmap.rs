//! The `mmap` backend: every file mapped whole; the OS page cache does the I/O.

use memmap2::{Mmap, MmapOptions};

use super::backend::{Advice, FileId, PageSource, PagedFile};
use super::slice::Bytes;
use super::stats::IoStats;
use crate::error::{Error, Result};

/// Memory-maps the graph files read-only.
pub(crate) struct MmapSource {
    maps: Vec<Option<Mmap>>,
}

impl MmapSource {
    /// Maps every file (empty files are not mapped).
    pub(crate) fn open(files: &[PagedFile]) -> Result<MmapSource> {
        let mut maps = Vec::with_capacity(files.len());
        for f in files {
            if f.len == 0 {
                maps.push(None);
                continue;
            }
            let file = std::fs::File::open(&f.path).map_err(|e| Error::io(&f.path, "open", e))?;
            // SAFETY: the graph files are immutable once committed (writers create new files and
            // rename directories), so the mapping is not modified underneath us. Truncation by
            // another process would raise SIGBUS, as for any mmap reader.
            let map = unsafe { MmapOptions::new().len(f.len as usize).map(&file) }
                .map_err(|e| Error::io(&f.path, "mmap", e))?;
            maps.push(Some(map));
        }
        Ok(MmapSource { maps })
    }

    fn bytes(&self, file: FileId) -> &[u8] {
        self.maps[file as usize].as_deref().unwrap_or(&[])
    }
}

impl PageSource for MmapSource {
    fn read(&self, file: FileId, offset: u64, len: usize) -> Bytes<'_> {
        let start = offset as usize;
        Bytes::borrowed(&self.bytes(file)[start..start + len])
    }

    fn advise(&self, file: FileId, offset: u64, len: u64, advice: Advice) {
        let Some(map) = &self.maps[file as usize] else { return };
        let adv = match advice {
            Advice::Normal => memmap2::Advice::Normal,
            Advice::Random => memmap2::Advice::Random,
            Advice::Sequential => memmap2::Advice::Sequential,
            Advice::WillNeed => memmap2::Advice::WillNeed,
        };
        let page = 4096u64;
        let start = offset / page * page;
        let end = (offset + len).min(map.len() as u64);
        if end > start {
            // Advice is only a hint: an error (e.g. EINVAL on an odd range) changes nothing.
            let _ = map.advise_range(adv, start as usize, (end - start) as usize);
        }
    }

    fn stats(&self) -> IoStats {
        IoStats { backend: "mmap".into(), ..IoStats::default() }
    }

    fn reset_stats(&self) {}
}
