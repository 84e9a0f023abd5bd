//! A fixed-size concurrent bitmap over vertex ids (one bit per vertex), used for dense
//! frontiers. Setting is an atomic `fetch_or`; reading is a relaxed load.

use std::sync::atomic::{AtomicU64, Ordering};

use ocgraph_core::Vertex;
use rayon::prelude::*;

/// One bit per vertex; safe to set from many threads.
pub(crate) struct Bitmap {
    words: Vec<AtomicU64>,
    /// The vertex count: the bits past it, in the last word, are no vertex's.
    n: usize,
}

impl Bitmap {
    /// An all-zero bitmap for `n` vertices.
    pub(crate) fn new(n: usize) -> Bitmap {
        Bitmap { words: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(), n }
    }

    /// Sets bit `v`.
    #[inline]
    pub(crate) fn set(&self, v: u32) {
        self.words[(v / 64) as usize].fetch_or(1 << (v % 64), Ordering::Relaxed);
    }

    /// Sets bit `v` with a plain load and store instead of an atomic read-modify-write. Only
    /// for a caller that is the one thread writing `v`'s word (64 vertices, aligned) meanwhile,
    /// as a scan of a block of [`crate::chunks::VERTEX_BLOCK`] vertices is; otherwise a
    /// concurrent `set` of another bit of the word could be lost.
    #[inline]
    pub(crate) fn set_in_owned_word(&self, v: u32) {
        let w = &self.words[(v / 64) as usize];
        w.store(w.load(Ordering::Relaxed) | 1 << (v % 64), Ordering::Relaxed);
    }

    /// Whether bit `v` is set. Panics when `v` is no vertex, also for the ids that the last
    /// word has bits for: `v` comes from a neighbour list, and an id past the vertex count
    /// there is damage (which `run` then reports as the damaged file), not a vertex to skip.
    #[inline]
    pub(crate) fn get(&self, v: u32) -> bool {
        assert!((v as usize) < self.n, "vertex {v} out of range ({} vertices)", self.n);
        self.words[(v / 64) as usize].load(Ordering::Relaxed) & (1 << (v % 64)) != 0
    }

    /// Clears every bit (in parallel).
    pub(crate) fn clear(&self) {
        self.words.par_iter().for_each(|w| w.store(0, Ordering::Relaxed));
    }

    /// The set bits as a vertex list sorted by id.
    pub(crate) fn to_sorted_vec(&self) -> Vec<u32> {
        const WORDS_PER_TASK: usize = 1024;
        let parts: Vec<Vec<u32>> = self
            .words
            .par_chunks(WORDS_PER_TASK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut out = Vec::new();
                for (i, w) in chunk.iter().enumerate() {
                    let mut bits = w.load(Ordering::Relaxed);
                    let base = ((c * WORDS_PER_TASK + i) * 64) as u32;
                    while bits != 0 {
                        out.push(base + bits.trailing_zeros());
                        bits &= bits - 1;
                    }
                }
                out
            })
            .collect();
        parts.concat()
    }
}

/// Sorts `vs` and removes repeats by setting their bits in `marks` (all zero, and zero again on
/// return) and reading the set bits in order: for a list of at least `n / 64` vertices (`n` the
/// bits of `marks`) the scan reads at most one word per vertex and costs less than a sort.
pub(crate) fn sort_through_bitmap(vs: &mut Vec<Vertex>, marks: &mut [u64]) {
    for &v in vs.iter() {
        marks[v as usize / 64] |= 1 << (v % 64);
    }
    vs.clear();
    for (i, word) in marks.iter_mut().enumerate() {
        let mut bits = std::mem::take(word);
        while bits != 0 {
            vs.push((i * 64) as Vertex + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn sorting_through_the_bitmap_equals_sort_and_dedup_and_clears_the_bits() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for n in [1usize, 63, 64, 65, 1000, 4099] {
            let mut marks = vec![0u64; n.div_ceil(64)];
            for len in [0, 1, n / 2, 3 * n] {
                let mut vs: Vec<Vertex> = (0..len).map(|_| rng.gen_range(0..n as Vertex)).collect();
                let mut want = vs.clone();
                want.sort_unstable();
                want.dedup();
                sort_through_bitmap(&mut vs, &mut marks);
                assert_eq!(vs, want, "n {n}, {len} vertices");
                assert!(marks.iter().all(|&w| w == 0), "bits left set: n {n}");
            }
        }
    }
}
