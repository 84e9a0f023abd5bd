//! Atomic creation of a graph directory: files are written into a temporary sibling directory
//! with their checksums computed on the way (write-back starts as each file is finished); at
//! commit every file is fsync'ed (in parallel), then the manifest is written last and the
//! directory renamed into place, then the parent directory is fsync'ed. An interrupted write
//! leaves only the temporary directory, which never opens as a graph.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::layout::{pad_len, FileRole};
use super::manifest::{FileEntry, Manifest, MANIFEST_FILE};
use crate::error::{Error, Result};

/// Streams one data file, computing its length and CRC-32C.
pub struct FileWriter {
    path: PathBuf,
    out: BufWriter<File>,
    len: u64,
    crc: u32,
}

impl FileWriter {
    fn create(path: PathBuf) -> Result<FileWriter> {
        let f = File::create(&path).map_err(|e| Error::io(&path, "create", e))?;
        Ok(FileWriter { path, out: BufWriter::with_capacity(1 << 20, f), len: 0, crc: 0 })
    }

    /// Appends raw bytes.
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        self.crc = crc32c::crc32c_append(self.crc, bytes);
        self.len += bytes.len() as u64;
        self.out.write_all(bytes).map_err(|e| Error::io(&self.path, "write", e))
    }

    /// Appends plain-old-data values in little-endian layout (this crate targets little-endian
    /// machines; see docs/design.md).
    pub fn write_slice<T: bytemuck::Pod>(&mut self, values: &[T]) -> Result<()> {
        self.write_bytes(bytemuck::cast_slice(values))
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Pads to the alignment, flushes and starts the write-back; returns the manifest entry and
    /// the file, which [`GraphWriter::commit`] fsyncs (all files in parallel) before the manifest.
    fn finish(mut self) -> Result<(FileEntry, Unsynced)> {
        let data_len = self.len;
        let pad = (pad_len(data_len) - data_len) as usize;
        self.write_bytes(&vec![0u8; pad])?;
        let file = self.out.into_inner().map_err(|e| Error::io(&self.path, "write", e.into_error()))?;
        // SAFETY: a plain syscall on an open descriptor with no memory arguments. It only starts
        // asynchronous write-back so that the fsync at commit has less left to wait for; its
        // failure is harmless (the fsync reports real errors).
        unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
        Ok((FileEntry { len: data_len, crc32c: self.crc }, Unsynced { path: self.path, file }))
    }
}

/// A finished data file whose fsync is still owed (done at commit, before the manifest).
struct Unsynced {
    path: PathBuf,
    file: File,
}

impl Unsynced {
    fn sync(&self) -> Result<()> {
        self.file.sync_all().map_err(|e| Error::io(&self.path, "fsync", e))
    }
}

/// Builds a graph directory atomically.
pub struct GraphWriter {
    out: PathBuf,
    tmp: PathBuf,
    files: BTreeMap<String, FileEntry>,
    unsynced: Vec<Unsynced>,
    overwrite: bool,
    committed: bool,
}

impl GraphWriter {
    /// Starts writing the graph that will appear at `out`. Fails if `out` exists, unless
    /// `overwrite` is set (then it is replaced only at commit).
    pub fn create(out: &Path, overwrite: bool) -> Result<GraphWriter> {
        if out.exists() && !overwrite {
            return Err(Error::io(
                out,
                "create graph",
                std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "already exists (use --force to replace it)",
                ),
            ));
        }
        let name = out
            .file_name()
            .ok_or_else(|| Error::invalid(format!("'{}' is not a valid output path", out.display())))?;
        let parent = parent_dir(out);
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, "create directory", e))?;
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let tmp = parent.join(format!(".{}.tmp-{}-{nonce}", name.to_string_lossy(), std::process::id()));
        std::fs::create_dir(&tmp).map_err(|e| Error::io(&tmp, "create directory", e))?;
        Ok(GraphWriter {
            out: out.to_path_buf(),
            tmp,
            files: BTreeMap::new(),
            unsynced: Vec::new(),
            overwrite,
            committed: false,
        })
    }

    /// The temporary directory (scratch files may be placed in it; they are removed with it).
    pub fn temp_dir(&self) -> &Path {
        &self.tmp
    }

    /// Opens a streaming writer for `role`; hand it back with [`GraphWriter::add`].
    pub fn file(&self, role: FileRole) -> Result<FileWriter> {
        FileWriter::create(self.tmp.join(role.file_name()))
    }

    /// Finishes `writer` and records it as the file for `role`.
    pub fn add(&mut self, role: FileRole, writer: FileWriter) -> Result<()> {
        let (entry, file) = writer.finish()?;
        self.files.insert(role.file_name().to_string(), entry);
        self.unsynced.push(file);
        Ok(())
    }

    /// Writes a whole file for `role` from a slice.
    pub fn write_slice<T: bytemuck::Pod>(&mut self, role: FileRole, values: &[T]) -> Result<()> {
        let mut w = self.file(role)?;
        w.write_slice(values)?;
        self.add(role, w)
    }

    /// Writes the manifest (with the recorded file entries) and moves the directory into place.
    pub fn commit(mut self, mut manifest: Manifest) -> Result<()> {
        manifest.files = std::mem::take(&mut self.files);
        // Every data file is durable before the manifest that vouches for it exists.
        std::mem::take(&mut self.unsynced).par_iter().try_for_each(Unsynced::sync)?;
        let mpath = self.tmp.join(MANIFEST_FILE);
        {
            let mut f = File::create(&mpath).map_err(|e| Error::io(&mpath, "create", e))?;
            f.write_all(&manifest.to_bytes()).map_err(|e| Error::io(&mpath, "write", e))?;
            f.sync_all().map_err(|e| Error::io(&mpath, "fsync", e))?;
        }
        // Verify what we wrote parses back before publishing it.
        Manifest::read(&self.tmp)?;
        fsync_dir(&self.tmp)?;
        let parent = parent_dir(&self.out);
        let mut old = None;
        if self.out.exists() && self.overwrite {
            let trash = self.tmp.with_extension("old");
            std::fs::rename(&self.out, &trash).map_err(|e| Error::io(&self.out, "rename", e))?;
            old = Some(trash);
        }
        std::fs::rename(&self.tmp, &self.out).map_err(|e| Error::io(&self.out, "rename", e))?;
        self.committed = true;
        fsync_dir(&parent)?;
        if let Some(trash) = old {
            remove_path(&trash);
        }
        Ok(())
    }
}

impl Drop for GraphWriter {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

fn parent_dir(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn remove_path(p: &Path) {
    if p.is_dir() {
        let _ = std::fs::remove_dir_all(p);
    } else {
        let _ = std::fs::remove_file(p);
    }
}

/// fsyncs a directory so that renames and creations inside it are durable.
pub(crate) fn fsync_dir(dir: &Path) -> Result<()> {
    let f = File::open(dir).map_err(|e| Error::io(dir, "open directory", e))?;
    f.sync_all().map_err(|e| Error::io(dir, "fsync directory", e))
}
