//! The current process's id without a system call per query: cached, and cleared in a forked
//! child by a `pthread_atfork` handler. Writers check it on every commit (a forked child must
//! not write through its parent's handle), where `getpid` would add a system call to every
//! single-edge update. And [`report_oversized_writes`], which a program calls once at start,
//! and [`note_closed_stdout`], which it runs before its runtime starts.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Once;

/// The cached id; 0 when not known yet (or just forked).
static PID: AtomicU32 = AtomicU32::new(0);
static FORK_HOOK: Once = Once::new();

extern "C" fn forget_in_child() {
    PID.store(0, Ordering::Relaxed);
}

/// The id of the calling process.
pub fn current_process() -> u32 {
    FORK_HOOK.call_once(|| {
        // SAFETY: registers a child-side fork handler that only stores to an atomic (safe to
        // run in a freshly forked child); no pointers are passed.
        unsafe {
            libc::pthread_atfork(None, None, Some(forget_in_child));
        }
    });
    match PID.load(Ordering::Relaxed) {
        0 => {
            let pid = std::process::id();
            PID.store(pid, Ordering::Relaxed);
            pid
        }
        pid => pid,
    }
}

/// Makes a write past the file-size limit (`ulimit -f`) fail with `EFBIG`, an error naming
/// the file, instead of the `SIGXFSZ` that would kill the process without a word (Python
/// ignores the signal already; the command-line tool calls this first).
pub fn report_oversized_writes() {
    // SAFETY: sets the disposition of one signal to "ignore"; no handler code runs, and
    // nothing else in the process depends on SIGXFSZ.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Whether descriptor 1 was closed when the process started, as [`note_closed_stdout`] saw it.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Records whether the process started with its standard output closed (`cmd >&-`). Rust's
/// runtime then opens `/dev/null` as descriptor 1 before `main`, so that what a command writes
/// to `-` would be lost with a success status; a program runs this earlier, from its
/// `.init_array`, and [`stdout_was_closed`] tells what it saw.
pub extern "C" fn note_closed_stdout() {
    // SAFETY: `fcntl(F_GETFD)` only reads descriptor 1's flags (or fails with EBADF); it takes
    // no pointer and changes nothing.
    if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Whether [`note_closed_stdout`] found standard output closed at the start (false where the
/// program does not run it).
pub fn stdout_was_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

/// A thread started by process `owner`, joined when dropped in that process. A forked child
/// has none of its parent's threads: joining one there fails (std panics), so the child lets
/// the handle go instead.
pub struct OwnedThread<T> {
    handle: Option<std::thread::JoinHandle<T>>,
    owner: u32,
}

impl<T> OwnedThread<T> {
    /// `handle`, started by the calling process.
    pub fn new(handle: std::thread::JoinHandle<T>) -> OwnedThread<T> {
        OwnedThread { handle: Some(handle), owner: current_process() }
    }

    /// Whether the thread has finished (true in a forked child: it has no such thread).
    pub fn is_finished(&self) -> bool {
        current_process() != self.owner || self.handle.as_ref().is_none_or(|h| h.is_finished())
    }

    /// Waits for the thread in its own process; `None` in a forked child or when it panicked.
    pub fn join(mut self) -> Option<T> {
        let h = self.handle.take()?;
        if current_process() != self.owner {
            std::mem::forget(h);
            return None;
        }
        h.join().ok()
    }
}

impl<T> Drop for OwnedThread<T> {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            if current_process() == self.owner {
                let _ = h.join();
            } else {
                std::mem::forget(h);
            }
        }
    }
}
