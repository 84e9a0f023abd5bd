//! [`ComponentSizes`]: the number of vertices of every component label, with a bit per label
//! saying whether the component is large and, while there are few large components, their
//! labels in a short list, so that asking "is this component large?" about a random label
//! costs a scan of that list (one giant component on most graphs) or a read of the bitmap (an
//! eighth of a byte per vertex) instead of a cache miss on the count (4 bytes per vertex) for
//! the common answer no.

use ocgraph_core::memory::try_resize;
use ocgraph_core::Result;

/// Component sizes by label, and which components have at least `big` vertices.
#[derive(Debug, Default)]
pub struct ComponentSizes {
    sizes: Vec<u32>,
    /// Bit `l` set when `sizes[l] >= big`.
    large: Vec<u64>,
    /// The labels whose bit is set, in no order.
    large_labels: Vec<u32>,
    big: u32,
}

/// Up to this many large components, [`ComponentSizes::is_large`] scans their labels rather
/// than reading the bitmap (a read of a random bit of it misses the cache on a large graph).
const LISTED: usize = 8;

impl ComponentSizes {
    /// No labels yet; components of at least `big` vertices (at least 1) count as large.
    pub fn new(big: u32) -> ComponentSizes {
        ComponentSizes { sizes: Vec::new(), large: Vec::new(), large_labels: Vec::new(), big: big.max(1) }
    }

    /// Whether no label is counted (programs without labels).
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Forgets every count.
    pub fn clear(&mut self) {
        self.sizes.clear();
        self.large.clear();
        self.large_labels.clear();
    }

    /// Makes room for labels below `n` (new labels count 0); an error naming `what` when the
    /// memory cannot be had.
    pub fn resize(&mut self, n: usize, what: impl Fn() -> String) -> Result<()> {
        try_resize(&mut self.sizes, n, 0, &what)?;
        try_resize(&mut self.large, n.div_ceil(64), 0, what)
    }

    /// Counts one more vertex of label `l`.
    #[inline]
    pub fn add(&mut self, l: u32) {
        let s = &mut self.sizes[l as usize];
        *s += 1;
        if *s == self.big {
            self.mark(l, true);
        }
    }

    /// Counts one vertex fewer of label `l`.
    #[inline]
    pub fn remove(&mut self, l: u32) {
        let s = &mut self.sizes[l as usize];
        *s -= 1;
        if *s + 1 == self.big {
            self.mark(l, false);
        }
    }

    /// Counts `k` vertices of label `from` as of label `to` instead.
    pub fn transfer(&mut self, from: u32, to: u32, k: u32) {
        self.sizes[from as usize] -= k;
        self.sizes[to as usize] += k;
        for l in [from, to] {
            self.mark(l, self.sizes[l as usize] >= self.big);
        }
    }

    /// Sets whether label `l` is large, in the bitmap and the list.
    fn mark(&mut self, l: u32, large: bool) {
        let (w, bit) = (l as usize / 64, 1u64 << (l % 64));
        if (self.large[w] & bit != 0) == large {
            return;
        }
        self.large[w] ^= bit;
        if large {
            self.large_labels.push(l);
        } else if let Some(i) = self.large_labels.iter().position(|&m| m == l) {
            self.large_labels.swap_remove(i);
        }
    }

    /// Whether the component of label `l` has at least `big` vertices (the size given to
    /// [`ComponentSizes::new`]).
    #[inline]
    pub fn is_large(&self, l: u32) -> bool {
        if self.large_labels.len() <= LISTED {
            self.large_labels.contains(&l)
        } else {
            self.large[l as usize / 64] >> (l % 64) & 1 == 1
        }
    }

    /// The number of vertices of label `l`.
    #[inline]
    pub fn count(&self, l: u32) -> u32 {
        self.sizes[l as usize]
    }

    /// Loads the count of label `l` into the CPU cache (see `Tree::note_batch`).
    #[inline]
    pub fn warm(&self, l: u32) {
        std::hint::black_box(self.sizes.get(l as usize).copied());
    }

    /// Whether the component of label `l` has at least `from` vertices; reads only
    /// [`ComponentSizes::is_large`] when `from >= big` and the component is smaller than `big`.
    #[inline]
    pub fn at_least(&self, l: u32, from: u32) -> bool {
        if from >= self.big && !self.is_large(l) {
            return false;
        }
        self.sizes[l as usize] >= from
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After random additions, removals and transfers, `is_large` and `at_least` equal
    /// comparisons of plain counts, for thresholds below, at and above `big`.
    #[test]
    fn at_least_matches_plain_counts() {
        let mut s = ComponentSizes::new(3);
        s.resize(130, String::new).unwrap();
        let mut plain = vec![0u32; 130];
        let mut regimes = [0u32; 2];
        let mut x = 12345u64;
        for _ in 0..5000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let l = (x >> 33) as u32 % 130;
            let to = (x >> 13) as u32 % 130;
            if x >> 60 == 1 {
                // Move every vertex of `l` to `to` (as a relabelling does).
                let k = plain[l as usize];
                s.transfer(l, to, k);
                plain[l as usize] -= k;
                plain[to as usize] += k;
            } else if plain[l as usize] > 0 && x >> 62 == 0 {
                s.remove(l);
                plain[l as usize] -= 1;
            } else if plain[l as usize] < 6 {
                s.add(l);
                plain[l as usize] += 1;
            }
            let large = plain.iter().filter(|&&c| c >= 3).count();
            regimes[usize::from(large > LISTED)] += 1;
            for m in [l, to] {
                assert_eq!(s.is_large(m), plain[m as usize] >= 3, "label {m}");
                for from in [1, 2, 3, 4, 6, 12] {
                    assert_eq!(s.at_least(m, from), plain[m as usize] >= from, "label {m} from {from}");
                }
            }
        }
        // Both ways of answering `is_large` were exercised: the list and the bitmap.
        assert!(regimes[0] > 100 && regimes[1] > 100, "{regimes:?}");
    }
}
