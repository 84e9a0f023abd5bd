//! A fixed-size concurrent bitmap over vertex ids (one bit per vertex), used for dense
//! frontiers. Setting is an atomic `fetch_or`; reading is a relaxed load.

use std::sync::atomic::{AtomicU64, Ordering};

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
