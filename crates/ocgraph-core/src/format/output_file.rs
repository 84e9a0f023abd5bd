//! Result files written whole or not at all: [`OutputFile`] writes beside the destination and
//! renames over it on [`OutputFile::commit`], so a failure (a full disk) leaves the previous
//! file, or none, never a truncated one. A symbolic link to a regular file is followed: the
//! file it names is replaced so, and the link kept. Any other existing link, a pipe or a device
//! is written through instead, never replaced; the process's own standard output and error
//! (`/dev/stdout`, `/dev/fd/1`, ...) are written through their descriptors, at their offsets,
//! so that a shell's `>>` appends and what was written before is kept.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::writer::{fsync_dir, parent_dir, process_alive};
use crate::error::{Error, Result};

/// Numbers the temporary files of this process, so that two writers of one path (two threads)
/// never share one.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// A file being written to `path`; see the module docs. Dropped without a commit, it removes
/// what it wrote.
pub struct OutputFile {
    path: PathBuf,
    /// Where the bytes go: a temporary file and the file the commit renames it over (`path`, or
    /// the file a link at `path` names), or `None`: `path` itself (written through).
    tmp: Option<(PathBuf, PathBuf)>,
    out: BufWriter<File>,
}

impl OutputFile {
    /// Starts writing the file that [`OutputFile::commit`] will put at `path`: a regular file
    /// is written to `.NAME.tmp-PID-N` beside it first.
    pub fn create(path: &Path) -> Result<OutputFile> {
        if let Some(file) = standard_stream(path) {
            let file = file.map_err(|e| Error::io(path, "open", e))?;
            return Ok(OutputFile {
                path: path.to_path_buf(),
                tmp: None,
                out: BufWriter::with_capacity(1 << 20, file),
            });
        }
        let dest = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() && std::fs::metadata(path).is_ok_and(|t| t.is_file()) => {
                Some(std::fs::canonicalize(path).map_err(|e| Error::io(path, "resolve", e))?)
            }
            Ok(m) if !m.file_type().is_file() => None,
            _ => Some(path.to_path_buf()),
        };
        // A file already there keeps its permissions, and one without write permission is not
        // replaced (as a shell's `>` would not write it).
        let existing = dest.as_deref().and_then(|d| std::fs::metadata(d).ok()).filter(|m| m.is_file());
        if existing.as_ref().is_some_and(|m| m.permissions().readonly()) {
            return Err(Error::io(
                path,
                "replace",
                std::io::Error::new(std::io::ErrorKind::PermissionDenied, "the file is read-only"),
            ));
        }
        let tmp = match dest {
            Some(dest) => {
                let name = dest.file_name().ok_or_else(|| {
                    Error::invalid(format!("'{}' does not name a file to write", path.display()))
                })?;
                remove_stale_temps(&dest, &name.to_string_lossy());
                let nonce = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
                let tmp = dest.with_file_name(format!(
                    ".{}.tmp-{}-{nonce}",
                    name.to_string_lossy(),
                    std::process::id()
                ));
                Some((tmp, dest))
            }
            None => None,
        };
        let target = tmp.as_ref().map_or(path, |(tmp, _)| tmp.as_path());
        let file = File::create(target).map_err(|e| Error::io(path, "create", e))?;
        if let Some(m) = existing {
            // Its owner and group too, as far as this process may give them (a file replaced by
            // root stays its owner's; one shared with a group stays the group's), then its mode.
            use std::os::unix::fs::MetadataExt;
            if std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid())).is_err() {
                let _ = std::os::unix::fs::fchown(&file, None, Some(m.gid()));
            }
            file.set_permissions(m.permissions())
                .map_err(|e| Error::io(path, "set the permissions of", e))?;
        }
        Ok(OutputFile { path: path.to_path_buf(), tmp, out: BufWriter::with_capacity(1 << 20, file) })
    }

    /// The destination path (for error messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes`, naming the destination in an error.
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let path = &self.path;
        self.out.write_all(bytes).map_err(|e| Error::io(path, "write", e))
    }

    /// Flushes, makes the file durable (a regular file: fsync, rename over the destination,
    /// fsync of its directory) and puts it in place.
    pub fn commit(mut self) -> Result<()> {
        let path = self.path.clone();
        self.out.flush().map_err(|e| Error::io(&path, "write", e))?;
        let Some((tmp, dest)) = self.tmp.take() else {
            return Ok(()); // written through a pipe or device: nothing to sync or rename
        };
        let result = (|| {
            self.out.get_ref().sync_all().map_err(|e| Error::io(&tmp, "fsync", e))?;
            std::fs::rename(&tmp, &dest).map_err(|e| Error::io(&path, "rename", e))?;
            fsync_dir(&parent_dir(&dest))
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }

    /// Writes `bytes` as the whole file at `path`.
    pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
        let mut f = OutputFile::create(path)?;
        f.write_bytes(bytes)?;
        f.commit()
    }
}

/// Removes the temporary files `.NAME.tmp-PID-N` beside `dest` that processes no longer running
/// left (a run killed before its commit); those of running processes stay, as for the
/// temporary directories of graph writers ([`super::writer::remove_stale_temp_dirs`]).
fn remove_stale_temps(dest: &Path, name: &str) {
    let prefix = format!(".{name}.tmp-");
    let Ok(entries) = std::fs::read_dir(parent_dir(dest)) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file.to_str().and_then(|f| f.strip_prefix(&prefix)) else { continue };
        let Some((pid, nonce)) = rest.split_once('-') else { continue };
        let Ok(pid) = pid.parse::<i32>() else { continue };
        let gone = pid > 0 && nonce.parse::<u64>().is_ok() && !process_alive(pid);
        if gone && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether `path` names the process's standard output (`-`, `/dev/stdout`, `/dev/fd/1`, ...).
pub fn names_standard_output(path: &Path) -> bool {
    matches!(path.to_str(), Some("-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1"))
}

/// The error of a write to a standard output that was closed when the process started.
pub(super) fn closed_stdout() -> std::io::Error {
    std::io::Error::other("standard output is closed")
}

/// A copy of the process's standard output or error descriptor when `path` names it (flushing
/// what was printed through it first), else `None`.
fn standard_stream(path: &Path) -> Option<std::io::Result<File>> {
    let fd = if names_standard_output(path) {
        if crate::process::stdout_was_closed() {
            return Some(Err(closed_stdout()));
        }
        let out = std::io::stdout();
        out.lock().flush().and_then(|_| out.as_fd().try_clone_to_owned())
    } else if matches!(path.to_str()?, "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2") {
        std::io::stderr().as_fd().try_clone_to_owned()
    } else {
        return None;
    };
    Some(fd.map(File::from))
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some((tmp, _)) = &self.tmp {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};

    use super::*;

    /// A file written over keeps its mode (a private file stayed private: the new one was
    /// created 0644); a read-only one is refused and left as it was.
    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_read_only_one_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("private.txt");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        let mut f = OutputFile::create(&p).unwrap();
        f.write_bytes(b"new").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = OutputFile::create(&p).err().expect("refused").to_string();
        assert!(e.contains("private.txt") && e.contains("read-only"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn temporary_files_of_processes_gone_are_removed() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("out.txt");
        // A pid above the kernel's limit (2^22) never runs; this process's own does.
        let gone = t.path().join(".out.txt.tmp-2000000000-0");
        let live = t.path().join(format!(".out.txt.tmp-{}-99", std::process::id()));
        let other = t.path().join(".other.txt.tmp-2000000000-0");
        for f in [&gone, &live, &other] {
            std::fs::write(f, "partial").unwrap();
        }
        OutputFile::write_whole(&p, b"done").unwrap();
        assert!(!gone.exists());
        assert!(live.exists() && other.exists());
        assert_eq!(std::fs::read(&p).unwrap(), b"done");
    }

    #[test]
    fn a_commit_replaces_the_file_and_a_drop_keeps_the_old_one() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("out.txt");
        std::fs::write(&p, "old").unwrap();
        let mut f = OutputFile::create(&p).unwrap();
        f.write_bytes(b"new, half").unwrap();
        drop(f);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1, "the temporary file is removed");
        OutputFile::write_whole(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_device_is_written_through() {
        OutputFile::write_whole(Path::new("/dev/null"), b"bytes").unwrap();
        assert!(std::fs::symlink_metadata("/dev/null").unwrap().file_type().is_char_device());
    }
}
