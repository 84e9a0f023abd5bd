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

/// The visitor of [`DeltaLog::for_each_vertex`]: a source vertex and its operations.
pub type VertexOpsFn<'a> = dyn FnMut(Vertex, &[(Vertex, ArcOp)]) -> Result<()> + 'a;

/// An append-only, multiversioned record of arc operations per source vertex.
///
/// Implementations are shared between the writer and snapshot readers (`&self` everywhere,
/// internally synchronised). Within one source vertex, operations are returned in the order
/// they were recorded; sequence numbers passed to [`DeltaLog::record`] never decrease.
pub trait DeltaLog: Send + Sync {
    /// Records `op` on the arc `src -> dst` as part of batch `seq`.
    fn record(&self, seq: u64, src: Vertex, dst: Vertex, op: ArcOp) -> Result<()>;

    /// Records every `(src, dst, op)` of `ops`, in order, as part of batch `seq` (one call per
    /// batch lets an implementation sort and store the batch at once).
    fn record_batch(&self, seq: u64, ops: &[(Vertex, Vertex, ArcOp)]) -> Result<()> {
        ops.iter().try_for_each(|&(src, dst, op)| self.record(seq, src, dst, op))
    }

    /// Appends to `out` the operations on arcs out of `src` recorded by batches `<= upto`, in
    /// record order; an implementation may give a prefix of them as its net effect instead (one
    /// operation per destination, as [`fold_ops`] gives it), which every reader folds alike.
    fn ops(&self, src: Vertex, upto: u64, out: &mut Vec<(Vertex, ArcOp)>) -> Result<()>;

    /// The newest operation on the arc `src -> dst` of a batch `<= upto`, if any. By default
    /// from [`DeltaLog::ops`]; an implementation may look the arc up without reading all of
    /// `src`'s operations.
    fn arc_op(&self, src: Vertex, dst: Vertex, upto: u64) -> Result<Option<ArcOp>> {
        let mut ops = Vec::new();
        self.ops(src, upto, &mut ops)?;
        Ok(ops.iter().rev().find(|o| o.0 == dst).map(|o| o.1))
    }

    /// The source vertices with at least one operation of a batch `<= upto`, ascending.
    fn touched(&self, upto: u64) -> Vec<Vertex>;

    /// Whether a batch `<= upto` recorded an operation ([`DeltaLog::touched`] is not empty),
    /// without listing the vertices.
    fn has_ops_upto(&self, upto: u64) -> bool;

    /// A hint that [`DeltaLog::ops`] is about to read the operations of `vertices`: an
    /// implementation may load what it looks them up by into the CPU cache in one tight pass,
    /// so that the cache misses of the reads overlap instead of waiting one by one. By default
    /// nothing.
    fn warm(&self, _vertices: &[Vertex]) {}

    /// Calls `f` for every source vertex with operations of batches `<= upto`, ascending, with
    /// what [`DeltaLog::ops`] returns for it.
    fn for_each_vertex(&self, upto: u64, f: &mut VertexOpsFn<'_>) -> Result<()> {
        let mut ops = Vec::new();
        for v in self.touched(upto) {
            ops.clear();
            self.ops(v, upto, &mut ops)?;
            f(v, &ops)?;
        }
        Ok(())
    }

    /// Whether recording `ops` (one batch) cannot run out of space: a delta with a fixed
    /// capacity answers from a bound on what the batch can take, before anything is recorded.
    fn has_room(&self, _ops: &[(Vertex, Vertex, ArcOp)]) -> bool {
        true
    }

    /// Memory, in bytes, that recording a batch of `ops` operations allocates at its peak
    /// (sorting scratch and the delta's growth): the writer checks that much is available
    /// before it logs the batch, so a batch the machine cannot hold is refused, not logged.
    fn record_memory(&self, _ops: usize) -> u64 {
        0
    }

    /// Bytes this delta occupies (memory for an in-memory delta, pages for a paged one): the
    /// writer freezes the delta into a level when this passes its threshold.
    fn bytes(&self) -> u64;
}

/// Folds a vertex's operations (in record order) into its net effect: for each destination, the
/// last operation wins. Returns `(dst, op)` pairs sorted by `dst`, one per destination.
pub fn fold_ops(ops: &[(Vertex, ArcOp)]) -> Vec<(Vertex, ArcOp)> {
    let mut out = Vec::new();
    fold_ops_into(ops, &mut out);
    out
}

/// [`fold_ops`] appending to `out` (sorted in place: no allocation for short lists).
pub fn fold_ops_into(ops: &[(Vertex, ArcOp)], out: &mut Vec<(Vertex, ArcOp)>) {
    if let [one] = ops {
        out.push(*one);
        return;
    }
    let start = out.len();
    out.extend_from_slice(ops);
    fold_tail(out, start);
}

/// Folds `ops[start..]` (in record order) in place, as [`fold_ops`] does.
pub(crate) fn fold_tail(ops: &mut Vec<(Vertex, ArcOp)>, start: usize) {
    // Stable sort by destination keeps record order among equal destinations; the last of
    // each run of equal destinations is kept.
    ops[start..].sort_by_key(|&(d, _)| d);
    let mut kept = start;
    for i in start..ops.len() {
        if i + 1 < ops.len() && ops[i + 1].0 == ops[i].0 {
            continue;
        }
        ops[kept] = ops[i];
        kept += 1;
    }
    ops.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_op_per_destination_wins() {
        let ops = [(5, ArcOp::Add(1.0)), (2, ArcOp::Add(2.0)), (5, ArcOp::Remove), (2, ArcOp::Add(3.0))];
        assert_eq!(fold_ops(&ops), vec![(2, ArcOp::Add(3.0)), (5, ArcOp::Remove)]);
        assert_eq!(fold_ops(&[]), vec![]);
        // Appending after another vertex's ops never merges into them.
        let mut out = vec![(2, ArcOp::Remove)];
        fold_ops_into(&ops, &mut out);
        assert_eq!(out, vec![(2, ArcOp::Remove), (2, ArcOp::Add(3.0)), (5, ArcOp::Remove)]);
        fold_ops_into(&[(9, ArcOp::Add(4.0))], &mut out);
        assert_eq!(out.last(), Some(&(9, ArcOp::Add(4.0))));
    }
}
