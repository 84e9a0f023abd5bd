//! The Erdős–Rényi random graph generator, `G(n, m)` and `G(n, p)`.

use rand::Rng;

use super::batch::{block_rng, block_weight_rng, drive_blocks, random_weight, EdgeBatch, BLOCK_EDGES};
use super::Generator;
use crate::error::{Error, Result};

/// The size model of an Erdős–Rényi graph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ErdosRenyiSize {
    /// `G(n, m)`: exactly `m` edges, each a uniformly random pair `u != v` (drawn independently,
    /// so duplicates are possible).
    Edges(u64),
    /// `G(n, p)`: every pair is an edge independently with probability `p`: pairs `u < v` when
    /// undirected, ordered pairs `u != v` when directed.
    Probability(f64),
}

/// An Erdős–Rényi generator.
#[derive(Debug, Clone, PartialEq)]
pub struct ErdosRenyi {
    /// Number of vertices.
    pub n: u64,
    /// The size model.
    pub size: ErdosRenyiSize,
    /// RNG seed.
    pub seed: u64,
    /// For `G(n, p)`: sample ordered pairs (directed) or unordered pairs (undirected).
    pub directed: bool,
    /// Whether to emit random integer weights in `1..=255`.
    pub weighted: bool,
}

/// An (undirected, unweighted) Erdős–Rényi generator. Fails when `n` does not fit `u32` ids,
/// when edges are requested with fewer than 2 vertices, or when `p` is not in `[0, 1]`.
pub fn erdos_renyi(n: u64, size: ErdosRenyiSize, seed: u64) -> Result<ErdosRenyi> {
    if n > u32::MAX as u64 {
        return Err(Error::invalid(format!("erdos-renyi: {n} vertices do not fit 32-bit ids")));
    }
    match size {
        ErdosRenyiSize::Edges(m) if m > 0 && n < 2 => {
            return Err(Error::invalid("erdos-renyi: edges need at least 2 vertices"))
        }
        ErdosRenyiSize::Probability(p) if !(0.0..=1.0).contains(&p) => {
            return Err(Error::invalid(format!("erdos-renyi: probability {p} is not in [0, 1]")))
        }
        _ => {}
    }
    // Edges asked for (for G(n, p), those expected over ordered pairs, the larger count).
    let edges = match size {
        ErdosRenyiSize::Edges(m) => m as f64,
        ErdosRenyiSize::Probability(p) => p * n as f64 * n.saturating_sub(1) as f64,
    };
    if edges > super::MAX_EDGES as f64 {
        return Err(super::too_many_edges("erdos-renyi", edges));
    }
    Ok(ErdosRenyi { n, size, seed, directed: false, weighted: false })
}

impl ErdosRenyi {
    /// The same generator with weights on or off.
    pub fn weighted(mut self, weighted: bool) -> ErdosRenyi {
        self.weighted = weighted;
        self
    }

    /// The same generator sampling ordered (directed) or unordered pairs in `G(n, p)`.
    pub fn directed(mut self, directed: bool) -> ErdosRenyi {
        self.directed = directed;
        self
    }

    /// `G(n, m)`: block `block` draws its share of the `m` edges.
    fn block_gnm(&self, m: u64, block: u64) -> EdgeBatch {
        let lo = block * BLOCK_EDGES;
        let hi = (lo + BLOCK_EDGES).min(m);
        let (mut rng, mut weights) = (block_rng(self.seed, block), block_weight_rng(self.seed, block));
        let mut b = EdgeBatch::with_capacity((hi - lo) as usize, self.weighted);
        for _ in lo..hi {
            let u = rng.gen_range(0..self.n);
            let mut v = rng.gen_range(0..self.n - 1);
            if v >= u {
                v += 1;
            }
            let w = if self.weighted { random_weight(weights.gen()) } else { 1.0 };
            b.push(u as u32, v as u32, w);
        }
        b
    }

    /// `G(n, p)` by geometric skipping over the row-major index space `u * n + v`, cut into
    /// spans of `span` indices, one per block.
    fn block_gnp(&self, p: f64, span: u64, block: u64) -> EdgeBatch {
        let total = self.n * self.n;
        let lo = block * span;
        let hi = (lo + span).min(total);
        let (mut rng, mut weights) = (block_rng(self.seed, block), block_weight_rng(self.seed, block));
        let mut b = EdgeBatch::with_capacity(((hi - lo) as f64 * p * 1.1) as usize + 16, self.weighted);
        // ln(1 - p) without rounding `1 - p` to 1 for tiny `p` (which would skip nothing).
        let log_q = (-p).ln_1p();
        let mut i = lo;
        loop {
            if p < 1.0 {
                let r: f64 = rng.gen::<f64>();
                let skip = ((1.0 - r).ln() / log_q).floor();
                if skip >= (hi - i) as f64 {
                    break;
                }
                i += skip as u64;
            }
            if i >= hi {
                break;
            }
            let (u, v) = (i / self.n, i % self.n);
            let keep = if self.directed { u != v } else { u < v };
            if keep {
                let w = if self.weighted { random_weight(weights.gen()) } else { 1.0 };
                b.push(u as u32, v as u32, w);
            }
            i += 1;
        }
        b
    }

    fn gnp_span(p: f64) -> u64 {
        if p <= 0.0 {
            u64::MAX
        } else {
            ((BLOCK_EDGES as f64 / p) as u64).max(1)
        }
    }
}

impl Generator for ErdosRenyi {
    fn num_vertices(&self) -> u64 {
        self.n
    }

    fn expected_edges(&self) -> u64 {
        match self.size {
            ErdosRenyiSize::Edges(m) => m,
            ErdosRenyiSize::Probability(p) => {
                let pairs = self.n as f64 * (self.n as f64 - 1.0);
                (p * if self.directed { pairs } else { pairs / 2.0 }) as u64
            }
        }
    }

    fn describe(&self) -> String {
        let size = match self.size {
            ErdosRenyiSize::Edges(m) => format!("m={m}"),
            ErdosRenyiSize::Probability(p) => format!("p={p}"),
        };
        format!(
            "erdos-renyi n={} {size} seed={}{}",
            self.n,
            self.seed,
            if self.weighted { " weighted" } else { "" }
        )
    }

    fn for_each_batch(&self, sink: &mut dyn FnMut(&EdgeBatch) -> Result<()>) -> Result<()> {
        match self.size {
            ErdosRenyiSize::Edges(m) => drive_blocks(m.div_ceil(BLOCK_EDGES), |b| self.block_gnm(m, b), sink),
            ErdosRenyiSize::Probability(p) => {
                if p <= 0.0 || self.n < 2 {
                    return Ok(());
                }
                let span = Self::gnp_span(p);
                drive_blocks((self.n * self.n).div_ceil(span), |b| self.block_gnp(p, span, b), sink)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::batch::testutil::collect;

    #[test]
    fn gnm_exact_count_no_self_loops_deterministic() {
        let g = erdos_renyi(1000, ErdosRenyiSize::Edges(2_500_000), 9).unwrap().weighted(true);
        let a = collect(&g);
        assert_eq!(a.len(), 2_500_000);
        assert!(a.src.iter().zip(&a.dst).all(|(u, v)| u != v && *u < 1000 && *v < 1000));
        assert_eq!(a, collect(&g));
        let b = collect(&erdos_renyi(1000, ErdosRenyiSize::Edges(2_500_000), 10).unwrap());
        assert_ne!(a.src, b.src);
    }

    /// A weighted graph has the edges of the unweighted one of the same seed (its weights drew
    /// from the edges' stream, so it was another graph).
    #[test]
    fn weights_come_on_the_unweighted_graphs_edges() {
        for size in [ErdosRenyiSize::Edges(300_000), ErdosRenyiSize::Probability(0.05)] {
            let plain = collect(&erdos_renyi(3000, size, 4).unwrap());
            let weighted = collect(&erdos_renyi(3000, size, 4).unwrap().weighted(true));
            assert_eq!((&plain.src, &plain.dst), (&weighted.src, &weighted.dst), "{size:?}");
            let w = weighted.weights.unwrap();
            assert!(w.iter().all(|&x| (1.0..=255.0).contains(&x) && x.fract() == 0.0));
            assert!(w.iter().any(|&x| x != w[0]));
        }
    }

    #[test]
    fn gnm_is_roughly_uniform() {
        let e = collect(&erdos_renyi(100, ErdosRenyiSize::Edges(1_000_000), 1).unwrap());
        let mut deg = [0u64; 100];
        for &u in &e.src {
            deg[u as usize] += 1;
        }
        // Expected 10_000 per vertex, std ~100.
        assert!(deg.iter().all(|&d| (9_400..10_600).contains(&d)), "{deg:?}");
    }

    #[test]
    fn gnp_matches_brute_force_count_and_shape() {
        let n = 2000u64;
        let p = 0.01;
        let e = collect(&erdos_renyi(n, ErdosRenyiSize::Probability(p), 5).unwrap());
        let expected = p * (n * (n - 1) / 2) as f64; // 19_990, std ~141
        assert!((e.len() as f64 - expected).abs() < 6.0 * expected.sqrt(), "{} edges", e.len());
        assert!(e.src.iter().zip(&e.dst).all(|(u, v)| u < v));
        let mut pairs: Vec<_> = e.src.iter().zip(&e.dst).collect();
        pairs.dedup();
        assert_eq!(pairs.len(), e.len(), "G(n,p) pairs are distinct and in index order");
        let d = collect(&erdos_renyi(n, ErdosRenyiSize::Probability(p), 5).unwrap().directed(true));
        assert!(d.src.iter().zip(&d.dst).any(|(u, v)| u > v));
    }

    #[test]
    fn gnp_extremes() {
        let full = collect(&erdos_renyi(30, ErdosRenyiSize::Probability(1.0), 1).unwrap());
        assert_eq!(full.len(), 30 * 29 / 2);
        let none = collect(&erdos_renyi(30, ErdosRenyiSize::Probability(0.0), 1).unwrap());
        assert!(none.is_empty());
        // Probabilities so small that `1 - p` rounds to 1 still draw (almost surely) nothing.
        for p in [1e-17, 1e-300] {
            assert!(
                collect(&erdos_renyi(50, ErdosRenyiSize::Probability(p), 1).unwrap()).is_empty(),
                "p = {p}"
            );
        }
        assert!(erdos_renyi(30, ErdosRenyiSize::Probability(1.5), 1).is_err());
        assert!(erdos_renyi(1, ErdosRenyiSize::Edges(3), 1).is_err());
    }
}
