//! Reading pages from the graph files: O_DIRECT when the file system allows it, otherwise
//! buffered `pread` followed by `posix_fadvise(DONTNEED)` so the OS page cache does not keep a
//! second copy of what the pool holds. Writable files (see [`PoolFile::open_writable`]) are
//! written back with `pwritev` from the frames.

use std::cell::Cell;
use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::blocks::Blocks;
use crate::error::{Error, Result};
use crate::page::CompressedFile;

/// How many [`catch_read_errors`] scopes are running in the process. A failed page read on a
/// thread inside a scope, or on a rayon worker while any scope runs (a worker the scope's
/// caller may be waiting for: the join carries the payload to the caller), unwinds with a
/// [`ReadFailure`] payload (through `resume_unwind`, so no panic hook prints it), which the
/// scope returns as an error. On any other thread it panics naming the file and offset, so a
/// thread of the embedding program that reads while another thread is in a scope still gets
/// the message.
static SCOPES: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// How many [`catch_read_errors`] scopes (and [`carry_read_errors`] calls) this thread is
    /// inside.
    static THREAD_SCOPES: Cell<usize> = const { Cell::new(0) };
}

/// The payload a failed page read unwinds with inside [`catch_read_errors`].
struct ReadFailure(Error);

/// Runs `f` (which may read through a buffer pool, on this thread or on worker threads it
/// joins) and returns a failed page read as an [`Error::Io`] naming the file and offset,
/// instead of the panic an infallible page read otherwise raises. The pool gives back the
/// frames and unlocks the pages of a failed read as it unwinds. Other panics pass through unchanged. The CLI and the Python bindings run every
/// command and call inside one.
pub fn catch_read_errors<R>(f: impl FnOnce() -> R) -> Result<R> {
    SCOPES.fetch_add(1, Ordering::SeqCst);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| carry_read_errors(f)));
    SCOPES.fetch_sub(1, Ordering::SeqCst);
    match r {
        Ok(v) => Ok(v),
        Err(payload) => match payload.downcast::<ReadFailure>() {
            Ok(failure) => Err(failure.0),
            Err(payload) => std::panic::resume_unwind(payload),
        },
    }
}

/// Runs `f` on a thread that a caller inside [`catch_read_errors`] started and joins, passing
/// on its panic (`resume_unwind`): a failed page read in `f` unwinds with the payload that the
/// caller's scope returns as an error, as it does on the scope's own thread and on rayon's
/// workers, instead of panicking with a message on a thread of its own.
pub fn carry_read_errors<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            THREAD_SCOPES.with(|d| d.set(d.get() - 1));
        }
    }
    THREAD_SCOPES.with(|d| d.set(d.get() + 1));
    let _leave = Leave;
    f()
}

/// A failed page read of `path` at `offset`: inside [`catch_read_errors`] it unwinds to it,
/// elsewhere it panics naming the file and offset (see `PageSource::read`).
pub(super) fn read_failed(path: &Path, offset: u64, e: std::io::Error) -> ! {
    let e = std::io::Error::new(e.kind(), format!("at offset {offset}: {e}"));
    fail_read(Error::io(path, "read", e))
}

/// A page read that cannot complete, for the reason `err`: inside [`catch_read_errors`] it
/// unwinds to it, elsewhere it panics with the message of `err`.
pub(super) fn fail_read(err: Error) -> ! {
    let in_scope = THREAD_SCOPES.with(|d| d.get() > 0);
    if in_scope || (SCOPES.load(Ordering::SeqCst) > 0 && rayon::current_thread_index().is_some()) {
        std::panic::resume_unwind(Box::new(ReadFailure(err)));
    }
    panic!("ocgraph: {err}")
}

/// Asks the OS to drop bytes `[offset, offset + len)` of `file` from its page cache (the pool
/// holds what it read, so the cache need not keep a second copy).
pub(super) fn drop_from_page_cache(file: &File, offset: u64, len: u64) {
    // SAFETY: advisory syscall on an open descriptor; failures are harmless.
    unsafe {
        libc::posix_fadvise(
            file.as_raw_fd(),
            offset as libc::off_t,
            len as libc::off_t,
            libc::POSIX_FADV_DONTNEED,
        );
    }
}

/// The most buffers one `preadv` takes (Linux's `IOV_MAX`).
pub(super) const MAX_IOV: usize = 1024;

/// The iovecs of `bufs` (pointer, length) in order, each run of buffers that follow each other
/// in memory merged into one iovec. Frames read ahead together are mostly adjacent; the kernel
/// handles one large iovec faster than many small ones (a 1 MiB direct read into 256 separate
/// 4 KiB iovecs ran 33% slower than into one 1 MiB iovec on this VM).
pub(super) fn merged_iovecs(bufs: impl Iterator<Item = (*mut u8, usize)>) -> Vec<libc::iovec> {
    let mut iov: Vec<libc::iovec> = Vec::new();
    for (ptr, len) in bufs {
        if let Some(last) = iov.last_mut() {
            if (last.iov_base as usize).wrapping_add(last.iov_len) == ptr as usize {
                last.iov_len += len;
                continue;
            }
        }
        iov.push(libc::iovec { iov_base: ptr as *mut libc::c_void, iov_len: len });
    }
    iov
}

/// One open graph file.
pub(super) struct PoolFile {
    pub(super) path: PathBuf,
    file: File,
    /// The size the manifest gives (verified at open): reads must get every byte below it.
    len: u64,
    /// Opened with O_DIRECT.
    pub(super) direct: bool,
    /// The compressed copy the pages are read from instead of `file` (then not direct).
    blocks: Option<Blocks>,
}

impl PoolFile {
    /// Opens `path`, with O_DIRECT when possible. `probe` is a 4096-aligned scratch buffer of at
    /// least 4096 bytes used to check that direct reads really work (some file systems accept
    /// the flag at open and reject the reads).
    pub(super) fn open(path: &Path, len: u64, probe: &mut [u8]) -> Result<PoolFile> {
        let direct = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path);
        if let Ok(file) = direct {
            let mut f = PoolFile { path: path.to_path_buf(), file, len, direct: true, blocks: None };
            if len == 0 || f.pread(&mut probe[..4096], 0).is_ok() {
                return Ok(f);
            }
            f.direct = false;
        }
        let file = File::open(path).map_err(|e| Error::io(path, "open", e))?;
        Ok(PoolFile { path: path.to_path_buf(), file, len, direct: false, blocks: None })
    }

    /// Opens the plain file of `len` bytes to be served from its compressed copy `c`: its
    /// pages are read by decoding blocks (see [`Blocks`]), never with O_DIRECT or io_uring.
    pub(super) fn open_compressed(c: &CompressedFile, len: u64) -> Result<PoolFile> {
        let blocks = Blocks::open(c)?;
        let file = File::open(&c.path).map_err(|e| Error::io(&c.path, "open", e))?;
        Ok(PoolFile { path: blocks.path().to_path_buf(), file, len, direct: false, blocks: Some(blocks) })
    }

    /// The logical block size of the compressed copy the pages are read from, if any.
    pub(super) fn block_size(&self) -> Option<u64> {
        self.blocks.as_ref().map(Blocks::block_size)
    }

    /// The file's descriptor, for reads queued on a [`Ring`](super::ring::Ring).
    pub(super) fn raw_fd(&self) -> i32 {
        self.file.as_raw_fd()
    }

    /// One `pread` (retrying on EINTR).
    fn pread(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the duration of the call.
            let n = unsafe {
                libc::pread(
                    self.file.as_raw_fd(),
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                    offset as libc::off_t,
                )
            };
            if n >= 0 {
                return Ok(n as usize);
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }

    /// Reads consecutive pages starting at `offset` into `bufs` (whole frames, 4096-aligned) with
    /// one `preadv` per [`MAX_IOV`] pages. Pages it did not fill completely (end of file, short
    /// read, error) are read again one by one with [`PoolFile::read_page`]. Returns bytes read
    /// and read calls.
    pub(super) fn read_pages(&self, bufs: &mut [&mut [u8]], offset: u64) -> (usize, u64) {
        if let Some(b) = &self.blocks {
            return b.read_pages(bufs, offset);
        }
        let (mut total, mut calls) = (0, 0);
        let mut off = offset;
        for chunk in bufs.chunks_mut(MAX_IOV) {
            let len: usize = chunk.iter().map(|b| b.len()).sum();
            let (t, c) = self.read_run(chunk, off);
            total += t;
            calls += c;
            off += len as u64;
        }
        (total, calls)
    }

    /// [`PoolFile::read_pages`] for at most [`MAX_IOV`] pages.
    fn read_run(&self, bufs: &mut [&mut [u8]], offset: u64) -> (usize, u64) {
        if bufs.len() == 1 {
            return self.read_page(bufs[0], offset);
        }
        let iov = merged_iovecs(bufs.iter_mut().map(|b| (b.as_mut_ptr(), b.len())));
        // SAFETY: every iovec covers distinct frames valid for writes of its length, owned
        // exclusively by the caller for the duration of the call.
        let n = unsafe {
            libc::preadv(self.file.as_raw_fd(), iov.as_ptr(), iov.len() as libc::c_int, offset as libc::off_t)
        };
        let n = n.max(0) as usize;
        let (mut total, mut calls) = (0, 1);
        let mut page_off = 0;
        for b in bufs.iter_mut() {
            let len = b.len();
            if page_off + len <= n {
                total += len;
            } else {
                let (t, c) = self.read_page(b, offset + page_off as u64);
                total += t;
                calls += c;
            }
            page_off += len;
        }
        if !self.direct && n > 0 {
            drop_from_page_cache(&self.file, offset, n as u64);
        }
        (total, calls)
    }

    /// Fills `buf` (a whole frame, 4096-aligned) from `offset`; bytes past the file's expected
    /// length (the last frame of a file whose size is not a multiple of the page size) are
    /// zeroed. Returns the number of bytes read and the number of `pread` calls.
    ///
    /// Panics on an I/O error, or when the file ends before its expected length (it was
    /// truncated after open), naming the file and offset (see `PageSource::read`); inside
    /// [`catch_read_errors`] unwinds to it with the error instead.
    pub(super) fn read_page(&self, buf: &mut [u8], offset: u64) -> (usize, u64) {
        if let Some(b) = &self.blocks {
            return b.read_pages(&mut [buf], offset);
        }
        let mut done = 0;
        let mut calls = 0;
        while done < buf.len() {
            let n = self
                .pread(&mut buf[done..], offset + done as u64)
                .unwrap_or_else(|e| read_failed(&self.path, offset, e));
            calls += 1;
            if n == 0 {
                break;
            }
            done += n;
            // A short direct read ends at end of file; the next one would be misaligned.
            if self.direct && !done.is_multiple_of(4096) {
                break;
            }
        }
        let expected = self.len.saturating_sub(offset).min(buf.len() as u64) as usize;
        if done < expected {
            let msg = format!(
                "file is shorter than the manifest says: truncated after open? (got {done} of {expected} bytes)"
            );
            read_failed(
                &self.path,
                offset + done as u64,
                std::io::Error::new(std::io::ErrorKind::UnexpectedEof, msg),
            );
        }
        buf[done..].fill(0);
        if !self.direct && done > 0 {
            drop_from_page_cache(&self.file, offset, done as u64);
        }
        (done, calls)
    }
}

impl PoolFile {
    /// Opens (creating it if missing) the writable file `path` and extends it, sparse, to `len`
    /// bytes (a multiple of 4096) when shorter; with O_DIRECT when possible (`probe` as in
    /// [`PoolFile::open`]).
    pub(super) fn open_writable(path: &Path, len: u64, probe: &mut [u8]) -> Result<PoolFile> {
        let mut opts = std::fs::OpenOptions::new();
        opts.read(true).write(true).create(true).truncate(false);
        let file = opts.open(path).map_err(|e| Error::io(path, "open", e))?;
        let on_disk = file.metadata().map_err(|e| Error::io(path, "stat", e))?.len();
        if on_disk < len {
            file.set_len(len).map_err(|e| Error::io(path, "set_len", e))?;
        }
        drop(file);
        if let Ok(file) = opts.custom_flags(libc::O_DIRECT).open(path) {
            let f = PoolFile { path: path.to_path_buf(), file, len, direct: true, blocks: None };
            if len == 0 || f.pread(&mut probe[..4096], 0).is_ok() {
                return Ok(f);
            }
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, "open", e))?;
        Ok(PoolFile { path: path.to_path_buf(), file, len, direct: false, blocks: None })
    }

    /// Writes `bufs` (whole frames, 4096-aligned) to consecutive pages from `offset`, with one
    /// `pwritev` per [`MAX_IOV`] frames (more only after a short write). Returns the write calls
    /// made, each with its offset, in order.
    pub(super) fn write_pages(&self, bufs: &[&[u8]], offset: u64) -> std::io::Result<Vec<(u64, usize)>> {
        let mut calls = Vec::new();
        let mut off = offset;
        for chunk in bufs.chunks(MAX_IOV) {
            let mut iov = merged_iovecs(chunk.iter().map(|b| (b.as_ptr() as *mut u8, b.len())));
            let mut first = 0;
            while first < iov.len() {
                let rest = &iov[first..];
                // SAFETY: every iovec covers frames valid for reads of its length; the caller
                // keeps those frames unmodified (pinned or locked) for the duration of the call.
                let n = unsafe {
                    libc::pwritev(
                        self.file.as_raw_fd(),
                        rest.as_ptr(),
                        rest.len() as libc::c_int,
                        off as libc::off_t,
                    )
                };
                if n < 0 {
                    let err = std::io::Error::last_os_error();
                    if err.kind() == std::io::ErrorKind::Interrupted {
                        continue;
                    }
                    return Err(err);
                }
                if n == 0 {
                    return Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "pwritev wrote nothing"));
                }
                let mut n = n as usize;
                calls.push((off, n));
                off += n as u64;
                // Skip the buffers written completely; resume inside a partly written one.
                while n > 0 {
                    let b = &mut iov[first];
                    if n >= b.iov_len {
                        n -= b.iov_len;
                        first += 1;
                    } else {
                        // SAFETY: advancing within the same iovec by fewer bytes than its length.
                        b.iov_base = unsafe { (b.iov_base as *mut u8).add(n) } as *mut libc::c_void;
                        b.iov_len -= n;
                        n = 0;
                    }
                }
            }
        }
        if !self.direct {
            drop_from_page_cache(&self.file, offset, off - offset);
        }
        Ok(calls)
    }

    /// Flushes the file's data to stable storage (`fdatasync`).
    pub(super) fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io(&self.path, "fdatasync", e))
    }
}
