//! The current process's id without a system call per query: cached, and cleared in a forked
//! child by a `pthread_atfork` handler. Writers check it on every commit (a forked child must
//! not write through its parent's handle), where `getpid` would add a system call to every
//! single-edge update.

use std::sync::atomic::{AtomicU32, Ordering};
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
