//! [`MemoryDelta`]: the in-memory [`DeltaLog`], sharded by source vertex.
//!
//! Each source vertex has a `Vec` of 16-byte entries `(seq: u64, dst: u32, weight bits: u32)`,
//! a removal being the weight bit pattern `0xFFFF_FFFF` (a NaN no caller may store: weights are
//! checked not to be NaN). Memory: 16 bytes per operation plus about 64 bytes per touched vertex
//! (map slot and `Vec` header), which is what [`DeltaLog::bytes`] reports (vector capacity
//! included). Vertices are spread over 64 shards, each behind its own `RwLock`, so readers of
//! one vertex do not block the writer on another.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::RwLock;

use super::delta::{ArcOp, DeltaLog};
use crate::error::Result;
use crate::graph::Vertex;

const SHARDS: usize = 64;

/// Hashes a vertex id with one multiplication (ids are not attacker-chosen keys; SipHash
/// dominated the cost of recording an operation).
#[derive(Default, Clone, Copy)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, v: u32) {
        // The shard is chosen by the low bits (v % 64): hash the rest, spread over the top bits
        // that hashbrown uses.
        self.0 = ((v as u64) >> 6).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Map = HashMap<Vertex, Vec<Entry>, BuildHasherDefault<IdHasher>>;
const REMOVE_BITS: u32 = u32::MAX;
const PER_VERTEX_BYTES: u64 = 64;

#[derive(Clone, Copy)]
struct Entry {
    seq: u64,
    dst: Vertex,
    bits: u32,
}

/// An in-memory, multiversioned delta (see the module docs for its memory use).
pub struct MemoryDelta {
    shards: Vec<RwLock<Map>>,
    bytes: AtomicU64,
}

impl Default for MemoryDelta {
    fn default() -> Self {
        MemoryDelta {
            shards: (0..SHARDS).map(|_| RwLock::new(Map::default())).collect(),
            bytes: AtomicU64::new(0),
        }
    }
}

impl MemoryDelta {
    /// An empty delta.
    pub fn new() -> MemoryDelta {
        MemoryDelta::default()
    }

    fn shard(&self, v: Vertex) -> &RwLock<Map> {
        &self.shards[v as usize % SHARDS]
    }
}

impl DeltaLog for MemoryDelta {
    fn record(&self, seq: u64, src: Vertex, dst: Vertex, op: ArcOp) -> Result<()> {
        let bits = match op {
            ArcOp::Add(w) => w.to_bits(),
            ArcOp::Remove => REMOVE_BITS,
        };
        let mut shard = self.shard(src).write();
        let list = shard.entry(src).or_insert_with(|| {
            self.bytes.fetch_add(PER_VERTEX_BYTES, Ordering::Relaxed);
            Vec::new()
        });
        let cap = list.capacity();
        list.push(Entry { seq, dst, bits });
        let grown = (list.capacity() - cap) as u64 * std::mem::size_of::<Entry>() as u64;
        self.bytes.fetch_add(grown, Ordering::Relaxed);
        Ok(())
    }

    fn ops(&self, src: Vertex, upto: u64, out: &mut Vec<(Vertex, ArcOp)>) -> Result<()> {
        let shard = self.shard(src).read();
        if let Some(list) = shard.get(&src) {
            // Entries are in record order with non-decreasing seq: stop at the first later one.
            let end = list.partition_point(|e| e.seq <= upto);
            out.extend(list[..end].iter().map(|e| {
                let op =
                    if e.bits == REMOVE_BITS { ArcOp::Remove } else { ArcOp::Add(f32::from_bits(e.bits)) };
                (e.dst, op)
            }));
        }
        Ok(())
    }

    fn touched(&self, upto: u64) -> Vec<Vertex> {
        let mut out: Vec<Vertex> = Vec::new();
        for shard in &self.shards {
            let shard = shard.read();
            out.extend(
                shard.iter().filter(|(_, l)| l.first().is_some_and(|e| e.seq <= upto)).map(|(&v, _)| v),
            );
        }
        out.sort_unstable();
        out
    }

    fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(d.touched(0), Vec::<Vertex>::new());
        assert_eq!(d.touched(2), vec![3, 70]);
        assert_eq!(d.touched(5), vec![1, 3, 70]);
        assert!(d.bytes() >= 3 * 64 + 4 * 16);
    }
}
