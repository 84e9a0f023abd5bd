//! The background fsync of [`Durability::Interval`](super::Durability::Interval): a thread
//! that wakes every interval and fsyncs the log when a written batch is not durable yet, so an
//! acknowledged batch is on disk within about one interval even when no append follows it
//! (an append only fsyncs inline once an interval has passed since the last fsync).

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use crate::process::OwnedThread;

/// The running flusher; dropping it stops the thread at once (and waits for it).
pub(crate) struct IntervalFlusher {
    /// Dropped to wake and stop the thread.
    stop: Option<mpsc::Sender<()>>,
    thread: Option<OwnedThread<()>>,
}

impl IntervalFlusher {
    /// Calls `flush` every `interval` until `flush` returns false (the log is gone) or the
    /// flusher is dropped.
    pub(crate) fn start(interval: Duration, flush: impl Fn() -> bool + Send + 'static) -> IntervalFlusher {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                if !flush() {
                    return;
                }
            }
        });
        IntervalFlusher { stop: Some(stop), thread: Some(OwnedThread::new(thread)) }
    }
}

impl Drop for IntervalFlusher {
    fn drop(&mut self) {
        self.stop.take();
        if let Some(t) = self.thread.take() {
            t.join();
        }
    }
}
