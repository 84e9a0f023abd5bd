//! The change feed of a [`WritableGraph`](super::WritableGraph): what each batch changed,
//! delivered to registered [`ChangeSubscriber`]s before the update call returns.
//!
//! A batch's [`BatchChanges`] lists its edge operations in batch order, as the update path
//! turned them into arc operations: additions (with their weight; 1.0 on unweighted graphs),
//! removals (including one per incident edge of each removed vertex), and weight changes of
//! existing edges (as additions with the new weight), its label changes, plus the vertex count
//! before and after.
//! An operation may leave the graph as it was (removing a missing edge, adding an edge with its
//! present weight): consumers that need the resulting state read the [`Snapshot`] delivered
//! with the batch, which sees exactly the batches up to and including this one.
//! [`BatchChanges::net_arcs`] folds the operations into one net change per arc.
//!
//! Delivery: in sequence order, one batch at a time, on the thread that made the update, after
//! the batch is applied and committed to the log and before the update call returns. A
//! subscriber must not call into the same graph from [`ChangeSubscriber::on_batch`] (updates,
//! snapshots: they may wait for the delivery itself); the snapshot it is given is the graph. A batch whose commit fails is not delivered: subscribers see a gap in the
//! sequence numbers and must rebuild what they keep from the next snapshot.

use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};

use super::delta::ArcOp;
use super::radix::sort_by_u32_key;
use super::snapshot::{Snapshot, View};
use crate::graph::Vertex;

/// One edge operation of a batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EdgeChange {
    /// Source (for undirected graphs: one end, as given by the caller).
    pub src: Vertex,
    /// Destination (the other end).
    pub dst: Vertex,
    /// `Add(w)`: the edge exists from now on with weight `w`; `Remove`: it no longer exists.
    pub op: ArcOp,
}

/// What one batch changed (see the module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchChanges {
    /// The batch's sequence number.
    pub seq: u64,
    /// Whether the graph is directed (for undirected graphs an edge change applies to both arcs).
    pub directed: bool,
    /// Vertex count before the batch.
    pub vertices_before: u64,
    /// Vertex count after the batch (larger when it added vertices).
    pub vertices_after: u64,
    /// Edge operations, in batch order.
    pub edges: Vec<EdgeChange>,
    /// Vertices whose edges the batch removed (`remove_vertices`), in batch order.
    pub removed_vertices: Vec<Vertex>,
    /// Label changes `(vertex, label)` in batch order (the last one per vertex wins;
    /// [`NO_LABEL`](crate::labels::NO_LABEL) removes the label).
    pub labels: Vec<(Vertex, u32)>,
}

impl BatchChanges {
    /// The net change of every arc the batch touched, sorted by `(src, dst)`: the last operation
    /// on an arc wins. For undirected graphs both arcs of each edge are listed.
    pub fn net_arcs(&self) -> Vec<EdgeChange> {
        let mut arcs: Vec<EdgeChange> =
            Vec::with_capacity(self.edges.len() * if self.directed { 1 } else { 2 });
        for e in &self.edges {
            arcs.push(*e);
            if !self.directed && e.src != e.dst {
                arcs.push(EdgeChange { src: e.dst, dst: e.src, op: e.op });
            }
        }
        // Stable (by source, then by destination within each source's run, most of which hold
        // one arc): batch order within an arc, so the last one is the net change.
        let top = arcs.iter().map(|e| e.src).max().unwrap_or(0);
        sort_by_u32_key(&mut arcs, top, |e| e.src);
        for run in arcs.chunk_by_mut(|a, b| a.src == b.src).filter(|r| r.len() > 1) {
            run.sort_by_key(|e| e.dst);
        }
        let mut out: Vec<EdgeChange> = Vec::with_capacity(arcs.len());
        for e in arcs {
            match out.last_mut() {
                Some(last) if last.src == e.src && last.dst == e.dst => *last = e,
                _ => out.push(e),
            }
        }
        out
    }
}

/// A consumer of the change feed, registered with
/// [`WritableGraph::subscribe`](super::WritableGraph::subscribe).
pub trait ChangeSubscriber: Send + Sync {
    /// Called once per committed batch, in sequence order, with what it changed and a snapshot
    /// that sees exactly the batches up to `changes.seq`.
    fn on_batch(&self, changes: &BatchChanges, snapshot: &Snapshot);
}

/// Identifies a subscription (for [`WritableGraph::unsubscribe`](super::WritableGraph::unsubscribe)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubscriptionId(pub(crate) u64);

/// The registered subscribers, and the next subscription id.
type Registry = (u64, Vec<(SubscriptionId, Arc<dyn ChangeSubscriber>)>);

/// The feed of one graph: its subscribers, and the turn that keeps deliveries in sequence order.
#[derive(Default)]
pub(crate) struct Feed {
    subscribers: Mutex<Registry>,
    /// Taken under the writer's state lock, released after delivery: batches are delivered in
    /// the order they were applied.
    turn: Mutex<()>,
}

/// A batch applied and waiting for delivery (holds the delivery turn).
pub(crate) struct Ready<'a> {
    changes: BatchChanges,
    snapshot: Snapshot,
    subscribers: Vec<Arc<dyn ChangeSubscriber>>,
    _turn: MutexGuard<'a, ()>,
}

impl Feed {
    pub(crate) fn add(&self, s: Arc<dyn ChangeSubscriber>) -> SubscriptionId {
        let mut subs = self.subscribers.lock();
        let id = SubscriptionId(subs.0);
        subs.0 += 1;
        subs.1.push((id, s));
        id
    }

    pub(crate) fn remove(&self, id: SubscriptionId) -> bool {
        let mut subs = self.subscribers.lock();
        let n = subs.1.len();
        subs.1.retain(|(i, _)| *i != id);
        subs.1.len() != n
    }

    /// Called under the writer's state lock before a batch is applied: the record to fill, when
    /// anyone listens.
    pub(crate) fn start(&self) -> Option<BatchChanges> {
        (!self.subscribers.lock().1.is_empty()).then(BatchChanges::default)
    }

    /// Called under the writer's state lock once the batch is applied to `view`: takes the
    /// delivery turn.
    pub(crate) fn ready(&self, changes: BatchChanges, view: &View) -> Ready<'_> {
        let turn = self.turn.lock();
        let subscribers = self.subscribers.lock().1.iter().map(|(_, s)| s.clone()).collect();
        Ready { changes, snapshot: Snapshot::new(view.clone()), subscribers, _turn: turn }
    }
}

impl Ready<'_> {
    /// Delivers the batch to every subscriber, then releases the turn.
    pub(crate) fn deliver(self) {
        for s in &self.subscribers {
            s.on_batch(&self.changes, &self.snapshot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_arcs_keep_the_last_operation_per_arc() {
        let c = BatchChanges {
            seq: 3,
            directed: false,
            vertices_before: 5,
            vertices_after: 5,
            edges: vec![
                EdgeChange { src: 1, dst: 2, op: ArcOp::Add(1.0) },
                EdgeChange { src: 2, dst: 1, op: ArcOp::Remove },
                EdgeChange { src: 3, dst: 3, op: ArcOp::Add(2.0) },
            ],
            removed_vertices: vec![],
            labels: vec![],
        };
        let net = c.net_arcs();
        assert_eq!(
            net,
            vec![
                EdgeChange { src: 1, dst: 2, op: ArcOp::Remove },
                EdgeChange { src: 2, dst: 1, op: ArcOp::Remove },
                EdgeChange { src: 3, dst: 3, op: ArcOp::Add(2.0) },
            ]
        );
        let d = BatchChanges { directed: true, ..c };
        assert_eq!(d.net_arcs().len(), 3);
        assert_eq!(d.net_arcs()[0], EdgeChange { src: 1, dst: 2, op: ArcOp::Add(1.0) });
    }

    /// A large random batch (the radix sort's path) nets to what a map of the last operation
    /// per arc holds, in arc order.
    #[test]
    fn net_arcs_of_a_large_batch_match_a_map() {
        use rand::{Rng, SeedableRng};
        use std::collections::BTreeMap;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        for directed in [false, true] {
            let edges: Vec<EdgeChange> = (0..3000)
                .map(|_| EdgeChange {
                    src: rng.gen_range(0..40),
                    dst: rng.gen_range(0..5000),
                    op: if rng.gen_bool(0.5) {
                        ArcOp::Remove
                    } else {
                        ArcOp::Add(rng.gen_range(1..4) as f32)
                    },
                })
                .collect();
            let mut want = BTreeMap::new();
            for e in &edges {
                want.insert((e.src, e.dst), e.op);
                if !directed && e.src != e.dst {
                    want.insert((e.dst, e.src), e.op);
                }
            }
            let c = BatchChanges { directed, edges, ..BatchChanges::default() };
            let got: Vec<((Vertex, Vertex), ArcOp)> =
                c.net_arcs().iter().map(|e| ((e.src, e.dst), e.op)).collect();
            assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        }
    }
}
