//! A road-like graph: a 2D grid with some edges removed and integer weights.

use rand::Rng;

use super::batch::{block_rng, drive_blocks, random_weight, EdgeBatch, BLOCK_EDGES};
use super::Generator;
use crate::error::{Error, Result};

/// Probability that a grid edge is removed.
pub const REMOVE_PROBABILITY: f64 = 0.1;

/// A `rows x cols` 4-neighbour grid (vertex `r * cols + c`), each edge removed with probability
/// [`REMOVE_PROBABILITY`], every kept edge weighted with a random integer in `1..=255`: a sparse,
/// high-diameter (about `rows + cols`) graph like a road network. Edges are emitted once each
/// (`u < v`); build it undirected.
#[derive(Debug, Clone, PartialEq)]
pub struct RoadGrid {
    /// Number of grid rows.
    pub rows: u64,
    /// Number of grid columns.
    pub cols: u64,
    /// RNG seed.
    pub seed: u64,
}

/// A road grid generator; fails when `rows * cols` is 0 or does not fit 32-bit ids.
pub fn road_grid(rows: u64, cols: u64, seed: u64) -> Result<RoadGrid> {
    match rows.checked_mul(cols) {
        Some(n) if n > 0 && n <= u32::MAX as u64 => Ok(RoadGrid { rows, cols, seed }),
        _ => Err(Error::invalid(format!("road grid {rows}x{cols}: need 1..=2^32-1 vertices"))),
    }
}

impl RoadGrid {
    /// Whole rows per block while a row's edges (up to 2 per cell) fit a block, else 1.
    fn rows_per_block(&self) -> u64 {
        (BLOCK_EDGES / (2 * self.cols)).max(1)
    }

    /// Columns per block: every column, or a part of a row too wide for one block (so that a
    /// block never holds more than [`BLOCK_EDGES`] edges, whatever the grid's shape).
    fn cols_per_block(&self) -> u64 {
        self.cols.min(BLOCK_EDGES / 2)
    }

    /// Blocks across a row (1 unless a row is wider than a block).
    fn blocks_per_row(&self) -> u64 {
        self.cols.div_ceil(self.cols_per_block())
    }

    fn block(&self, block: u64) -> EdgeBatch {
        let (rows, part) = (block / self.blocks_per_row(), block % self.blocks_per_row());
        let per = self.rows_per_block();
        let (r0, r1) = (rows * per, ((rows + 1) * per).min(self.rows));
        let width = self.cols_per_block();
        let (c0, c1) = (part * width, ((part + 1) * width).min(self.cols));
        let mut rng = block_rng(self.seed, block);
        let mut b = EdgeBatch::with_capacity(((r1 - r0) * (c1 - c0) * 2) as usize, true);
        for r in r0..r1 {
            for c in c0..c1 {
                let u = r * self.cols + c;
                if c + 1 < self.cols && !rng.gen_bool(REMOVE_PROBABILITY) {
                    b.push(u as u32, (u + 1) as u32, random_weight(rng.gen()));
                }
                if r + 1 < self.rows && !rng.gen_bool(REMOVE_PROBABILITY) {
                    b.push(u as u32, (u + self.cols) as u32, random_weight(rng.gen()));
                }
            }
        }
        b
    }
}

impl Generator for RoadGrid {
    fn num_vertices(&self) -> u64 {
        self.rows * self.cols
    }

    fn expected_edges(&self) -> u64 {
        let grid = self.rows * (self.cols - 1) + (self.rows - 1) * self.cols;
        (grid as f64 * (1.0 - REMOVE_PROBABILITY)) as u64
    }

    fn describe(&self) -> String {
        format!("road grid rows={} cols={} seed={}", self.rows, self.cols, self.seed)
    }

    fn for_each_batch(&self, sink: &mut dyn FnMut(&EdgeBatch) -> Result<()>) -> Result<()> {
        let blocks = self.rows.div_ceil(self.rows_per_block()) * self.blocks_per_row();
        drive_blocks(blocks, |b| self.block(b), sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::batch::testutil::collect;
    use std::collections::VecDeque;

    /// BFS hop distances from `s` (u32::MAX when unreachable).
    fn bfs(n: usize, e: &EdgeBatch, s: usize) -> Vec<u32> {
        let mut adj = vec![Vec::new(); n];
        for (&u, &v) in e.src.iter().zip(&e.dst) {
            adj[u as usize].push(v as usize);
            adj[v as usize].push(u as usize);
        }
        let mut dist = vec![u32::MAX; n];
        dist[s] = 0;
        let mut q = VecDeque::from([s]);
        while let Some(u) = q.pop_front() {
            for &v in &adj[u] {
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    q.push_back(v);
                }
            }
        }
        dist
    }

    #[test]
    fn grid_edges_are_neighbours_weighted_and_deterministic() {
        let g = road_grid(50, 70, 3).unwrap();
        let e = collect(&g);
        for (&u, &v) in e.src.iter().zip(&e.dst) {
            assert!(v == u + 1 && u % 70 != 69 || v == u + 70, "{u}-{v} is not a grid edge");
        }
        let full = 50 * 69 + 49 * 70;
        let removed = full - e.len();
        assert!((560..820).contains(&removed), "removed {removed} of {full}");
        let w = e.weights.as_ref().unwrap();
        assert!(w.iter().all(|&x| (1.0..=255.0).contains(&x) && x.fract() == 0.0));
        assert_eq!(e, collect(&g));
        assert_ne!(e, collect(&road_grid(50, 70, 4).unwrap()));
    }

    #[test]
    fn diameter_is_about_rows_plus_cols() {
        let (rows, cols) = (120u64, 90u64);
        let e = collect(&road_grid(rows, cols, 11).unwrap());
        let n = (rows * cols) as usize;
        let d = bfs(n, &e, n / 2 + 7); // some vertex near the centre
        let reached: Vec<u32> = d.iter().copied().filter(|&x| x != u32::MAX).collect();
        assert!(reached.len() > n * 9 / 10, "giant component has {} of {n}", reached.len());
        // Eccentricity of the corner of the giant component ~ rows + cols.
        let far = d.iter().enumerate().filter(|(_, &x)| x != u32::MAX).max_by_key(|(_, &x)| x).unwrap().0;
        let ecc = *bfs(n, &e, far).iter().filter(|&&x| x != u32::MAX).max().unwrap() as u64;
        assert!(ecc >= (rows + cols) * 8 / 10 && ecc <= (rows + cols) * 3 / 2, "eccentricity {ecc}");
    }

    #[test]
    fn many_blocks_match_thread_count_independence() {
        let g = road_grid(3000, 400, 2).unwrap(); // > 1 block
        let a = collect(&g);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(a, pool.install(|| collect(&g)));
        // A row wider than a block is split across blocks: every grid edge once, each block
        // within the block size.
        let wide = road_grid(2, 3 * BLOCK_EDGES / 2 + 5, 9).unwrap();
        assert_eq!(wide.blocks_per_row(), 4);
        let mut largest = 0;
        let mut seen = std::collections::HashSet::new();
        wide.for_each_batch(&mut |b| {
            largest = largest.max(b.len());
            for (&u, &v) in b.src.iter().zip(&b.dst) {
                assert!(seen.insert((u, v)), "{u}-{v} twice");
            }
            Ok(())
        })
        .unwrap();
        assert!(largest as u64 <= BLOCK_EDGES, "a block of {largest} edges");
        let full = 2 * (wide.cols - 1) + wide.cols;
        assert!(
            (full * 85 / 100..full * 95 / 100).contains(&(seen.len() as u64)),
            "{} of {full}",
            seen.len()
        );
        assert!(road_grid(0, 5, 1).is_err());
        assert!(road_grid(1 << 20, 1 << 20, 1).is_err());
    }
}
