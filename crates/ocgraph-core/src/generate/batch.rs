//! Edge batches and the block-parallel, order-preserving driver shared by the generators.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::error::Result;
use crate::mix::mix64;

/// Edges generated in one block: `src[i] -> dst[i]` with optional `weights[i]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EdgeBatch {
    /// Source vertices.
    pub src: Vec<u32>,
    /// Destination vertices.
    pub dst: Vec<u32>,
    /// Weights aligned with `src`/`dst`, when the generator is weighted.
    pub weights: Option<Vec<f32>>,
}

impl EdgeBatch {
    /// An empty batch with room for `cap` edges.
    pub(crate) fn with_capacity(cap: usize, weighted: bool) -> EdgeBatch {
        EdgeBatch {
            src: Vec::with_capacity(cap),
            dst: Vec::with_capacity(cap),
            weights: weighted.then(|| Vec::with_capacity(cap)),
        }
    }

    /// Appends one edge (`w` is ignored when the batch is unweighted).
    #[inline]
    pub(crate) fn push(&mut self, u: u32, v: u32, w: f32) {
        self.src.push(u);
        self.dst.push(v);
        if let Some(ws) = &mut self.weights {
            ws.push(w);
        }
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether the batch holds no edge.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }
}

/// Nominal number of edges per block.
pub(crate) const BLOCK_EDGES: u64 = 1 << 20;

/// The RNG of block `block` of a generator seeded with `seed`.
pub(crate) fn block_rng(seed: u64, block: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(mix64(seed ^ 0x6A09_E667_F3BC_C909) ^ mix64(block.wrapping_add(1)))
}

/// The RNG of the weights of block `block` (a stream of its own, so that a weighted graph has
/// the edges of the unweighted one of the same seed, as GAPBS's `-w` adds weights to them).
pub(crate) fn block_weight_rng(seed: u64, block: u64) -> Xoshiro256PlusPlus {
    block_rng(seed ^ 0xBB67_AE85_84CA_A73B, block)
}

/// A uniformly random weight in `1..=255`, as `f32`.
#[inline]
pub(crate) fn random_weight(r: u64) -> f32 {
    ((r % 255) + 1) as f32
}

/// Generates blocks `0..num_blocks` with `make` in parallel, a wave of a few blocks per thread
/// at a time, and hands them to `sink` in block order.
pub(crate) fn drive_blocks(
    num_blocks: u64,
    make: impl Fn(u64) -> EdgeBatch + Sync,
    sink: &mut dyn FnMut(&EdgeBatch) -> Result<()>,
) -> Result<()> {
    let wave = (rayon::current_num_threads() as u64).max(1) * 2;
    let mut start = 0;
    while start < num_blocks {
        let end = (start + wave).min(num_blocks);
        let batches: Vec<EdgeBatch> = (start..end).into_par_iter().map(&make).collect();
        for b in &batches {
            sink(b)?;
        }
        start = end;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::EdgeBatch;
    use crate::generate::Generator;

    /// All edges of a generator, concatenated.
    pub fn collect(g: &dyn Generator) -> EdgeBatch {
        let mut all = EdgeBatch::with_capacity(0, false);
        let mut weights: Option<Vec<f32>> = None;
        g.for_each_batch(&mut |b| {
            all.src.extend_from_slice(&b.src);
            all.dst.extend_from_slice(&b.dst);
            if let Some(w) = &b.weights {
                weights.get_or_insert_with(Vec::new).extend_from_slice(w);
            }
            Ok(())
        })
        .unwrap();
        all.weights = weights;
        all
    }
}
