//! Background write-back for [`WriteBack::BatchBackground`](super::WriteBack::BatchBackground)
//! pools.
//!
//! When a write makes more than half of the frames dirty, it wakes the flusher thread (started
//! on first use, holding a weak reference to the pool, exiting when the pool is dropped). The
//! flusher writes the longest dirty run, leaving its hot end dirty as the foreground batch
//! does, and marks the pages written **clean but resident**: a later foreground miss then
//! finds clean victims for the policy instead of writing a whole run back itself. It repeats
//! while more than half of the frames are dirty and a run of at least two pages with a cold
//! part exists (single pages are left to the foreground: writing them cannot be sequential).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{OnceLock, Weak};

use super::Core;

/// The background flusher: a wake-up queue of one, with the thread started on first use.
pub(super) struct Flusher {
    pool: Weak<Core>,
    queue: OnceLock<Option<SyncSender<()>>>,
    /// Wake-ups queued or being served.
    pending: AtomicUsize,
}

impl Flusher {
    /// A flusher for the pool behind `pool` (no thread started yet).
    pub(super) fn new(pool: Weak<Core>) -> Flusher {
        Flusher { pool, queue: OnceLock::new(), pending: AtomicUsize::new(0) }
    }

    /// Waits until no wake-up is queued or being served (test hook).
    #[cfg(test)]
    pub(super) fn wait_idle(&self) {
        while self.pending.load(Ordering::Acquire) > 0 {
            std::thread::yield_now();
        }
    }

    /// Wakes the thread (starting it if needed) unless a wake-up is already pending.
    pub(super) fn wake(&self) {
        if self.pending.load(Ordering::Acquire) > 0 {
            return;
        }
        let queue = self.queue.get_or_init(|| {
            let (tx, rx) = sync_channel(1);
            let pool = self.pool.clone();
            std::thread::Builder::new()
                .name("ocgraph-flusher".into())
                .spawn(move || run(pool, rx))
                .ok()
                .map(|_| tx)
        });
        if let Some(tx) = queue {
            self.pending.fetch_add(1, Ordering::AcqRel);
            if tx.try_send(()).is_err() {
                self.pending.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

/// The thread's loop: serves wake-ups until the pool (and with it the sender) is gone.
fn run(pool: Weak<Core>, rx: Receiver<()>) {
    while rx.recv().is_ok() {
        let Some(pool) = pool.upgrade() else { return };
        // An I/O error leaves the pages dirty; the foreground write-back or flush reports it.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            while pool.over_dirty_threshold() && pool.clean_longest_run() {}
        }));
        pool.flusher.pending.fetch_sub(1, Ordering::AcqRel);
    }
}
