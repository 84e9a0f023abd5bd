//! [`BucketQueue`]: vertices ordered by a positive priority, within a factor of two, in
//! constant time per operation: one bucket per binary exponent of the priority, a bucket
//! recorded per vertex. Maintained PageRank pushes the vertices whose residual is largest for
//! the arcs a push reads first.

use ocgraph_core::memory::try_resize;
use ocgraph_core::{Result, Vertex};

/// Recorded for a vertex that is in no bucket.
const NONE: u16 = u16::MAX;

/// The bucket of a priority: its binary exponent (the biased exponent field of the `f64`,
/// 1 to 2046 for positive normal numbers, 0 for subnormals, 2047 for infinity).
fn bucket_of(priority: f64) -> u16 {
    (priority.to_bits() >> 52) as u16 & 0x7ff
}

/// A set of vertices popped highest priority first, up to a factor of two between vertices
/// whose priorities share a binary exponent (popped last in, first out). A vertex whose
/// priority rose is raised to its new bucket at once; one whose priority fell is moved down
/// when it reaches the top, so every pop returns a vertex of the highest bucket.
#[derive(Debug, Default)]
pub struct BucketQueue {
    buckets: Vec<Vec<Vertex>>,
    /// The bucket each vertex is filed in ([`NONE`]: not queued); a vertex may also sit in
    /// lower buckets, stale entries skipped when popped.
    at: Vec<u16>,
    /// No bucket above this one holds a vertex.
    top: usize,
}

impl BucketQueue {
    /// Makes room for the vertices below `n`; an error naming `what` when the memory cannot
    /// be had.
    pub fn resize(&mut self, n: usize, what: impl FnOnce() -> String) -> Result<()> {
        if self.buckets.is_empty() {
            // Every exponent field value, infinity's too.
            self.buckets = (0..=bucket_of(f64::INFINITY)).map(|_| Vec::new()).collect();
        }
        try_resize(&mut self.at, n, NONE, what)
    }

    /// Queues `v` with `priority` (positive), or raises it there when it is queued lower.
    #[inline]
    pub fn raise(&mut self, v: Vertex, priority: f64) {
        let b = bucket_of(priority);
        let at = &mut self.at[v as usize];
        if *at == NONE || b > *at {
            *at = b;
            self.buckets[b as usize].push(v);
            self.top = self.top.max(b as usize);
        }
    }

    /// The queued vertex of the highest bucket, taken out of the queue; `None` when empty.
    /// `priority` gives a vertex's priority now: a vertex whose priority fell to a lower
    /// bucket is filed there instead of returned, and one whose priority is no longer
    /// positive leaves the queue.
    pub fn pop(&mut self, priority: impl Fn(Vertex) -> f64) -> Option<Vertex> {
        loop {
            let Some(v) = self.buckets[self.top].pop() else {
                if self.top == 0 {
                    return None;
                }
                self.top -= 1;
                continue;
            };
            let at = &mut self.at[v as usize];
            if *at as usize != self.top {
                continue;
            }
            let p = priority(v);
            if p.is_nan() || p <= 0.0 {
                *at = NONE;
                continue;
            }
            let b = bucket_of(p);
            if (b as usize) < self.top {
                *at = b;
                self.buckets[b as usize].push(v);
                continue;
            }
            *at = NONE;
            return Some(v);
        }
    }

    /// Empties the queue.
    pub fn clear(&mut self) {
        for b in &mut self.buckets {
            for &v in b.iter() {
                self.at[v as usize] = NONE;
            }
            b.clear();
        }
        self.top = 0;
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    /// Against a plain array of priorities: every pop returns a queued vertex whose priority is
    /// within a factor of two of the largest queued one; raised and lowered priorities; each
    /// vertex popped once per queueing.
    #[test]
    fn pops_the_highest_bucket_first() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let n = 300;
        let mut q = BucketQueue::default();
        q.resize(n, String::new).unwrap();
        let mut prio = vec![0.0f64; n];
        let mut queued = vec![false; n];
        for round in 0..5000 {
            if rng.gen_bool(0.6) {
                let v = rng.gen_range(0..n);
                // Over many binary exponents, down to subnormal ones, and infinity.
                let p = if rng.gen_bool(0.01) {
                    f64::INFINITY
                } else {
                    rng.gen::<f64>() * 2f64.powi(rng.gen_range(-1074..60))
                };
                if p > 0.0 {
                    prio[v] = p;
                    queued[v] = true;
                    q.raise(v as Vertex, p);
                }
            } else if rng.gen_bool(0.3) {
                // A queued vertex's priority falls (or drops to 0) without telling the queue.
                let v = rng.gen_range(0..n);
                prio[v] *= [0.0, 0.1, 0.7][rng.gen_range(0..3)];
            } else {
                let best =
                    (0..n).filter(|&v| queued[v] && prio[v] > 0.0).map(|v| prio[v]).fold(0.0, f64::max);
                match q.pop(|v| prio[v as usize]) {
                    None => assert_eq!(best, 0.0, "round {round}: empty with {best} queued"),
                    Some(v) => {
                        let v = v as usize;
                        assert!(queued[v], "round {round}: {v} popped, not queued");
                        assert!(
                            prio[v] > 0.0 && prio[v] * 2.0 >= best,
                            "round {round}: popped {} with {best} queued",
                            prio[v]
                        );
                        queued[v] = false;
                    }
                }
            }
            if round % 1000 == 999 {
                q.clear();
                queued.iter_mut().for_each(|x| *x = false);
                assert_eq!(q.pop(|v| prio[v as usize]), None);
            }
        }
    }
}
