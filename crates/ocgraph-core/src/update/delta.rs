//! [`DeltaLog`]: the mutable newest level of a writable graph, after LLAMA's writable level.
//!
//! Every update becomes one or more arc operations ([`ArcOp`]) tagged with the sequence number of
//! the batch that made it. Operations are only ever appended, so a reader that fixes a sequence
//! number `upto` sees exactly the batches `<= upto`, however many are appended meanwhile: that is
//! how a snapshot stays consistent without copying the delta. A frozen delta becomes an
//! immutable on-disk level; a fresh delta then takes new operations.

use crate::error::Result;
use crate::graph::Vertex;

/// One change to the arc `src -> dst`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArcOp {
    /// The arc exists from now on, with this weight (1.0 for unweighted graphs); adding an
    /// existing arc replaces its weight.
    Add(f32),
    /// The arc no longer exists (a tombstone when it is in an older level).
    Remove,
}

/// An append-only, multiversioned record of arc operations per source vertex.
///
/// Implementations are shared between the writer and snapshot readers (`&self` everywhere,
/// internally synchronised). Within one source vertex, operations are returned in the order
/// they were recorded; sequence numbers passed to [`DeltaLog::record`] never decrease.
pub trait DeltaLog: Send + Sync {
    /// Records `op` on the arc `src -> dst` as part of batch `seq`.
    fn record(&self, seq: u64, src: Vertex, dst: Vertex, op: ArcOp) -> Result<()>;

    /// Appends to `out` the operations on arcs out of `src` recorded by batches `<= upto`, in
    /// record order.
    fn ops(&self, src: Vertex, upto: u64, out: &mut Vec<(Vertex, ArcOp)>) -> Result<()>;

    /// The source vertices with at least one operation of a batch `<= upto`, ascending.
    fn touched(&self, upto: u64) -> Vec<Vertex>;

    /// Bytes this delta occupies (memory for an in-memory delta, pages for a paged one): the
    /// writer freezes the delta into a level when this passes its threshold.
    fn bytes(&self) -> u64;
}

/// Folds a vertex's operations (in record order) into its net effect: for each destination, the
/// last operation wins. Returns `(dst, op)` pairs sorted by `dst`, one per destination.
pub fn fold_ops(ops: &[(Vertex, ArcOp)]) -> Vec<(Vertex, ArcOp)> {
    let mut last: Vec<(Vertex, usize)> = ops.iter().enumerate().map(|(i, &(d, _))| (d, i)).collect();
    // Stable sort by destination keeps record order among equal destinations.
    last.sort_by_key(|&(d, _)| d);
    let mut out: Vec<(Vertex, ArcOp)> = Vec::new();
    for (d, i) in last {
        match out.last_mut() {
            Some(prev) if prev.0 == d => prev.1 = ops[i].1,
            _ => out.push((d, ops[i].1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_op_per_destination_wins() {
        let ops = [(5, ArcOp::Add(1.0)), (2, ArcOp::Add(2.0)), (5, ArcOp::Remove), (2, ArcOp::Add(3.0))];
        assert_eq!(fold_ops(&ops), vec![(2, ArcOp::Add(3.0)), (5, ArcOp::Remove)]);
        assert_eq!(fold_ops(&[]), vec![]);
    }
}
