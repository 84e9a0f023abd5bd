//! A bounded job queue served by a few background threads of the pool (read-ahead windows,
//! `WillNeed` loads).
//!
//! The threads start on the first job. Submitting never blocks: a job is dropped when the queue
//! is full (both users are hints). The threads hold only a weak reference to the pool while
//! idle and exit when it is dropped (its sender goes with it). A thread either runs each job
//! to its end ([`Serve::Each`]; a job that panics, an I/O error, does not end the thread: the
//! job has already unlocked its pages, so the reader's own miss reports it) or runs its own
//! loop over the queue ([`Serve::Loop`], for jobs that overlap).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, OnceLock, Weak};

use parking_lot::Mutex;

use super::Core;

/// How the threads serve the queue.
pub(super) enum Serve<J> {
    /// Each job is run to its end by one call.
    Each(fn(&Core, &J)),
    /// One call runs the thread's whole life: it takes jobs from [`Jobs`] and reports them done.
    Loop(fn(Weak<Core>, Jobs<J>)),
}

// Not derived: that would require `J: Copy`, and only function pointers are copied.
impl<J> Clone for Serve<J> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<J> Copy for Serve<J> {}

/// The queue as a [`Serve::Loop`] thread sees it.
pub(super) struct Jobs<J> {
    rx: Arc<Mutex<Receiver<J>>>,
    pending: Arc<AtomicUsize>,
}

impl<J> Jobs<J> {
    /// The next job, waiting for one; `None` once the pool is gone.
    pub(super) fn recv(&self) -> Option<J> {
        self.rx.lock().recv().ok()
    }

    /// The next job if one is queued.
    pub(super) fn try_recv(&self) -> Option<J> {
        self.rx.lock().try_recv().ok()
    }

    /// A job taken from the queue goes on as `parts` parts, each reported by [`Jobs::done`].
    pub(super) fn split(&self, parts: usize) {
        self.pending.fetch_add(parts, Ordering::AcqRel);
        self.done();
    }

    /// A job (or a part of one) is finished.
    pub(super) fn done(&self) {
        self.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The queue and its threads, started on the first job.
pub(super) struct Background<J: Send + 'static> {
    pool: Weak<Core>,
    /// Thread name prefix.
    name: &'static str,
    threads: usize,
    capacity: usize,
    /// What a thread does with the jobs.
    serve: Serve<J>,
    queue: OnceLock<Option<SyncSender<J>>>,
    /// Jobs queued or running.
    pending: Arc<AtomicUsize>,
}

impl<J: Send + 'static> Background<J> {
    /// A queue of `capacity` jobs for the pool behind `pool`, served by `threads` threads named
    /// `name-i` as `serve` says (none started yet).
    pub(super) fn new(
        pool: Weak<Core>,
        name: &'static str,
        threads: usize,
        capacity: usize,
        serve: Serve<J>,
    ) -> Background<J> {
        Background {
            pool,
            name,
            threads,
            capacity,
            serve,
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
                let jobs = Jobs { rx: rx.clone(), pending: self.pending.clone() };
                let (pool, serve) = (self.pool.clone(), self.serve);
                started |= std::thread::Builder::new()
                    .name(format!("{}-{i}", self.name))
                    .spawn(move || match serve {
                        Serve::Each(run) => serve_each(pool, jobs, run),
                        Serve::Loop(serve) => serve(pool, jobs),
                    })
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

/// A [`Serve::Each`] thread's loop: runs jobs until the pool (and with it the sender) is gone.
pub(super) fn serve_each<J>(pool: Weak<Core>, jobs: Jobs<J>, run: fn(&Core, &J)) {
    while let Some(job) = jobs.recv() {
        let Some(pool) = pool.upgrade() else { return };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&pool, &job)));
        jobs.done();
    }
}
