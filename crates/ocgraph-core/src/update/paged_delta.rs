//! [`PagedDelta`]: a [`DeltaLog`] whose operations live in pages of a delta file served by a
//! writable buffer pool, so the delta can outgrow memory (seed 004's update-intensive setting).
//!
//! Layout: the file is an array of fixed-size blocks of [`BLOCK_BYTES`] bytes (never spanning
//! a page), taken in order from the end of the file's used part (the *append point*). Each
//! source vertex owns a chain of blocks linked from the newest (its *tail*) back to the oldest.
//! A block is an 8-byte header (the previous block's index as a little-endian `u32`,
//! `u32::MAX` for none, then the block's operation count as a `u32`) and up to
//! [`OPS_PER_BLOCK`] operations of 16 bytes: the batch sequence number (`u64`, bit 63 set for a
//! removal), the destination (`u32`) and the weight (`f32` bits; 0 for a removal).
//!
//! An operation goes into the vertex's tail block when that block has room **and its page is
//! resident and dirty** (it is to be written anyway); otherwise the tail's operations and the
//! new one go into a new block at the append point, which replaces the tail in the chain (the
//! old tail block becomes garbage; when the tail is full the new block simply links back to
//! it). So the pages written are the already-dirty ones plus a contiguous region at the end of
//! the file: long runs for seed 004's batch write-back, for the price of dead blocks
//! ([`DeltaLog::bytes`] counts them) and, when the tail's page is not resident, the same read
//! an in-place append would have needed.
//!
//! The in-memory directory maps each touched vertex to its chain (tail block, the tail's
//! operation count, and the first sequence number): 16 bytes of value and 4 of key per
//! touched vertex in a `BTreeMap`, about 32 bytes with the map's node overhead. A reader
//! walks the chain through the pool; a writer holds the directory's write lock (so
//! [`DeltaLog::ops`] runs concurrently with other readers, not with [`DeltaLog::record`]).
//!
//! The file is scratch space: it is created empty, pages reach it only on write-back or
//! [`PagedDelta::flush`], nothing reopens it (durability is the write-ahead log's job), and it
//! is removed when the delta is dropped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parking_lot::RwLock;

use super::delta::{ArcOp, DeltaLog};
use crate::error::{Error, Result};
use crate::graph::Vertex;
use crate::page::pool::{BufferPool, WriteBack};
use crate::page::{IoStats, PageSource, PagedFile};

/// Bytes per block.
pub const BLOCK_BYTES: usize = 256;
/// Operations per block.
pub const OPS_PER_BLOCK: usize = (BLOCK_BYTES - HEADER) / OP_BYTES;
const HEADER: usize = 8;
const OP_BYTES: usize = 16;
const NO_BLOCK: u32 = u32::MAX;
const REMOVE: u64 = 1 << 63;

/// How to create a [`PagedDelta`].
#[derive(Debug, Clone)]
pub struct PagedDeltaOptions {
    /// The delta file's maximum size in bytes (preallocated sparse; rounded up to whole pages).
    pub max_bytes: u64,
    /// The pool's capacity in bytes (at least 2 pages).
    pub capacity: u64,
    /// The pool's page size: a power of two from 4 KiB to 64 KiB.
    pub page_size: usize,
    /// The pool's replacement policy (see [`crate::page::policy::policy_by_name`]).
    pub policy: String,
    /// How the pool writes dirty pages back when it runs out of clean frames.
    pub write_back: WriteBack,
}

impl Default for PagedDeltaOptions {
    fn default() -> Self {
        PagedDeltaOptions {
            max_bytes: 1 << 30,
            capacity: 64 << 20,
            page_size: 4096,
            policy: "clock".into(),
            write_back: WriteBack::Batch,
        }
    }
}

/// One vertex's chain of blocks.
#[derive(Debug, Clone, Copy)]
struct Chain {
    /// The newest block.
    tail: u32,
    /// Operations in the tail block.
    tail_len: u32,
    /// Sequence number of the vertex's first operation.
    first_seq: u64,
}

#[derive(Debug, Default)]
struct Directory {
    chains: BTreeMap<Vertex, Chain>,
    /// Blocks taken from the file.
    blocks: u64,
}

/// A [`DeltaLog`] stored in pool pages of a delta file (see the module documentation).
pub struct PagedDelta {
    pool: BufferPool,
    path: PathBuf,
    page_size: u64,
    max_blocks: u64,
    dir: RwLock<Directory>,
}

impl std::fmt::Debug for PagedDelta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PagedDelta").field("path", &self.path).field("bytes", &self.bytes()).finish()
    }
}

impl Drop for PagedDelta {
    /// Removes the delta file (scratch space: nothing reopens it).
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl PagedDelta {
    /// Creates the delta file `path` (replacing any file there) and a writable pool over it.
    pub fn create(path: impl AsRef<Path>, options: &PagedDeltaOptions) -> Result<PagedDelta> {
        let path = path.as_ref().to_path_buf();
        let ps = options.page_size as u64;
        if ps < BLOCK_BYTES as u64 {
            return Err(Error::invalid(format!("page size {ps} is smaller than a block")));
        }
        let len = options.max_bytes.max(1).div_ceil(ps).saturating_mul(ps);
        let max_blocks = (len / BLOCK_BYTES as u64).min(NO_BLOCK as u64);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io(&path, "remove", e)),
            _ => {}
        }
        let files = [PagedFile { path: path.clone(), len }];
        let pool = BufferPool::open_writable(
            &files,
            options.capacity,
            options.page_size,
            &options.policy,
            options.write_back,
        )?;
        Ok(PagedDelta { pool, path, page_size: ps, max_blocks, dir: RwLock::new(Directory::default()) })
    }

    /// The delta file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes every dirty page of the delta file back and `fdatasync`s it.
    pub fn flush(&self) -> Result<()> {
        let _readers_only = self.dir.read();
        self.pool.flush()
    }

    /// The pool's I/O statistics (reads, hits, and the write counters).
    pub fn io_stats(&self) -> IoStats {
        self.pool.stats()
    }

    /// Resets the pool's statistics.
    pub fn reset_io_stats(&self) {
        self.pool.reset_stats()
    }

    /// Takes a fresh block from the end of the file.
    fn new_block(&self, dir: &mut Directory) -> Result<u32> {
        if dir.blocks >= self.max_blocks {
            return Err(Error::invalid(format!(
                "delta file {} is full ({} blocks of {BLOCK_BYTES} bytes)",
                self.path.display(),
                self.max_blocks
            )));
        }
        dir.blocks += 1;
        Ok((dir.blocks - 1) as u32)
    }

    fn block_offset(block: u32) -> u64 {
        block as u64 * BLOCK_BYTES as u64
    }
}

fn encode_op(seq: u64, dst: Vertex, op: ArcOp) -> [u8; OP_BYTES] {
    let (tag, w) = match op {
        ArcOp::Add(w) => (seq, w),
        ArcOp::Remove => (seq | REMOVE, 0.0),
    };
    let mut b = [0u8; OP_BYTES];
    b[..8].copy_from_slice(&tag.to_le_bytes());
    b[8..12].copy_from_slice(&dst.to_le_bytes());
    b[12..].copy_from_slice(&w.to_bits().to_le_bytes());
    b
}

fn decode_op(b: &[u8]) -> (u64, Vertex, ArcOp) {
    let tag = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let dst = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
    let w = f32::from_bits(u32::from_le_bytes(b[12..16].try_into().expect("4 bytes")));
    let op = if tag & REMOVE != 0 { ArcOp::Remove } else { ArcOp::Add(w) };
    (tag & !REMOVE, dst, op)
}

impl DeltaLog for PagedDelta {
    fn record(&self, seq: u64, src: Vertex, dst: Vertex, op: ArcOp) -> Result<()> {
        if seq & REMOVE != 0 {
            return Err(Error::invalid(format!("sequence number {seq} does not fit 63 bits")));
        }
        let encoded = encode_op(seq, dst, op);
        let mut dir = self.dir.write();
        let chain = dir.chains.get(&src).copied();
        let page_of = |block: u32| Self::block_offset(block) / self.page_size;
        let chain = match chain {
            Some(mut c)
                if (c.tail_len as usize) < OPS_PER_BLOCK && self.pool.is_dirty_page(0, page_of(c.tail)) =>
            {
                let block = Self::block_offset(c.tail);
                let at = block + (HEADER + c.tail_len as usize * OP_BYTES) as u64;
                self.pool.write_at(0, at, &encoded)?;
                c.tail_len += 1;
                self.pool.write_at(0, block + 4, &c.tail_len.to_le_bytes())?;
                c
            }
            old => {
                // A new block: the first of the vertex, the next after a full tail, or a copy
                // of the tail that replaces it (the old tail becomes garbage).
                let b = self.new_block(&mut dir)?;
                let mut buf = [0u8; BLOCK_BYTES];
                let n = match old {
                    None => {
                        buf[..4].copy_from_slice(&NO_BLOCK.to_le_bytes());
                        0
                    }
                    Some(c) if c.tail_len as usize == OPS_PER_BLOCK => {
                        buf[..4].copy_from_slice(&c.tail.to_le_bytes());
                        0
                    }
                    Some(c) => {
                        let used = HEADER + c.tail_len as usize * OP_BYTES;
                        self.pool.try_read_into(0, Self::block_offset(c.tail), &mut buf[..used])?;
                        c.tail_len as usize
                    }
                };
                buf[4..8].copy_from_slice(&(n as u32 + 1).to_le_bytes());
                let end = HEADER + (n + 1) * OP_BYTES;
                buf[end - OP_BYTES..end].copy_from_slice(&encoded);
                self.pool.write_at(0, Self::block_offset(b), &buf[..end])?;
                let first_seq = old.map_or(seq, |c| c.first_seq);
                Chain { tail: b, tail_len: n as u32 + 1, first_seq }
            }
        };
        dir.chains.insert(src, chain);
        Ok(())
    }

    fn ops(&self, src: Vertex, upto: u64, out: &mut Vec<(Vertex, ArcOp)>) -> Result<()> {
        let dir = self.dir.read();
        let Some(c) = dir.chains.get(&src) else { return Ok(()) };
        // Walk from the tail back to the oldest block, then decode oldest first.
        let mut blocks: Vec<[u8; BLOCK_BYTES]> = Vec::new();
        let mut block = c.tail;
        loop {
            let mut buf = [0u8; BLOCK_BYTES];
            self.pool.try_read_into(0, Self::block_offset(block), &mut buf)?;
            let prev = u32::from_le_bytes(buf[..4].try_into().expect("4 bytes"));
            let count = u32::from_le_bytes(buf[4..8].try_into().expect("4 bytes"));
            let bad = if count == 0 || count as usize > OPS_PER_BLOCK {
                Some(format!("holds {count} operations"))
            } else if prev != NO_BLOCK && prev >= block {
                Some(format!("links back to block {prev}"))
            } else {
                None
            };
            if let Some(msg) = bad {
                return Err(Error::Format {
                    path: self.path.clone(),
                    offset: Some(Self::block_offset(block)),
                    msg: format!("block {block} of vertex {src} {msg}"),
                });
            }
            blocks.push(buf);
            if prev == NO_BLOCK {
                break;
            }
            block = prev;
        }
        for buf in blocks.iter().rev() {
            let count = u32::from_le_bytes(buf[4..8].try_into().expect("4 bytes")) as usize;
            for op in buf[HEADER..HEADER + count * OP_BYTES].chunks_exact(OP_BYTES) {
                let (seq, dst, op) = decode_op(op);
                // Sequence numbers never decrease within a vertex.
                if seq > upto {
                    return Ok(());
                }
                out.push((dst, op));
            }
        }
        Ok(())
    }

    fn touched(&self, upto: u64) -> Vec<Vertex> {
        self.dir.read().chains.iter().filter(|(_, c)| c.first_seq <= upto).map(|(&v, _)| v).collect()
    }

    fn has_ops_upto(&self, upto: u64) -> bool {
        self.dir.read().chains.values().any(|c| c.first_seq <= upto)
    }

    /// An operation takes at most one new block (a copy of its vertex's tail, or a block after
    /// a full one), so a batch fits when as many blocks as operations are free.
    fn has_room(&self, ops: &[(Vertex, Vertex, ArcOp)]) -> bool {
        self.dir.read().blocks + ops.len() as u64 <= self.max_blocks
    }

    fn bytes(&self) -> u64 {
        self.dir.read().blocks * BLOCK_BYTES as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn options(frames: u64, write_back: WriteBack, policy: &str) -> PagedDeltaOptions {
        PagedDeltaOptions {
            max_bytes: 1 << 20,
            capacity: frames * 4096,
            page_size: 4096,
            policy: policy.into(),
            write_back,
        }
    }

    /// Applies `ops` (with sequence numbers `seqs`) to a delta and checks every vertex's
    /// operations as of every sequence number against the list itself.
    fn check(delta: &PagedDelta, ops: &[(u64, Vertex, Vertex, ArcOp)]) {
        for &(seq, src, dst, op) in ops {
            delta.record(seq, src, dst, op).unwrap();
        }
        let last = ops.last().map_or(0, |o| o.0);
        for upto in [0, last / 3, last / 2, last] {
            let mut touched: Vec<Vertex> = ops.iter().filter(|o| o.0 <= upto).map(|o| o.1).collect();
            touched.sort();
            touched.dedup();
            assert_eq!(delta.touched(upto), touched);
            for src in 0..=ops.iter().map(|o| o.1).max().unwrap_or(0) + 1 {
                let want: Vec<(Vertex, ArcOp)> =
                    ops.iter().filter(|o| o.1 == src && o.0 <= upto).map(|o| (o.2, o.3)).collect();
                let mut got = vec![(u32::MAX, ArcOp::Remove)];
                delta.ops(src, upto, &mut got).unwrap();
                assert_eq!(got[0], (u32::MAX, ArcOp::Remove), "ops appends");
                assert_eq!(&got[1..], &want[..], "src {src} upto {upto}");
            }
        }
    }

    fn arb_ops() -> impl Strategy<Value = Vec<(u64, Vertex, Vertex, ArcOp)>> {
        let op = prop_oneof![(0u32..100).prop_map(|w| ArcOp::Add(w as f32 / 4.0)), Just(ArcOp::Remove)];
        prop::collection::vec((0u64..3, 0u32..150, 0u32..50, op), 0..600).prop_map(|v| {
            let mut seq = 1;
            v.into_iter()
                .map(|(step, src, dst, op)| {
                    seq += step;
                    (seq, src, dst, op)
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// A pool of 2 or 3 frames over up to ~13 pages of blocks: dirty pages are written back
        /// and read again, in both modes.
        #[test]
        fn ops_match_a_brute_force_model(ops in arb_ops(), frames in 2u64..4, batch in any::<bool>()) {
            let dir = tempfile::tempdir().unwrap();
            let mode = if batch { WriteBack::Batch } else { WriteBack::SinglePage };
            let delta = PagedDelta::create(dir.path().join("delta"), &options(frames, mode, "lru")).unwrap();
            check(&delta, &ops);
            delta.flush().unwrap();
            check(&delta, &[]);
            let mut again = Vec::new();
            for &(_, src, _, _) in ops.iter().take(5) {
                again.clear();
                delta.ops(src, u64::MAX >> 1, &mut again).unwrap();
                prop_assert_eq!(again.len(), ops.iter().filter(|o| o.1 == src).count());
            }
        }
    }

    #[test]
    fn a_delta_larger_than_the_pool_writes_pages_back() {
        let dir = tempfile::tempdir().unwrap();
        let ops: Vec<(u64, Vertex, Vertex, ArcOp)> =
            (0..3000u64).map(|i| (i / 7, (i * 37 % 400) as u32, i as u32, ArcOp::Add(i as f32))).collect();
        for mode in WriteBack::ALL {
            let delta = PagedDelta::create(dir.path().join("d"), &options(3, mode, "clock")).unwrap();
            check(&delta, &ops);
            let s = delta.io_stats();
            assert!(s.pages_written > 0 && s.capacity_misses > 0, "{mode:?}: {s:?}");
            // 400 vertices with 7 or 8 ops each: at least one block each, more when a vertex's
            // tail page was not dirty when it was written to.
            assert!(delta.bytes() > 400 * BLOCK_BYTES as u64, "{mode:?}: {}", delta.bytes());
        }
    }

    #[test]
    fn a_full_delta_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let opts = PagedDeltaOptions { max_bytes: 4096, ..options(2, WriteBack::Batch, "clock") };
        let delta = PagedDelta::create(dir.path().join("d"), &opts).unwrap();
        for v in 0..16 {
            delta.record(1, v, 0, ArcOp::Remove).unwrap();
        }
        let err = delta.record(1, 16, 0, ArcOp::Remove).unwrap_err();
        assert!(err.to_string().contains("full"), "{err}");
        assert!(delta.record(1 << 63, 0, 0, ArcOp::Remove).is_err());
        let mut out = Vec::new();
        delta.ops(3, 1, &mut out).unwrap();
        assert_eq!(out, vec![(0, ArcOp::Remove)]);
    }
}
