//! [`FirstValues`]: the value each vertex had before its first change since the last drain
//! (what a maintained result's `changes()` reports as old values), kept without hashing: a bit
//! per vertex says whether it is already noted, and the noted vertices are a plain list.

use ocgraph_core::memory::try_resize;
use ocgraph_core::{Result, Vertex};

/// First values of the vertices changed since the last [`FirstValues::drain`].
#[derive(Debug)]
pub struct FirstValues<T> {
    /// Bit `x` set when `x` is in `list`.
    seen: Vec<u64>,
    list: Vec<(Vertex, T)>,
}

impl<T> Default for FirstValues<T> {
    fn default() -> Self {
        FirstValues { seen: Vec::new(), list: Vec::new() }
    }
}

impl<T: Copy> FirstValues<T> {
    /// Notes `before` as `x`'s first value unless `x` is already noted.
    #[inline]
    pub fn note(&mut self, x: Vertex, before: T) {
        let (w, b) = (x as usize / 64, x % 64);
        if w >= self.seen.len() {
            self.seen.resize(w + 1, 0);
        }
        if self.seen[w] >> b & 1 == 0 {
            self.seen[w] |= 1 << b;
            self.list.push((x, before));
        }
    }

    /// Makes room to note vertices below `n` without growing in [`FirstValues::note`]; an
    /// error naming `what` when the memory cannot be had.
    pub fn reserve(&mut self, n: usize, what: impl FnOnce() -> String) -> Result<()> {
        let words = n.div_ceil(64).max(self.seen.len());
        try_resize(&mut self.seen, words, 0, what)
    }

    /// The noted vertices with their first values, ascending by vertex; forgets them.
    pub fn drain(&mut self) -> Vec<(Vertex, T)> {
        for &(x, _) in &self.list {
            self.seen[x as usize / 64] &= !(1 << (x % 64));
        }
        let mut out = std::mem::take(&mut self.list);
        out.sort_unstable_by_key(|e| e.0);
        out
    }

    /// Forgets every noted vertex.
    pub fn clear(&mut self) {
        self.drain();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_value_until_drained() {
        let mut f = FirstValues::default();
        f.note(200, 1);
        f.note(3, 2);
        f.note(200, 9);
        assert_eq!(f.drain(), vec![(3, 2), (200, 1)]);
        assert_eq!(f.drain(), vec![]);
        f.note(200, 5);
        assert_eq!(f.drain(), vec![(200, 5)]);
    }
}
