//! [`ChunkCursor`]: walks one file of a graph chunk by chunk, so that a scan pins each chunk once.

use crate::page::{FileId, PageSource, Slice};

/// Walks one file of elements `T` chunk by chunk (the backend's scan chunk): ranges inside a
/// chunk are sub-slices of that chunk, pinned once; ranges spanning two chunks are read (and so
/// copied by the pool) on their own. Holds at most one pin.
pub(super) struct ChunkCursor<'g, T> {
    src: &'g dyn PageSource,
    file: FileId,
    /// Elements per chunk = `1 << shift` (a shift, not a division, on the per-list path).
    shift: u32,
    total: u64,
    base: u64,
    chunk: Option<Slice<'g, T>>,
    spill: Option<Slice<'g, T>>,
}

impl<'g, T: bytemuck::Pod> ChunkCursor<'g, T> {
    pub(super) fn new(src: &'g dyn PageSource, file: FileId, total: u64) -> Self {
        let per_chunk = src.scan_chunk() / std::mem::size_of::<T>();
        debug_assert!(per_chunk.is_power_of_two());
        ChunkCursor { src, file, shift: per_chunk.trailing_zeros(), total, base: 0, chunk: None, spill: None }
    }

    /// Reads elements `[start, end)`, passing `next` on as the prediction of the caller's next
    /// read ([`PageSource::read_then`]).
    fn read(&self, start: u64, end: u64, next: Option<(FileId, u64)>) -> Slice<'g, T> {
        let size = std::mem::size_of::<T>() as u64;
        let (offset, len) = (start * size, ((end - start) * size) as usize);
        match next {
            Some(next) => self.src.read_then(self.file, offset, len, next),
            None => self.src.read(self.file, offset, len),
        }
        .typed()
    }

    /// Drops the pinned chunk (and any copy).
    pub(super) fn release(&mut self) {
        self.chunk = None;
        self.spill = None;
    }

    /// Elements `[start, end)`.
    #[inline]
    pub(super) fn get(&mut self, start: u64, end: u64) -> &[T] {
        self.get_then(start, end, None)
    }

    /// Elements `[start, end)`; a read it makes gets `next` as the prediction of the caller's
    /// next read ([`PageSource::read_then`]). Inlined for a range inside the pinned chunk (a
    /// scan's usual case), so that the scan's loop stays small.
    #[inline]
    pub(super) fn get_then(&mut self, start: u64, end: u64, next: Option<(FileId, u64)>) -> &[T] {
        if start >= end {
            // Ranges come from offsets or a packed index, which never decrease: a reversed one
            // is a damaged file (the CLI and Python report it as `check` finds it), not a list
            // to read as empty.
            assert!(
                start == end,
                "the range {start}..{end} is reversed: an offsets or index file is corrupted"
            );
            return &[];
        }
        let inside = self.chunk.is_some()
            && start >> self.shift << self.shift == self.base
            && (end - 1) >> self.shift == start >> self.shift;
        if inside {
            let chunk = self.chunk.as_deref().unwrap_or(&[]);
            return &chunk[(start - self.base) as usize..(end - self.base) as usize];
        }
        self.get_outside(start, end, next)
    }

    /// Prefetches element `at` into the CPU cache when it is in the pinned chunk.
    #[inline]
    pub(super) fn prefetch(&self, at: u64) {
        if let Some(chunk) = &self.chunk {
            chunk.prefetch(at.wrapping_sub(self.base) as usize);
        }
    }

    /// [`ChunkCursor::get_then`] for a non-empty range outside the pinned chunk.
    #[inline(never)]
    fn get_outside(&mut self, start: u64, end: u64, next: Option<(FileId, u64)>) -> &[T] {
        // Past the end is the file's padding, not data: only a corrupted offsets file asks.
        assert!(end <= self.total, "the range {start}..{end} runs past the {} elements", self.total);
        let c = start >> self.shift;
        if (end - 1) >> self.shift != c {
            // Release our pin first so this read needs only one more frame.
            self.chunk = None;
            self.spill = Some(self.read(start, end, next));
            return self.spill.as_deref().unwrap_or(&[]);
        }
        let base = c << self.shift;
        if self.chunk.is_none() || self.base != base {
            self.chunk = None;
            self.base = base;
            self.chunk = Some(self.read(base, (base + (1 << self.shift)).min(self.total), next));
        }
        let chunk = self.chunk.as_deref().unwrap_or(&[]);
        &chunk[(start - base) as usize..(end - base) as usize]
    }
}
