//! Scratch arrays: derived data a kernel writes once, in order, and then only reads (the
//! degree-oriented lists of triangle counting and pattern mining). A small one stays in memory;
//! one too large for the memory the graph may use ([`keep_in_memory`]) goes to an unlinked
//! temporary file in [`std::env::temp_dir`] (`TMPDIR`), written sequentially and then
//! memory-mapped read-only, so the OS page cache holds what fits and evicts the rest as it
//! does for the mmap backend. The file has no name (`O_TMPFILE`, or removed right after
//! creation): nothing is left behind, even after a crash.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Deref;
use std::path::PathBuf;

use crate::{Error, Result};

/// Bytes buffered before a write to the file.
const WRITE_BUFFER: usize = 4 << 20;

/// Whether a scratch array of `bytes` stays in memory. With a buffer pool of capacity `budget`
/// (the memory the user gave the graph), when it is at most a quarter of that; with mmap
/// (`budget` is `None`: the page cache decides), when it is at most half of the memory the
/// process has available now ([`crate::memory::available_bytes`]; always, where that cannot be
/// read).
pub fn keep_in_memory(bytes: u64, budget: Option<u64>) -> bool {
    match budget {
        Some(capacity) => bytes <= capacity / 4,
        None => crate::memory::available_bytes().is_none_or(|avail| bytes <= avail / 2),
    }
}

/// A `u32` array being written in order (see the module docs); [`ScratchWriter::finish`] makes
/// it a readable [`ScratchArray`].
pub struct ScratchWriter {
    sink: Sink,
    len: usize,
}

enum Sink {
    Memory(Vec<u32>),
    File { out: BufWriter<File>, dir: PathBuf },
}

impl ScratchWriter {
    /// An empty array, in memory or in a temporary file.
    pub fn new(in_memory: bool) -> Result<ScratchWriter> {
        let sink = if in_memory {
            Sink::Memory(Vec::new())
        } else {
            let dir = std::env::temp_dir();
            let file =
                tempfile::tempfile_in(&dir).map_err(|e| Error::io(&dir, "create a scratch file", e))?;
            Sink::File { out: BufWriter::with_capacity(WRITE_BUFFER, file), dir }
        };
        Ok(ScratchWriter { sink, len: 0 })
    }

    /// Whether the array is kept in memory.
    pub fn in_memory(&self) -> bool {
        matches!(self.sink, Sink::Memory(_))
    }

    /// Elements written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `values`.
    pub fn extend_from_slice(&mut self, values: &[u32]) -> Result<()> {
        match &mut self.sink {
            Sink::Memory(v) => v.extend_from_slice(values),
            Sink::File { out, dir } => {
                let bytes: &[u8] = bytemuck::cast_slice(values);
                out.write_all(bytes).map_err(|e| Error::io(&*dir, "write a scratch file", e))?;
            }
        }
        self.len += values.len();
        Ok(())
    }

    /// The written array, readable.
    pub fn finish(self) -> Result<ScratchArray> {
        match self.sink {
            Sink::Memory(v) => Ok(ScratchArray(Storage::Memory(v))),
            Sink::File { .. } if self.len == 0 => Ok(ScratchArray(Storage::Memory(Vec::new()))),
            Sink::File { out, dir } => {
                let file =
                    out.into_inner().map_err(|e| Error::io(&dir, "write a scratch file", e.into_error()))?;
                // SAFETY: the file is private to this process (it has no name, and only this
                // writer had its descriptor) and nothing writes it once mapped, so the mapping
                // never changes under the shared slices handed out from it.
                let map = unsafe { memmap2::Mmap::map(&file) }
                    .map_err(|e| Error::io(&dir, "map a scratch file", e))?;
                Ok(ScratchArray(Storage::Mapped { map, len: self.len }))
            }
        }
    }
}

/// A read-only `u32` array built by a [`ScratchWriter`], in memory or mapped from its file.
pub struct ScratchArray(Storage);

enum Storage {
    Memory(Vec<u32>),
    Mapped { map: memmap2::Mmap, len: usize },
}

impl ScratchArray {
    /// An array held in memory.
    pub fn from_vec(v: Vec<u32>) -> ScratchArray {
        ScratchArray(Storage::Memory(v))
    }

    /// Whether the array is held in memory (not mapped from a scratch file).
    pub fn in_memory(&self) -> bool {
        matches!(self.0, Storage::Memory(_))
    }
}

impl Deref for ScratchArray {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match &self.0 {
            Storage::Memory(v) => v,
            // The mapping starts on a page boundary, so the cast (which checks) cannot fail.
            Storage::Mapped { map, len } => &bytemuck::cast_slice(&map[..])[..*len],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_and_memory_arrays_read_back_what_was_written() {
        for in_memory in [true, false] {
            let mut w = ScratchWriter::new(in_memory).unwrap();
            assert_eq!(w.in_memory(), in_memory);
            let a: Vec<u32> = (0..3_000_000u32).map(|x| x.wrapping_mul(2_654_435_761)).collect();
            w.extend_from_slice(&a[..10]).unwrap();
            w.extend_from_slice(&a[10..]).unwrap();
            assert_eq!(w.len(), a.len());
            let r = w.finish().unwrap();
            assert_eq!(r.in_memory(), in_memory);
            assert_eq!(&r[..], &a[..]);
        }
        let empty = ScratchWriter::new(false).unwrap().finish().unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn the_memory_rule_follows_the_budget() {
        assert!(keep_in_memory(100, Some(400)));
        assert!(!keep_in_memory(101, Some(400)));
        assert!(keep_in_memory(0, None));
    }
}
