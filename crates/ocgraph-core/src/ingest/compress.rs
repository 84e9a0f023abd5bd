//! Builds the block-compressed copies of a stored graph's adjacency files
//! ([`crate::format::compressed`]) and installs them beside the plain files.
//!
//! Each plain file (`out.neighbors`, `in.neighbors`, `out.weights`, `in.weights`, those the
//! graph has) is read sequentially in groups of blocks; the blocks of a group are compressed
//! in parallel and appended to `NAME.lz4.tmp` after room for the header and index, which are
//! written last.
//!
//! Installation is crash-safe, as for the grid: the files are written under temporary names
//! and fsynced; a graph that had compressed copies first gets a manifest without them; then the
//! files are renamed into place and the manifest naming them (with their checksums) replaces
//! the old one. A crash at any point leaves a graph that opens, with the old copies, none, or
//! the new ones.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use super::grid::seal;
use super::pack::{open_base, verify_source};
use super::progress::{Progress, Unit};
use super::remove::remove_files;
use crate::error::{Error, Result};
use crate::format::compressed::{compress_block, BlockEntry, BlockIndex, Transform, MAX_BLOCK_SIZE};
use crate::format::{FileEntry, FileRole, Manifest};
use crate::update::{lock_for_writing, removing_leftovers_on_error};

/// Blocks compressed per parallel group.
const GROUP_BLOCKS: usize = 64;

/// What [`compress_adjacency`] wrote.
#[derive(Debug, Clone, Default)]
pub struct CompressReport {
    /// The logical block size used.
    pub block_size: u32,
    /// Bytes of the plain files compressed (as stored, padded).
    pub plain_bytes: u64,
    /// Bytes of their compressed copies (headers and indexes included).
    pub stored_bytes: u64,
    /// Per file compressed: its name, plain bytes and stored bytes.
    pub files: Vec<(String, u64, u64)>,
    /// Wall time in seconds.
    pub secs: f64,
}

/// Writes the compressed copies of the adjacency files of the graph at `dir` (which must have
/// no unmerged updates and plain, not packed, lists) in logical blocks of `block_size` bytes (a
/// multiple of 4096, at most 1 MiB), and installs them, replacing copies it had.
pub fn compress_adjacency(dir: &Path, block_size: u32, progress: &dyn Progress) -> Result<CompressReport> {
    let _writing = lock_for_writing(dir)?;
    verify_source(dir)?;
    removing_leftovers_on_error(dir, compress_adjacency_unlocked(dir, block_size, progress))
}

/// [`compress_adjacency`] by a caller that already holds the graph's writer lock (compaction,
/// which compresses the lists of a new base before switching to it).
pub(crate) fn compress_adjacency_unlocked(
    dir: &Path,
    block_size: u32,
    progress: &dyn Progress,
) -> Result<CompressReport> {
    let started = Instant::now();
    if block_size == 0 || !block_size.is_multiple_of(4096) || block_size > MAX_BLOCK_SIZE {
        return Err(Error::invalid(format!(
            "block size {block_size} must be a multiple of 4096 bytes up to {MAX_BLOCK_SIZE}"
        )));
    }
    let g = open_base(dir, "compressing")?;
    let m = g.manifest().clone();
    drop(g);
    if m.is_packed() {
        return Err(Error::invalid(format!(
            "{}: the lists are packed; compress the plain graph instead",
            dir.display()
        )));
    }
    let data = m.data_path(dir);
    let mut report = CompressReport { block_size, ..Default::default() };
    let mut files = Vec::new();
    for (plain, copy) in FileRole::COMPRESSIBLE {
        let Some(entry) = m.file(plain) else { continue };
        let transform = match plain {
            FileRole::OutNeighbors | FileRole::InNeighbors => Transform::DeltaPlanes,
            _ => Transform::Planes,
        };
        let len = entry.padded_len();
        progress.phase(plain.file_name(), Some(len), Unit::Bytes);
        let tmp = data.join(format!("{}.tmp", copy.file_name()));
        let stored =
            compress_file(&data.join(plain.file_name()), &tmp, len, block_size, transform, progress)?;
        files.push((copy, seal(&tmp, stored)?));
        report.plain_bytes += len;
        report.stored_bytes += stored;
        report.files.push((plain.file_name().to_string(), len, stored));
    }
    install_copies(dir, &data, m, &FileRole::COMPRESSIBLE.map(|(_, c)| c), &files)?;
    progress.finish();
    report.secs = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Compresses the `len` bytes of the plain file `src` into `out`; returns the bytes written.
fn compress_file(
    src: &Path,
    out: &Path,
    len: u64,
    block_size: u32,
    transform: Transform,
    progress: &dyn Progress,
) -> Result<u64> {
    let input = File::open(src).map_err(|e| Error::io(src, "open", e))?;
    let output = File::create(out).map_err(|e| Error::io(out, "create", e))?;
    let count = BlockIndex::block_count(len, block_size);
    let mut index = BlockIndex { block_size, transform, logical_len: len, blocks: Vec::with_capacity(count) };
    let mut at = BlockIndex::data_start(count);
    let mut w = std::io::BufWriter::with_capacity(1 << 20, &output);
    let mut buf = Vec::new();
    let bs = block_size as u64;
    w.write_all(&vec![0u8; at as usize]).map_err(|e| Error::io(out, "write", e))?;
    for first in (0..count).step_by(GROUP_BLOCKS) {
        let last = (first + GROUP_BLOCKS).min(count);
        let (from, to) = (first as u64 * bs, (last as u64 * bs).min(len));
        buf.resize((to - from) as usize, 0);
        input.read_exact_at(&mut buf, from).map_err(|e| Error::io(src, "read", e))?;
        let stored: Vec<Vec<u8>> =
            buf.par_chunks(block_size as usize).map(|b| compress_block(b, transform)).collect();
        for s in stored {
            w.write_all(&s).map_err(|e| Error::io(out, "write", e))?;
            index.blocks.push(BlockEntry { offset: at, len: s.len() as u32, crc32c: crc32c::crc32c(&s) });
            at += s.len() as u64;
        }
        progress.advance(to - from);
    }
    w.flush().map_err(|e| Error::io(out, "write", e))?;
    drop(w);
    output.write_all_at(&index.to_bytes(), 0).map_err(|e| Error::io(out, "write", e))?;
    Ok(at)
}

/// Renames the sealed temporary files `files` (`NAME.tmp` in `data`) into place and lists them
/// in the manifest `m` of the graph at `dir`, replacing the copies of roles `replaced` it
/// listed: a manifest without those first, then the renames, then the manifest naming the
/// new files (see the module documentation).
pub(super) fn install_copies(
    dir: &Path,
    data: &Path,
    mut m: Manifest,
    replaced: &[FileRole],
    files: &[(FileRole, FileEntry)],
) -> Result<()> {
    let listed: Vec<FileRole> = replaced.iter().copied().filter(|r| m.file(*r).is_some()).collect();
    if !listed.is_empty() {
        for r in listed {
            m.files.remove(r.file_name());
        }
        m.write_atomic(dir)?;
    }
    for (role, _) in files {
        let (from, to) = (data.join(format!("{}.tmp", role.file_name())), data.join(role.file_name()));
        std::fs::rename(&from, &to).map_err(|e| Error::io(&to, "rename", e))?;
    }
    crate::format::fsync_dir(data)?;
    for (role, entry) in files {
        m.files.insert(role.file_name().to_string(), *entry);
    }
    m.write_atomic(dir)
}

/// The block size of the compressed copies of the graph at `dir` (manifest `m`), if it has
/// any: read from the index of the first copy (compaction rebuilds the copies with it).
pub(crate) fn copies_block_size(dir: &Path, m: &Manifest) -> Result<Option<u32>> {
    for (plain, copy) in FileRole::COMPRESSIBLE {
        if let (Some(p), Some(c)) = (m.file(plain), m.file(copy)) {
            let path = m.data_path(dir).join(copy.file_name());
            return Ok(Some(BlockIndex::read(&path, c.len, p.padded_len())?.block_size));
        }
    }
    Ok(None)
}

/// Removes the compressed copies of the graph at `dir`, if it has any: the manifest first,
/// then the files. Returns whether there were any.
pub fn remove_compressed(dir: &Path) -> Result<bool> {
    let _writing = lock_for_writing(dir)?;
    let m = Manifest::read(dir)?;
    if !m.is_compressed() {
        return Ok(false);
    }
    remove_files(dir, m, FileRole::COMPRESSIBLE.map(|(_, c)| c))?;
    Ok(true)
}
