//! [`MemoryDelta`]: the in-memory [`DeltaLog`], a small log-structured merge of sorted runs.
//!
//! Each batch becomes one *run*: its operations as 16-byte entries `(src, dst, weight bits,
//! seq)` sorted by source vertex (stably, so one vertex's operations stay in record order); a
//! removal is the weight bit pattern `0xFFFF_FFFF` (a NaN no caller may store: weights are
//! checked not to be NaN); `seq` is stored relative to the delta's first batch. A new run is
//! merged with the newest runs while they are less than twice its size, so there are
//! `O(log(entries / batch))` runs, each operation is copied `O(log)` times by sequential merges,
//! and recording touches no per-vertex structure (no hash lookups, no per-vertex allocation).
//!
//! Reads binary-search every run for the vertex: runs are ordered oldest first and merges are
//! stable (older entries first), so concatenating the runs' matches gives record order.
//! Runs are immutable `Arc`s: merges run outside the lock and readers only hold a read lock
//! to copy the run list. Memory: 16 bytes per operation (what [`DeltaLog::bytes`] reports),
//! plus transiently the runs being merged.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::delta::{ArcOp, DeltaLog, VertexOpsFn};
use crate::error::{Error, Result};
use crate::graph::Vertex;

const REMOVE_BITS: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Entry {
    src: Vertex,
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

type Run = Arc<Vec<Entry>>;

#[derive(Default, Clone)]
struct Runs {
    /// Sequence number of the first batch recorded (entries store `seq - base`).
    base: u64,
    /// Oldest first; each sorted by `src`, record order within a source.
    runs: Vec<Run>,
}

impl Runs {
    /// `upto` relative to `base`, or `None` when no recorded batch is `<= upto`.
    fn rel(&self, upto: u64) -> Option<u32> {
        (!self.runs.is_empty() && upto >= self.base).then(|| (upto - self.base).min(u32::MAX as u64) as u32)
    }
}

/// An in-memory, multiversioned delta (see the module docs for its layout and memory use).
#[derive(Default)]
pub struct MemoryDelta {
    runs: RwLock<Runs>,
    /// Serialises writers (merges happen outside `runs`' lock).
    writer: Mutex<()>,
    entries: AtomicU64,
}

/// Merges two runs sorted by `src`; on equal sources the entries of `old` come first.
fn merge(old: &[Entry], new: &[Entry]) -> Vec<Entry> {
    let mut out = Vec::with_capacity(old.len() + new.len());
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        if old[i].src <= new[j].src {
            out.push(old[i]);
            i += 1;
        } else {
            out.push(new[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&old[i..]);
    out.extend_from_slice(&new[j..]);
    out
}

/// The entries of `src` in a run sorted by source.
fn entries_of(run: &[Entry], src: Vertex) -> &[Entry] {
    let lo = run.partition_point(|e| e.src < src);
    let hi = lo + run[lo..].partition_point(|e| e.src == src);
    &run[lo..hi]
}

impl MemoryDelta {
    /// An empty delta.
    pub fn new() -> MemoryDelta {
        MemoryDelta::default()
    }

    /// Every run merged into one (sorted by source, record order within a source).
    fn merged(&self) -> Vec<Entry> {
        let runs = self.runs.read().runs.clone();
        let mut it = runs.iter().rev();
        let Some(last) = it.next() else { return Vec::new() };
        // Newest (smallest) first, so the merged prefix grows geometrically.
        let mut acc: Vec<Entry> = last.to_vec();
        for r in it {
            acc = merge(r, &acc);
        }
        acc
    }
}

impl DeltaLog for MemoryDelta {
    fn record(&self, seq: u64, src: Vertex, dst: Vertex, op: ArcOp) -> Result<()> {
        self.record_batch(seq, &[(src, dst, op)])
    }

    fn record_batch(&self, seq: u64, ops: &[(Vertex, Vertex, ArcOp)]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let _w = self.writer.lock();
        let (base, mut tail) = {
            let r = self.runs.read();
            (if r.runs.is_empty() { seq } else { r.base }, r.runs.clone())
        };
        let rel = seq.checked_sub(base).filter(|&d| d <= u32::MAX as u64).ok_or_else(|| {
            Error::invalid(format!("delta: batch {seq} is out of range of the delta's first batch {base}"))
        })? as u32;
        let mut run: Vec<Entry> = ops
            .iter()
            .map(|&(src, dst, op)| {
                let bits = match op {
                    ArcOp::Add(w) => w.to_bits(),
                    ArcOp::Remove => REMOVE_BITS,
                };
                Entry { src, dst, bits, seq: rel }
            })
            .collect();
        run.sort_by_key(|e| e.src); // stable: record order within a source
        let keep = {
            let mut k = tail.len();
            while k > 0 && tail[k - 1].len() < 2 * run.len() {
                k -= 1;
                run = merge(&tail[k], &run);
            }
            k
        };
        tail.truncate(keep);
        tail.push(Arc::new(run));
        *self.runs.write() = Runs { base, runs: tail };
        self.entries.fetch_add(ops.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    fn ops(&self, src: Vertex, upto: u64, out: &mut Vec<(Vertex, ArcOp)>) -> Result<()> {
        let r = self.runs.read();
        let Some(rel) = r.rel(upto) else { return Ok(()) };
        for run in &r.runs {
            // Within a source, seq never decreases: stop at the first later entry.
            out.extend(entries_of(run, src).iter().take_while(|e| e.seq <= rel).map(|e| (e.dst, e.op())));
        }
        Ok(())
    }

    fn touched(&self, upto: u64) -> Vec<Vertex> {
        let r = self.runs.read().clone();
        let Some(rel) = r.rel(upto) else { return Vec::new() };
        let mut out: Vec<Vertex> = Vec::new();
        for run in &r.runs {
            let start = out.len();
            out.extend(run.iter().filter(|e| e.seq <= rel).map(|e| e.src));
            let mut k = start;
            for i in start..out.len() {
                if k == start || out[k - 1] != out[i] {
                    out[k] = out[i];
                    k += 1;
                }
            }
            out.truncate(k);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn for_each_vertex(&self, upto: u64, f: &mut VertexOpsFn<'_>) -> Result<()> {
        let Some(rel) = self.runs.read().rel(upto) else { return Ok(()) };
        let all = self.merged();
        let mut ops = Vec::new();
        let mut i = 0;
        while i < all.len() {
            let v = all[i].src;
            ops.clear();
            while i < all.len() && all[i].src == v {
                if all[i].seq <= rel {
                    ops.push((all[i].dst, all[i].op()));
                }
                i += 1;
            }
            if !ops.is_empty() {
                f(v, &ops)?;
            }
        }
        Ok(())
    }

    fn bytes(&self) -> u64 {
        self.entries.load(Ordering::Relaxed) * std::mem::size_of::<Entry>() as u64
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

    /// Many batches of random operations (forcing merges of runs) read back as a brute-force
    /// log of `(seq, src, dst, op)` does, at every `upto`.
    #[test]
    fn merged_runs_match_a_plain_log() {
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
        assert!(d.runs.read().runs.len() <= 12);
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
