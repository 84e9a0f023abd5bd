//! [`MemoryDelta`]: the in-memory [`DeltaLog`], one small unsorted array of operations per
//! touched source vertex (after seed 002's per-vertex edge arrays).
//!
//! Each operation is a 12-byte entry `(dst, weight bits, seq)` appended to its source vertex's
//! array, so a vertex's operations are in record order and their sequence numbers never
//! decrease: a reader as of `upto` takes the prefix with `seq <= upto`. A removal is the weight
//! bit pattern `0xFFFF_FFFF` (a NaN no caller may store: weights are checked not to be NaN);
//! `seq` is stored relative to the delta's first batch. Vertices find their array through a
//! dense index (`slot[v]`, 4 bytes per vertex up to the largest touched one), so recording and
//! point reads do no hashing and no search: a batch is recorded under one write lock with one
//! append per operation, and a point read costs a read lock and a copy of the vertex's own
//! operations, whatever the size of the delta.
//!
//! Memory: the entries (12 bytes each plus vector headroom), one array header per touched
//! vertex and the index; [`DeltaLog::bytes`] reports 16 bytes per operation (the unit the
//! freeze threshold and a paged delta's capacity are stated in).

use parking_lot::RwLock;

use super::delta::{ArcOp, DeltaLog, VertexOpsFn};
use crate::error::{Error, Result};
use crate::graph::Vertex;

const REMOVE_BITS: u32 = u32::MAX;

/// Bytes reported per operation (see the module docs).
const BYTES_PER_OP: u64 = 16;

#[derive(Clone, Copy, Debug)]
struct Entry {
    dst: Vertex,
    bits: u32,
    /// Batch sequence number minus the delta's first one.
    seq: u32,
}

impl Entry {
    fn op(&self) -> ArcOp {
        if self.bits == REMOVE_BITS {
            ArcOp::Remove
        } else {
            ArcOp::Add(f32::from_bits(self.bits))
        }
    }
}

#[derive(Default)]
struct Lists {
    /// Sequence number of the first batch recorded (entries store `seq - base`).
    base: Option<u64>,
    /// `slot[v]`: one more than the index of `v`'s array in `lists`; 0 when `v` is untouched.
    slot: Vec<u32>,
    /// The touched vertices in first-touch order, each with its operations in record order.
    lists: Vec<(Vertex, Vec<Entry>)>,
    entries: u64,
}

impl Lists {
    /// `upto` relative to `base`, or `None` when no recorded batch is `<= upto`.
    fn rel(&self, upto: u64) -> Option<u32> {
        let base = self.base?;
        (upto >= base).then(|| (upto - base).min(u32::MAX as u64) as u32)
    }

    /// The operations of `v` (all batches), empty when untouched.
    fn of(&self, v: Vertex) -> &[Entry] {
        match self.slot.get(v as usize) {
            Some(&s) if s > 0 => &self.lists[s as usize - 1].1,
            _ => &[],
        }
    }

    /// The indices into `lists` of the vertices touched by a batch `<= rel`, by vertex.
    fn touched_slots(&self, rel: u32) -> Vec<usize> {
        // First-touch order has non-decreasing first sequence numbers: a prefix qualifies.
        let k = self.lists.partition_point(|(_, ops)| ops[0].seq <= rel);
        let mut idx: Vec<usize> = (0..k).collect();
        idx.sort_unstable_by_key(|&i| self.lists[i].0);
        idx
    }
}

/// An in-memory, multiversioned delta (see the module docs for its layout and memory use).
#[derive(Default)]
pub struct MemoryDelta {
    lists: RwLock<Lists>,
}

impl MemoryDelta {
    /// An empty delta.
    pub fn new() -> MemoryDelta {
        MemoryDelta::default()
    }
}

/// The prefix of `ops` recorded by batches `<= rel`, as `(dst, op)` pairs.
fn visible(ops: &[Entry], rel: u32) -> impl Iterator<Item = (Vertex, ArcOp)> + '_ {
    ops.iter().take_while(move |e| e.seq <= rel).map(|e| (e.dst, e.op()))
}

impl DeltaLog for MemoryDelta {
    fn record(&self, seq: u64, src: Vertex, dst: Vertex, op: ArcOp) -> Result<()> {
        self.record_batch(seq, &[(src, dst, op)])
    }

    fn record_batch(&self, seq: u64, ops: &[(Vertex, Vertex, ArcOp)]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let mut l = self.lists.write();
        let base = *l.base.get_or_insert(seq);
        let rel = seq.checked_sub(base).filter(|&d| d <= u32::MAX as u64).ok_or_else(|| {
            Error::invalid(format!("delta: batch {seq} is out of range of the delta's first batch {base}"))
        })? as u32;
        let top = ops.iter().map(|o| o.0).max().expect("non-empty") as usize;
        if l.slot.len() <= top {
            l.slot.resize(top + 1, 0);
        }
        for &(src, dst, op) in ops {
            let bits = match op {
                ArcOp::Add(w) => w.to_bits(),
                ArcOp::Remove => REMOVE_BITS,
            };
            let e = Entry { dst, bits, seq: rel };
            let s = l.slot[src as usize];
            if s > 0 {
                l.lists[s as usize - 1].1.push(e);
            } else {
                l.lists.push((src, vec![e]));
                let n = l.lists.len() as u32;
                l.slot[src as usize] = n;
            }
        }
        l.entries += ops.len() as u64;
        Ok(())
    }

    fn ops(&self, src: Vertex, upto: u64, out: &mut Vec<(Vertex, ArcOp)>) -> Result<()> {
        let l = self.lists.read();
        if let Some(rel) = l.rel(upto) {
            out.extend(visible(l.of(src), rel));
        }
        Ok(())
    }

    fn touched(&self, upto: u64) -> Vec<Vertex> {
        let l = self.lists.read();
        let Some(rel) = l.rel(upto) else { return Vec::new() };
        l.touched_slots(rel).into_iter().map(|i| l.lists[i].0).collect()
    }

    fn for_each_vertex(&self, upto: u64, f: &mut VertexOpsFn<'_>) -> Result<()> {
        let l = self.lists.read();
        let Some(rel) = l.rel(upto) else { return Ok(()) };
        let mut ops = Vec::new();
        for i in l.touched_slots(rel) {
            let (v, list) = &l.lists[i];
            ops.clear();
            ops.extend(visible(list, rel));
            f(*v, &ops)?;
        }
        Ok(())
    }

    fn bytes(&self) -> u64 {
        self.lists.read().entries * BYTES_PER_OP
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::update::delta::fold_ops;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn reads_as_of_a_sequence_number() {
        let d = MemoryDelta::new();
        d.record(1, 3, 7, ArcOp::Add(1.5)).unwrap();
        d.record(2, 3, 7, ArcOp::Remove).unwrap();
        d.record(2, 70, 1, ArcOp::Add(1.0)).unwrap();
        d.record(5, 1, 2, ArcOp::Add(2.0)).unwrap();
        let mut out = Vec::new();
        d.ops(3, 1, &mut out).unwrap();
        assert_eq!(out, vec![(7, ArcOp::Add(1.5))]);
        out.clear();
        d.ops(3, 9, &mut out).unwrap();
        assert_eq!(out, vec![(7, ArcOp::Add(1.5)), (7, ArcOp::Remove)]);
        out.clear();
        d.ops(3, 0, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(d.touched(0), Vec::<Vertex>::new());
        assert_eq!(d.touched(2), vec![3, 70]);
        assert_eq!(d.touched(5), vec![1, 3, 70]);
        assert_eq!(d.bytes(), 4 * 16);
    }

    /// Many batches of random operations (on few vertices, so arrays grow) read back as a brute-force
    /// log of `(seq, src, dst, op)` does, at every `upto`.
    #[test]
    fn per_vertex_arrays_match_a_plain_log() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let d = MemoryDelta::new();
        let mut log: Vec<(u64, Vertex, Vertex, ArcOp)> = Vec::new();
        for seq in 10..60u64 {
            let k = rng.gen_range(0..40);
            let batch: Vec<(Vertex, Vertex, ArcOp)> = (0..k)
                .map(|_| {
                    let op = if rng.gen_bool(0.3) {
                        ArcOp::Remove
                    } else {
                        ArcOp::Add(rng.gen_range(1..9) as f32)
                    };
                    (rng.gen_range(0..20), rng.gen_range(0..20), op)
                })
                .collect();
            d.record_batch(seq, &batch).unwrap();
            log.extend(batch.iter().map(|&(s, t, op)| (seq, s, t, op)));
        }
        for upto in [0, 9, 10, 33, 59, 100] {
            let mut want_touched: Vec<Vertex> = log.iter().filter(|e| e.0 <= upto).map(|e| e.1).collect();
            want_touched.sort_unstable();
            want_touched.dedup();
            assert_eq!(d.touched(upto), want_touched);
            let mut seen = Vec::new();
            d.for_each_vertex(upto, &mut |v, ops| {
                seen.push((v, ops.to_vec()));
                Ok(())
            })
            .unwrap();
            assert_eq!(seen.len(), want_touched.len());
            for (v, ops) in seen {
                let want: Vec<(Vertex, ArcOp)> =
                    log.iter().filter(|e| e.0 <= upto && e.1 == v).map(|e| (e.2, e.3)).collect();
                assert_eq!(ops, want);
                let mut got = Vec::new();
                d.ops(v, upto, &mut got).unwrap();
                assert_eq!(fold_ops(&got), fold_ops(&want));
                assert_eq!(got, want);
            }
        }
    }
}
