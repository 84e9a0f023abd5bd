//! The narrow file interface the WAL writes through, so tests can inject faults (short
//! writes, a full disk, failing fsync) without touching the real file system.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// One open WAL segment. Methods take `&self`: the group-commit leader fsyncs while the next
/// batch is being written.
pub trait LogFile: Send + Sync {
    /// Writes `buf` at byte `offset`; may write fewer bytes (the WAL retries the rest).
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<usize>;
    /// Makes everything written so far durable (`fdatasync`).
    fn sync(&self) -> io::Result<()>;
    /// Truncates the file to `len` bytes (drops a failed or torn frame).
    fn set_len(&self, len: u64) -> io::Result<()>;
}

/// Creates segment files; [`StdLogFs`] uses the real file system.
pub trait LogFs: Send + Sync {
    /// Opens `path` for writing, creating it if missing (existing contents are kept).
    fn open(&self, path: &Path) -> io::Result<Arc<dyn LogFile>>;
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct StdLogFs;

struct StdLogFile(File);

impl LogFile for StdLogFile {
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.0.write_at(buf, offset)
    }

    fn sync(&self) -> io::Result<()> {
        self.0.sync_data()
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }
}

impl LogFs for StdLogFs {
    fn open(&self, path: &Path) -> io::Result<Arc<dyn LogFile>> {
        let f = OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
        Ok(Arc::new(StdLogFile(f)))
    }
}

/// The log of a reader, which never appends: opening a segment touches no file (so a graph on
/// a read-only file system can be read), and any write fails.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ReadOnlyLogFs;

struct ReadOnlyLogFile;

impl LogFile for ReadOnlyLogFile {
    fn write_at(&self, _buf: &[u8], _offset: u64) -> io::Result<usize> {
        Err(read_only())
    }

    fn sync(&self) -> io::Result<()> {
        Ok(())
    }

    fn set_len(&self, _len: u64) -> io::Result<()> {
        Err(read_only())
    }
}

fn read_only() -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, "the log was opened for reading")
}

impl LogFs for ReadOnlyLogFs {
    fn open(&self, _path: &Path) -> io::Result<Arc<dyn LogFile>> {
        Ok(Arc::new(ReadOnlyLogFile))
    }
}
