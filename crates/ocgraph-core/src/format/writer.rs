//! Atomic creation of a graph directory: files are written into a temporary sibling directory
//! with their checksums computed on the way (write-back starts as each file is finished); at
//! commit every file is fsync'ed (in parallel), then the manifest is written last and the
//! directory renamed into place, then the parent directory is fsync'ed. An interrupted write
//! leaves only the temporary directory, which never opens as a graph.
//!
//! The temporary directory of a graph `DIR/NAME` is `DIR/.NAME.tmp-PID-NONCE` (PID: the writing
//! process). A process that is killed cannot remove it, so the next writer of the same graph,
//! and `ocgraph check` ([`remove_stale_temp_dirs`]), remove those whose process is gone.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::layout::{pad_len, FileRole};
use super::manifest::{FileEntry, Manifest, MANIFEST_FILE};
use super::weight_range::{WeightRange, WeightTally};
use crate::error::{Error, Result};

/// Streams one data file, computing its length and CRC-32C (and, for the out-weights, their
/// range).
pub struct FileWriter {
    path: PathBuf,
    out: BufWriter<File>,
    len: u64,
    crc: u32,
    weights: Option<WeightTally>,
}

impl FileWriter {
    fn create(path: PathBuf, weights: Option<WeightTally>) -> Result<FileWriter> {
        let f = File::create(&path).map_err(|e| Error::io(&path, "create", e))?;
        Ok(FileWriter { path, out: BufWriter::with_capacity(1 << 20, f), len: 0, crc: 0, weights })
    }

    /// Appends raw bytes.
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        if let Some(t) = &mut self.weights {
            t.add(bytes);
        }
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

    /// Pads to the alignment, flushes and starts the write-back; returns the manifest entry,
    /// the weights' range (out-weights only) and the file, which [`GraphWriter::commit`] fsyncs
    /// (all files in parallel) before the manifest.
    fn finish(mut self) -> Result<(FileEntry, Option<WeightRange>, Unsynced)> {
        let range = self.weights.take().and_then(|t| t.finish());
        let data_len = self.len;
        let pad = (pad_len(data_len) - data_len) as usize;
        self.write_bytes(&vec![0u8; pad])?;
        let file = self.out.into_inner().map_err(|e| Error::io(&self.path, "write", e.into_error()))?;
        // SAFETY: a plain syscall on an open descriptor with no memory arguments. It only starts
        // asynchronous write-back so that the fsync at commit has less left to wait for; its
        // failure is harmless (the fsync reports real errors).
        unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
        Ok((
            FileEntry { len: data_len, crc32c: self.crc, generation: None },
            range,
            Unsynced { path: self.path, file },
        ))
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
    weight_range: Option<WeightRange>,
    unsynced: Vec<Unsynced>,
    overwrite: bool,
    committed: bool,
    /// The directories above `out` that [`GraphWriter::create`] made, innermost first: removed
    /// again (when still empty) if the graph is never committed.
    made_parents: Vec<PathBuf>,
}

/// Refuses to replace `out` unless it is a graph directory (it has a manifest starting with
/// the manifest's magic bytes, whatever follows: a graph whose manifest is corrupt is still
/// replaced) holding only the graph's own entries, or an empty directory: `--force`
/// (`overwrite=True`) replaces a graph, never a file (the input itself, say), a directory of
/// other things or a user's file kept inside a graph directory, which it would delete.
fn refuse_replacing_other_things(out: &Path) -> Result<()> {
    let refuse = |what: &str| {
        Err(Error::io(
            out,
            "replace graph",
            std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{what}: --force (overwrite=True) replaces only a graph directory"),
            ),
        ))
    };
    if !out.is_dir() {
        return refuse("is a file, not a graph");
    }
    let manifest = out.join(super::manifest::MANIFEST_FILE);
    if manifest.is_file() {
        let mut magic = [0u8; 8];
        let read = File::open(&manifest).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic));
        if read.is_err() || &magic != super::manifest::MANIFEST_MAGIC {
            return refuse("is a directory whose file 'manifest' is no graph's, not a graph");
        }
        let foreign = crate::update::foreign_entries(out)?;
        return match foreign.as_slice() {
            [] => Ok(()),
            names => refuse(&format!(
                "is a graph directory that also holds {} not the graph's ({}); move {} out first",
                if names.len() == 1 { "a file" } else { "files" },
                quoted_list(names),
                if names.len() == 1 { "it" } else { "them" },
            )),
        };
    }
    let mut entries = std::fs::read_dir(out).map_err(|e| Error::io(out, "list directory", e))?;
    match entries.next() {
        None => Ok(()),
        Some(_) => refuse("is a directory with other files in it, not a graph"),
    }
}

/// `'a', 'b', 'c'`, with at most five names and a count of the rest.
fn quoted_list(names: &[String]) -> String {
    let mut shown: Vec<String> = names.iter().take(5).map(|n| format!("'{n}'")).collect();
    if names.len() > 5 {
        shown.push(format!("{} more", names.len() - 5));
    }
    shown.join(", ")
}

impl GraphWriter {
    /// Starts writing the graph that will appear at `out`. Fails if `out` exists, unless
    /// `overwrite` is set (then it is replaced only at commit).
    pub fn create(out: &Path, overwrite: bool) -> Result<GraphWriter> {
        if out.exists() && !overwrite {
            // A file or a directory of other things is never replaced: say so rather than
            // suggest --force.
            refuse_replacing_other_things(out)?;
            return Err(Error::io(
                out,
                "create graph",
                std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "already exists (use --force, or overwrite=True in Python, to replace it)",
                ),
            ));
        }
        let name = out
            .file_name()
            .ok_or_else(|| Error::invalid(format!("'{}' is not a valid output path", out.display())))?;
        if overwrite && out.exists() {
            refuse_replacing_other_things(out)?;
            // Refused now, before the work, when a writer has the graph open; checked again
            // under the lock at commit.
            drop(lock_existing_graph(out)?);
        }
        let parent = parent_dir(out);
        let made_parents: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
            .map(Path::to_path_buf)
            .collect();
        if let Err(e) = std::fs::create_dir_all(&parent) {
            remove_empty_dirs(&made_parents);
            return Err(Error::io(&parent, "create directory", e));
        }
        // Best effort: a directory that cannot be removed now is left for `ocgraph check`, which
        // reports the error.
        let _ = remove_stale_temp_dirs(out);
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let tmp = parent.join(format!(".{}.tmp-{}-{nonce}", name.to_string_lossy(), std::process::id()));
        if let Err(e) = std::fs::create_dir(&tmp) {
            remove_empty_dirs(&made_parents);
            return Err(Error::io(&tmp, "create directory", e));
        }
        Ok(GraphWriter {
            out: out.to_path_buf(),
            tmp,
            files: BTreeMap::new(),
            weight_range: None,
            unsynced: Vec::new(),
            overwrite,
            committed: false,
            made_parents,
        })
    }

    /// The temporary directory (scratch files may be placed in it; they are removed with it).
    pub fn temp_dir(&self) -> &Path {
        &self.tmp
    }

    /// Opens a streaming writer for `role`; hand it back with [`GraphWriter::add`].
    pub fn file(&self, role: FileRole) -> Result<FileWriter> {
        let tally = (role == FileRole::OutWeights).then(WeightTally::new);
        FileWriter::create(self.tmp.join(role.file_name()), tally)
    }

    /// Finishes `writer` and records it as the file for `role`.
    pub fn add(&mut self, role: FileRole, writer: FileWriter) -> Result<()> {
        let (entry, range, file) = writer.finish()?;
        if role == FileRole::OutWeights {
            self.weight_range = range;
        }
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

    /// Writes the manifest (with the recorded file entries and weight range) and moves the
    /// directory into place.
    pub fn commit(mut self, mut manifest: Manifest) -> Result<()> {
        manifest.files = std::mem::take(&mut self.files);
        manifest.weight_range = if manifest.weighted { self.weight_range } else { None };
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
        // A graph being replaced is locked as a writer would lock it, so that a process with
        // it open for updates does not go on writing acknowledged batches into a deleted graph.
        let _replacing = if self.overwrite { lock_existing_graph(&self.out)? } else { None };
        if self.out.exists() && self.overwrite {
            let trash = moved_aside(&self.tmp);
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
            remove_empty_dirs(&self.made_parents);
        }
    }
}

/// Removes the directories `dirs` (innermost first) in order, stopping at the first that is not
/// empty (another process put something there) or cannot be removed.
fn remove_empty_dirs(dirs: &[PathBuf]) {
    for d in dirs {
        if std::fs::remove_dir(d).is_err() {
            return;
        }
    }
}

/// A temporary directory left by a writer of a graph whose process is gone.
#[derive(Debug, Clone)]
pub struct StaleTempDir {
    /// The directory (removed).
    pub path: PathBuf,
    /// Bytes of the files it held.
    pub bytes: u64,
}

/// Removes the temporary directories that writers of the graph `out` left next to it when
/// their process died: `.NAME.tmp-PID-NONCE` (and `.NAME.tmp-PID-NONCE.old`, the previous
/// graph moved aside by an interrupted `--force` replace, once `out` exists again). A directory
/// whose process is alive (`kill(PID, 0)` succeeds or is refused with `EPERM`) is kept. If the
/// writer died between moving the old graph aside and moving the new one in (`out` missing,
/// both directories present), both are kept: they are the only copies.
pub fn remove_stale_temp_dirs(out: &Path) -> Result<Vec<StaleTempDir>> {
    let Some(name) = out.file_name() else { return Ok(Vec::new()) };
    let prefix = format!(".{}.tmp-", name.to_string_lossy());
    let parent = parent_dir(out);
    let entries = match std::fs::read_dir(&parent) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&parent, "list directory", e)),
    };
    let out_exists = out.exists();
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(&parent, "list directory", e))?;
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|f| f.strip_prefix(&prefix)) else { continue };
        let (stem, trash) = match rest.strip_suffix(".old") {
            Some(stem) => (stem, true),
            None => (rest, false),
        };
        let Some(pid) = stem.split_once('-').and_then(|(pid, _)| pid.parse::<i32>().ok()) else { continue };
        if pid <= 0 || process_alive(pid) {
            continue;
        }
        let path = entry.path();
        let keep = if trash {
            !out_exists
        } else {
            !out_exists && parent.join(format!("{}.old", file_name.to_string_lossy())).exists()
        };
        if keep || !path.is_dir() {
            continue;
        }
        let bytes = tree_bytes(&path);
        std::fs::remove_dir_all(&path)
            .map_err(|e| Error::io(&path, "remove stale temporary directory", e))?;
        removed.push(StaleTempDir { path, bytes });
    }
    Ok(removed)
}

/// The two copies an interrupted `--force` replace of the graph `out` left beside it when it
/// died between moving the previous graph aside and moving the new one in (`out` missing):
/// `(new, previous)`, or `None`. [`Manifest::read`](super::Manifest::read) names them when
/// `out` cannot be opened, so that the user knows the graph is not lost.
pub(crate) fn interrupted_replace(out: &Path) -> Option<(PathBuf, PathBuf)> {
    let prefix = format!(".{}.tmp-", out.file_name()?.to_string_lossy());
    let parent = parent_dir(out);
    std::fs::read_dir(&parent).ok()?.flatten().find_map(|entry| {
        let name = entry.file_name().into_string().ok()?;
        let new = parent.join(name.strip_suffix(".old").filter(|n| n.starts_with(&prefix))?);
        new.is_dir().then(|| (new, entry.path()))
    })
}

/// Where a `--force` replace moves the previous graph while it moves the temporary directory
/// `tmp` in: `tmp` with `.old` appended (the name [`remove_stale_temp_dirs`] recognises).
fn moved_aside(tmp: &Path) -> PathBuf {
    let mut name = tmp.file_name().unwrap_or_default().to_os_string();
    name.push(".old");
    tmp.with_file_name(name)
}

/// Whether process `pid` exists (a process of another user counts).
pub(crate) fn process_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists and may be signalled; no memory is
    // passed.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Bytes of the regular files under `path` (symbolic links not followed; unreadable entries
/// count 0).
fn tree_bytes(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return 0 };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path).map(|entries| entries.flatten().map(|e| tree_bytes(&e.path())).sum()).unwrap_or(0)
}

/// The directory holding `p` (`.` for a bare file name).
pub(super) fn parent_dir(p: &Path) -> PathBuf {
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

/// The writer lock of the graph at `out`, when `out` holds one (see
/// [`crate::update::lock_for_writing`]): an error when another handle has it open for updates.
fn lock_existing_graph(out: &Path) -> Result<Option<crate::update::WriterLock>> {
    if !out.join(MANIFEST_FILE).is_file() {
        return Ok(None);
    }
    crate::update::lock_for_replacing(out).map(Some)
}

/// fsyncs a directory so that renames and creations inside it are durable.
pub(crate) fn fsync_dir(dir: &Path) -> Result<()> {
    let f = File::open(dir).map_err(|e| Error::io(dir, "open directory", e))?;
    f.sync_all().map_err(|e| Error::io(dir, "fsync directory", e))
}

/// `path` made absolute against the working directory (without resolving links), so that a
/// graph opened by a relative path stays the same graph after the process changes directory.
pub(crate) fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).map_err(|e| Error::io(path, "resolve", e))
}
