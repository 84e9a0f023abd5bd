//! Background maintenance: the batches of a maintained result queued by the update path and
//! applied on the result's own thread, in sequence order.
//!
//! An update call then returns as soon as its batch is queued, and the next batch's update path
//! (log, plan, delta) runs while this one's maintenance does (whether that raises a stream's
//! throughput depends on where its time goes: bench/incremental/run.py `--background` measures
//! it side by side with maintaining in the call). The queue holds batches of at most
//! [`QUEUE_OPS`] operations in all besides the one being applied (each a copy of its changes and
//! a snapshot, which keeps its part of the delta alive; a larger batch queues alone); an update
//! call whose batch finds it full waits for room, so memory stays bounded when updates arrive
//! faster than they are maintained. Callers that need the result of a batch wait for its
//! sequence number ([`Queue::wait_for`]).

use std::collections::VecDeque;

use ocgraph_core::update::{BatchChanges, Snapshot};
use parking_lot::{Condvar, Mutex};

/// Operations (edge changes, removed vertices, label changes; one at least per batch) the queued
/// batches may hold before an update call waits.
pub const QUEUE_OPS: usize = 65_536;

/// The operations `changes` counts for [`QUEUE_OPS`].
fn ops(changes: &BatchChanges) -> usize {
    changes.edges.len() + changes.removed_vertices.len() + changes.labels.len() + 1
}

#[derive(Default)]
struct State {
    items: VecDeque<(BatchChanges, Snapshot)>,
    /// Operations of the batches in `items`.
    ops: usize,
    /// Sequence number of the last batch queued.
    queued: u64,
    /// Sequence number of the last batch taken off the queue and applied (or failed).
    applied: u64,
    /// Set when the maintenance stops: pushes are dropped and the worker exits.
    closed: bool,
}

/// The queue between the update path and a result's worker thread.
#[derive(Default)]
pub(crate) struct Queue {
    state: Mutex<State>,
    /// Signalled when a batch is queued or the queue closes (the worker waits on it).
    queued: Condvar,
    /// Signalled when a batch is applied (update calls waiting for room, and readers).
    applied: Condvar,
}

impl Queue {
    /// Queues a batch (copying its changes), first waiting while the queue is full; dropped
    /// once the queue is closed.
    pub(crate) fn push(&self, changes: &BatchChanges, snap: &Snapshot) {
        let k = ops(changes);
        let mut st = self.state.lock();
        while !st.items.is_empty() && st.ops + k > QUEUE_OPS && !st.closed {
            self.applied.wait(&mut st);
        }
        if st.closed {
            return;
        }
        st.queued = changes.seq;
        st.ops += k;
        st.items.push_back((changes.clone(), snap.clone()));
        self.queued.notify_one();
    }

    /// The next batch to apply, waiting for one; `None` once the queue is closed.
    pub(crate) fn pop(&self) -> Option<(BatchChanges, Snapshot)> {
        let mut st = self.state.lock();
        loop {
            if st.closed {
                return None;
            }
            if let Some(item) = st.items.pop_front() {
                st.ops -= ops(&item.0);
                return Some(item);
            }
            self.queued.wait(&mut st);
        }
    }

    /// Marks the batch [`Queue::pop`] returned as applied.
    pub(crate) fn done(&self, seq: u64) {
        let mut st = self.state.lock();
        st.applied = seq;
        self.applied.notify_all();
    }

    /// Waits until every queued batch up to `seq` is applied (batches not yet queued are not
    /// waited for: the caller checks the result's own sequence number afterwards).
    pub(crate) fn wait_for(&self, seq: u64) {
        let mut st = self.state.lock();
        while st.applied < seq.min(st.queued) && !st.closed {
            self.applied.wait(&mut st);
        }
    }

    /// Stops the worker and drops the batches still queued.
    pub(crate) fn close(&self) {
        let mut st = self.state.lock();
        st.closed = true;
        st.items.clear();
        st.ops = 0;
        self.queued.notify_all();
        self.applied.notify_all();
    }
}
