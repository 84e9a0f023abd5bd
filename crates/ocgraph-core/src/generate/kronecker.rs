//! The Graph500 Kronecker (R-MAT) generator.

use rand::RngCore;

use super::batch::{block_rng, block_weight_rng, drive_blocks, random_weight, EdgeBatch, BLOCK_EDGES};
use super::Generator;
use crate::error::{Error, Result};
use crate::mix::mix64;

/// R-MAT quadrant probabilities of Graph500 (`d = 1 - a - b - c = 0.05`), as 32-bit thresholds.
const A: f64 = 0.57;
const B: f64 = 0.19;
const C: f64 = 0.19;
const T_A: u32 = (A * 4294967296.0) as u32;
const T_AB: u32 = ((A + B) * 4294967296.0) as u32;
const T_ABC: u32 = ((A + B + C) * 4294967296.0) as u32;

/// Largest supported scale: vertex ids must fit `u32`.
pub const MAX_SCALE: u32 = 31;

/// A Graph500 Kronecker graph: `2^scale` vertices, `edge_factor * 2^scale` edges drawn by R-MAT
/// with `a = 0.57, b = c = 0.19, d = 0.05`, vertex ids scrambled by a seeded bijection so that
/// ids are not ordered by degree. Self-loops and duplicate edges are emitted as drawn (build with
/// `dedup` and `drop_self_loops` to get GAPBS's `kron`).
#[derive(Debug, Clone, PartialEq)]
pub struct Kronecker {
    /// log2 of the number of vertices.
    pub scale: u32,
    /// Edges per vertex.
    pub edge_factor: u64,
    /// RNG seed.
    pub seed: u64,
    /// Whether to emit random integer weights in `1..=255`.
    pub weighted: bool,
}

/// A Kronecker generator (unweighted); fails when `scale` is 0 or above [`MAX_SCALE`].
pub fn kronecker(scale: u32, edge_factor: u64, seed: u64) -> Result<Kronecker> {
    if scale == 0 || scale > MAX_SCALE {
        return Err(Error::invalid(format!("kronecker scale must be 1..={MAX_SCALE}, got {scale}")));
    }
    let edges = edge_factor as f64 * (1u64 << scale) as f64;
    if edges > super::MAX_EDGES as f64 {
        return Err(super::too_many_edges("kronecker", edges));
    }
    Ok(Kronecker { scale, edge_factor, seed, weighted: false })
}

impl Kronecker {
    /// The same generator with weights on or off.
    pub fn weighted(mut self, weighted: bool) -> Kronecker {
        self.weighted = weighted;
        self
    }

    fn num_edges(&self) -> u64 {
        self.edge_factor << self.scale
    }

    /// One R-MAT edge in unscrambled id space.
    #[inline]
    fn rmat_edge(&self, rng: &mut impl RngCore) -> (u64, u64) {
        let (mut u, mut v) = (0u64, 0u64);
        let mut bits = 0u64;
        for level in 0..self.scale {
            if level % 2 == 0 {
                bits = rng.next_u64();
            }
            let r = bits as u32;
            bits >>= 32;
            // Branch-free quadrant choice: [0,a) -> (0,0), [a,a+b) -> (0,1), [a+b,a+b+c) -> (1,0),
            // [a+b+c,1) -> (1,1).
            let (ge_a, ge_ab, ge_abc) = ((r >= T_A) as u64, (r >= T_AB) as u64, (r >= T_ABC) as u64);
            u = (u << 1) | ge_ab;
            v = (v << 1) | (ge_a ^ ge_ab ^ ge_abc);
        }
        (u, v)
    }
}

/// A seeded bijection on `0..2^scale`, a composition of bijective steps (odd multiplication,
/// addition and xor-shift modulo `2^scale`, and bit reversal of `scale` bits).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scramble {
    scale: u32,
    mask: u64,
    k: [u64; 4],
}

impl Scramble {
    pub(crate) fn new(scale: u32, seed: u64) -> Scramble {
        let k = [
            mix64(seed ^ 0x1111) | 1,
            mix64(seed ^ 0x2222),
            mix64(seed ^ 0x3333) | 1,
            mix64(seed ^ 0x4444) | 1,
        ];
        Scramble { scale, mask: (1u64 << scale) - 1, k }
    }

    #[inline]
    pub(crate) fn apply(&self, x: u64) -> u64 {
        let half = self.scale.div_ceil(2);
        let mut v = x.wrapping_mul(self.k[0]) & self.mask;
        v ^= v >> half;
        v = v.wrapping_mul(self.k[2]).wrapping_add(self.k[1]) & self.mask;
        v = v.reverse_bits() >> (64 - self.scale);
        v = v.wrapping_mul(self.k[3]) & self.mask;
        v ^= v >> half;
        v
    }
}

impl Generator for Kronecker {
    fn num_vertices(&self) -> u64 {
        1u64 << self.scale
    }

    fn expected_edges(&self) -> u64 {
        self.num_edges()
    }

    fn describe(&self) -> String {
        format!(
            "kronecker scale={} edge_factor={} seed={}{}",
            self.scale,
            self.edge_factor,
            self.seed,
            if self.weighted { " weighted" } else { "" }
        )
    }

    fn for_each_batch(&self, sink: &mut dyn FnMut(&EdgeBatch) -> Result<()>) -> Result<()> {
        let m = self.num_edges();
        let scramble = Scramble::new(self.scale, self.seed);
        let make = |block: u64| {
            let lo = block * BLOCK_EDGES;
            let hi = (lo + BLOCK_EDGES).min(m);
            let (mut rng, mut weights) = (block_rng(self.seed, block), block_weight_rng(self.seed, block));
            let mut b = EdgeBatch::with_capacity((hi - lo) as usize, self.weighted);
            for _ in lo..hi {
                let (u, v) = self.rmat_edge(&mut rng);
                let w = if self.weighted { random_weight(weights.next_u64()) } else { 1.0 };
                b.push(scramble.apply(u) as u32, scramble.apply(v) as u32, w);
            }
            b
        };
        drive_blocks(m.div_ceil(BLOCK_EDGES), make, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::batch::testutil::collect;

    #[test]
    fn scramble_is_a_bijection() {
        for scale in [1, 2, 5, 10, 13] {
            let s = Scramble::new(scale, 42);
            let mut seen = vec![false; 1 << scale];
            for x in 0..(1u64 << scale) {
                let y = s.apply(x) as usize;
                assert!(!seen[y], "scale {scale}: {x} collides");
                seen[y] = true;
            }
        }
    }

    #[test]
    fn exact_edge_count_and_range() {
        let g = kronecker(10, 16, 7).unwrap();
        let e = collect(&g);
        assert_eq!(e.len() as u64, 16 << 10);
        assert!(e.src.iter().chain(&e.dst).all(|&v| v < 1024));
        assert!(e.weights.is_none());
    }

    #[test]
    fn deterministic_per_seed_across_thread_counts() {
        let g = kronecker(12, 300, 3).unwrap().weighted(true); // > 1 block
        let a = collect(&g);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = pool.install(|| collect(&g));
        assert_eq!(a, b);
        let w = a.weights.as_ref().unwrap();
        assert!(w.iter().all(|&x| (1.0..=255.0).contains(&x) && x.fract() == 0.0));
        let c = collect(&kronecker(12, 300, 4).unwrap().weighted(true));
        assert_ne!(a.src, c.src);
        // The weights come on the unweighted graph's edges.
        let plain = collect(&kronecker(12, 300, 3).unwrap());
        assert_eq!((&plain.src, &plain.dst), (&a.src, &a.dst));
    }

    #[test]
    fn degree_distribution_is_skewed_and_not_id_ordered() {
        let scale = 14;
        let e = collect(&kronecker(scale, 16, 1).unwrap());
        let n = 1usize << scale;
        let mut deg = vec![0u64; n];
        for (&u, &v) in e.src.iter().zip(&e.dst) {
            deg[u as usize] += 1;
            deg[v as usize] += 1;
        }
        let mean = 2.0 * e.len() as f64 / n as f64;
        let (argmax, &max) = deg.iter().enumerate().max_by_key(|(_, d)| **d).unwrap();
        assert!(max as f64 > 20.0 * mean, "max degree {max}, mean {mean}");
        // Without scrambling vertex 0 would hold the maximum degree.
        assert_ne!(argmax, 0);
        let isolated = deg.iter().filter(|&&d| d == 0).count();
        assert!(isolated > n / 10, "R-MAT leaves many vertices isolated, got {isolated}");
    }

    #[test]
    fn quadrant_frequencies_match_graph500_parameters() {
        let g = kronecker(1, 1, 0).unwrap();
        let mut rng = block_rng(9, 0);
        let mut counts = [0u32; 4];
        let draws = 400_000;
        for _ in 0..draws {
            let (u, v) = g.rmat_edge(&mut rng);
            counts[(u * 2 + v) as usize] += 1;
        }
        for (c, want) in counts.iter().zip([A, B, C, 1.0 - A - B - C]) {
            let f = *c as f64 / draws as f64;
            assert!((f - want).abs() < 0.005, "{counts:?}");
        }
    }

    #[test]
    fn rejects_bad_scale() {
        assert!(kronecker(0, 16, 1).is_err());
        assert!(kronecker(32, 16, 1).is_err());
    }
}
