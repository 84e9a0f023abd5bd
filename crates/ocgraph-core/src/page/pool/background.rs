//! A bounded job queue served by a few background threads of the pool (read-ahead windows,
//! `WillNeed` loads).
//!
//! The threads start on the first job. Submitting never blocks: a job is dropped when the queue
//! is full (both users are hints). The threads hold only a weak reference to the pool and exit
//! when it is dropped (its sender goes with it). A job that panics (an I/O error: the job has
//! already unlocked its pages, so the reader's own miss reports it) does not end its thread.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, OnceLock, Weak};

use parking_lot::Mutex;

use super::Core;

/// The queue and its threads, started on the first job.
pub(super) struct Background<J: Send + 'static> {
    pool: Weak<Core>,
    /// Thread name prefix.
    name: &'static str,
    threads: usize,
    capacity: usize,
    /// What a thread does with a job.
    run: fn(&Core, &J),
    queue: OnceLock<Option<SyncSender<J>>>,
    /// Jobs queued or running.
    pending: Arc<AtomicUsize>,
}

impl<J: Send + 'static> Background<J> {
    /// A queue of `capacity` jobs for the pool behind `pool`, served by `threads` threads named
    /// `name-i` that call `run` (none started yet).
    pub(super) fn new(
        pool: Weak<Core>,
        name: &'static str,
        threads: usize,
        capacity: usize,
        run: fn(&Core, &J),
    ) -> Background<J> {
        Background {
            pool,
            name,
            threads,
            capacity,
            run,
            queue: OnceLock::new(),
            pending: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Waits until no job is queued or running (test hook for invariant checks).
    #[cfg(test)]
    pub(super) fn wait_idle(&self) {
        while self.pending.load(Ordering::Acquire) > 0 {
            std::thread::yield_now();
        }
    }

    /// Queues `job`, starting the threads if needed; drops the job when the queue is full or no
    /// thread could be started.
    pub(super) fn submit(&self, job: J) {
        let queue = self.queue.get_or_init(|| {
            let (tx, rx) = sync_channel(self.capacity);
            let rx = Arc::new(Mutex::new(rx));
            let mut started = false;
            for i in 0..self.threads {
                let (pool, rx, pending, run) =
                    (self.pool.clone(), rx.clone(), self.pending.clone(), self.run);
                started |= std::thread::Builder::new()
                    .name(format!("{}-{i}", self.name))
                    .spawn(move || serve(pool, rx, pending, run))
                    .is_ok();
            }
            started.then_some(tx)
        });
        if let Some(tx) = queue {
            self.pending.fetch_add(1, Ordering::AcqRel);
            if tx.try_send(job).is_err() {
                self.pending.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

/// A thread's loop: runs jobs until the pool (and with it the sender) is gone.
fn serve<J>(pool: Weak<Core>, rx: Arc<Mutex<Receiver<J>>>, pending: Arc<AtomicUsize>, run: fn(&Core, &J)) {
    loop {
        let job = match rx.lock().recv() {
            Ok(j) => j,
            Err(_) => return,
        };
        let Some(pool) = pool.upgrade() else { return };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&pool, &job)));
        pending.fetch_sub(1, Ordering::AcqRel);
    }
}
