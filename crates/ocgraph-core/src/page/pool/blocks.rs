//! Pages of a plain file served from its block-compressed copy ([`crate::format::compressed`]):
//! a read of consecutive pages reads the stored bytes of every block they overlap with one
//! `pread`, decodes each block once, and copies its part into the frames. So the rest of the
//! pool (and the engine above it) sees the plain file's bytes.
//!
//! The compressed file is read buffered (its blocks do not start on 4096-byte boundaries),
//! and the bytes read are dropped from the page cache afterwards, as for a plain file that
//! refuses O_DIRECT.

use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;

use super::io::{drop_from_page_cache, fail_read, read_failed};
use crate::error::{Error, Result};
use crate::format::compressed::BlockIndex;
use crate::page::CompressedFile;

thread_local! {
    /// Per reading thread: the stored bytes of a run of blocks, a block's decompressed planes,
    /// and a decoded block.
    static SCRATCH: RefCell<(Vec<u8>, Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// An open compressed copy.
pub(super) struct Blocks {
    path: PathBuf,
    file: File,
    index: Arc<BlockIndex>,
}

impl Blocks {
    /// Opens the compressed copy `c` (its index verified by the caller).
    pub(super) fn open(c: &CompressedFile) -> Result<Blocks> {
        let file = File::open(&c.path).map_err(|e| Error::io(&c.path, "open", e))?;
        Ok(Blocks { path: c.path.clone(), file, index: c.index.clone() })
    }

    /// The logical block size.
    pub(super) fn block_size(&self) -> u64 {
        self.index.block_size as u64
    }

    /// The compressed file's path.
    pub(super) fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Fills `bufs` (consecutive pages of the plain file from `offset`) with the plain bytes;
    /// bytes past the plain file's end are zeroed. Returns the stored bytes read and the read
    /// calls (one). A failed read, a block that does not decode or whose checksum does not
    /// match fails as a failed page read does (see `read_failed`), naming this file and the
    /// block's offset.
    pub(super) fn read_pages(&self, bufs: &mut [&mut [u8]], offset: u64) -> (usize, u64) {
        let ix = &*self.index;
        let total: u64 = bufs.iter().map(|b| b.len() as u64).sum();
        let end = (offset + total).min(ix.logical_len);
        if offset >= end {
            bufs.iter_mut().for_each(|b| b.fill(0));
            return (0, 0);
        }
        let bs = ix.block_size as u64;
        let (k0, k1) = ((offset / bs) as usize, ((end - 1) / bs) as usize);
        let from = ix.blocks[k0].offset;
        let to = ix.blocks[k1].offset + ix.blocks[k1].len as u64;
        SCRATCH.with(|s| {
            let (stored, planes, block) = &mut *s.borrow_mut();
            stored.resize((to - from) as usize, 0);
            self.file.read_exact_at(stored, from).unwrap_or_else(|e| read_failed(&self.path, from, e));
            drop_from_page_cache(&self.file, from, to - from);
            planes.resize(bs as usize + bs as usize / 4, 0);
            block.resize(bs as usize, 0);
            for k in k0..=k1 {
                let e = ix.blocks[k];
                let s = (e.offset - from) as usize;
                let block = &mut block[..ix.logical_block_len(k)];
                if let Err(msg) = ix.decode(k, &stored[s..s + e.len as usize], planes, block) {
                    // The bytes were read: they are corrupted, a format error naming the file.
                    fail_read(Error::Format {
                        path: self.path.clone(),
                        offset: Some(e.offset),
                        msg: format!("{msg}: the file is corrupted"),
                    });
                }
                copy_overlap(bufs, offset, k as u64 * bs, block);
            }
        });
        let mut at = offset;
        for b in bufs.iter_mut() {
            let keep = end.saturating_sub(at).min(b.len() as u64) as usize;
            b[keep..].fill(0);
            at += b.len() as u64;
        }
        ((to - from) as usize, 1)
    }
}

/// Copies the part of `block` (plain bytes from `block_start`) that falls in `bufs`
/// (consecutive whole frames of the plain file from `offset`).
fn copy_overlap(bufs: &mut [&mut [u8]], offset: u64, block_start: u64, block: &[u8]) {
    let block_end = block_start + block.len() as u64;
    let page = bufs[0].len() as u64;
    let first = (block_start.saturating_sub(offset) / page) as usize;
    let mut at = offset + first as u64 * page;
    for b in bufs[first..].iter_mut() {
        let b_end = at + b.len() as u64;
        let (lo, hi) = (at.max(block_start), b_end.min(block_end));
        if lo < hi {
            b[(lo - at) as usize..(hi - at) as usize]
                .copy_from_slice(&block[(lo - block_start) as usize..(hi - block_start) as usize]);
        }
        if b_end >= block_end {
            break;
        }
        at = b_end;
    }
}
