//! The writer lock of a graph directory ([`WRITER_LOCK`]): one writer at a time, in this
//! process or another, and what a failed write left removed before the next one starts.

use std::path::Path;

use super::graph_entries::is_temporary_data_file;
use crate::error::{Error, Result};
use crate::format::{FileRole, Manifest, MANIFEST_FILE};

/// The file in a graph directory that a graph open for updates holds an exclusive lock on
/// (`flock`): a second writer, in this process or another, is refused instead of interleaving
/// its batches with the first one's in the WAL. The lock goes with the last handle of the
/// file, so a crashed writer leaves none; the empty file itself stays.
pub const WRITER_LOCK: &str = "writer.lock";

/// Opens and locks `<dir>/writer.lock` (see [`WRITER_LOCK`]): every change of a graph directory
/// (updates, and the layouts and labels written beside the base) holds it while it writes. A
/// path that holds no graph gets no lock file: the error is the one opening it gives.
pub(crate) fn lock_for_writing(dir: &Path) -> Result<WriterLock> {
    if !dir.join(MANIFEST_FILE).is_file() {
        Manifest::read(dir)?;
    }
    let file = lock_for_replacing(dir)?;
    remove_unlisted_files(dir)?;
    Ok(file)
}

/// Opens and locks `<dir>/writer.lock` (refused while another handle holds it) and reads
/// nothing else in `dir`: what replacing a whole graph (`--force`) needs, even of a directory
/// whose manifest does not read.
pub(crate) fn lock_for_replacing(dir: &Path) -> Result<WriterLock> {
    let path = dir.join(WRITER_LOCK);
    let open = || {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, "open the writer lock", e))
    };
    let mut file = open()?;
    for _ in 0..LOCK_ATTEMPTS {
        match lock_opened(dir, &path, file)? {
            Some(locked) => return Ok(WriterLock { file: locked, owner: crate::process::current_process() }),
            None => file = open()?,
        }
    }
    Err(Error::invalid(format!(
        "{}: the graph directory was replaced {LOCK_ATTEMPTS} times while its writer lock was taken",
        dir.display()
    )))
}

/// A held writer lock (see [`WRITER_LOCK`]). Dropped in the process that took it, it unlocks
/// the file explicitly: a `flock` belongs to the open file, which a child forked meanwhile
/// (any thread's `Command::spawn` or `subprocess`, until the child's `exec`) keeps open with
/// its copy of the descriptor, so closing ours alone could leave the next writer refused. A
/// forked child's copy never unlocks: the lock is its parent's.
#[derive(Debug)]
pub(crate) struct WriterLock {
    file: std::fs::File,
    owner: u32,
}

impl WriterLock {
    /// Whether `path` still names the locked file (not moved away or replaced since).
    pub(crate) fn is_at(&self, path: &Path) -> bool {
        is_file_at(&self.file, path)
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        if crate::process::current_process() == self.owner {
            let _ = self.file.unlock();
        }
    }
}

/// Times [`lock_for_replacing`] opens the lock file again after finding it replaced.
const LOCK_ATTEMPTS: usize = 100;

/// Locks `file`, opened as `path` (`<dir>/writer.lock`); `None` when `path` no longer names
/// that file once it is locked: a graph replaced between the open and the lock (`import
/// --force` renames the old directory away) left it a lock on the old graph's file, which
/// guards nothing.
fn lock_opened(dir: &Path, path: &Path, file: std::fs::File) -> Result<Option<std::fs::File>> {
    match file.try_lock() {
        Ok(()) if is_file_at(&file, path) => Ok(Some(file)),
        Ok(()) => Ok(None),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::invalid(format!(
            "{}: the graph is already open for updates (by this process or another); \
             close that handle first (one writer at a time; readers may open it meanwhile)",
            dir.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(path, "lock the writer lock", e)),
    }
}

/// Whether `path` names the open file `file` (the same device and inode).
fn is_file_at(file: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// `result`, after removing the files a failed layout, label or pack write left (see
/// [`remove_unlisted_files`]) when it is an error; the writer lock must be held.
pub(crate) fn removing_leftovers_on_error<T>(dir: &Path, result: Result<T>) -> Result<T> {
    if result.is_err() {
        let _ = remove_unlisted_files(dir);
    }
    result
}

/// Removes what an interrupted or failed layout, label or pack write left in the data
/// directory of the graph at `dir` (the writer lock is held, so no such write is running):
/// temporary files of graph files (`NAME.tmp`, `NAME.raw.tmp`, ...), and graph files the manifest does not list
/// (renamed into place by a write that stopped before the manifest named them).
fn remove_unlisted_files(dir: &Path) -> Result<()> {
    let m = Manifest::read(dir)?;
    let data = m.data_path(dir);
    let Ok(entries) = std::fs::read_dir(&data) else { return Ok(()) };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let temporary = is_temporary_data_file(&name);
        let unlisted = FileRole::from_stored_name(&name)
            .is_some_and(|r| m.stored_name(r).as_deref() != Some(name.as_str()));
        if temporary || unlisted {
            std::fs::remove_file(e.path()).map_err(|err| Error::io(e.path(), "remove leftover file", err))?;
        }
    }
    Ok(())
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_on_a_replaced_lock_file_is_not_taken() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, path) = (tmp.path(), tmp.path().join(WRITER_LOCK));
        std::fs::write(&path, b"").unwrap();
        // Opened before the graph was replaced (its directory renamed away, another in its
        // place), locked after: the lock guards the old graph's file, not this graph.
        let stale = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::fs::rename(&path, dir.join("old.lock")).unwrap();
        assert!(lock_opened(dir, &path, stale).unwrap().is_none());
        let held = lock_for_replacing(dir).unwrap();
        assert!(is_file_at(&held.file, &path));
        let again = lock_for_replacing(dir).unwrap_err().to_string();
        assert!(again.contains("already open for updates"), "{again}");
    }
}
