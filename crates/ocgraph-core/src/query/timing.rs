//! What the query runner records of each query's timing, in memory that does not grow with
//! the number of queries: a latency histogram per client and the progress checkpoints.
//!
//! Keeping `(index, latency, completion)` for every query instead (24 bytes each, in vectors
//! that double as they grow) would hold ~40 MB after 1M queries.
//! Under a memory cgroup (the mmap benchmark caps the whole process at 10% of the graph) that
//! memory would squeeze the page cache as the run goes on.
//!
//! - [`Histogram`]: log-linear buckets, exact below 128 ns and 128 buckets per power of two
//!   above, so a reported percentile is within 1/128 of the true value (the mean and maximum
//!   are exact). 7,424 counters (58 KiB) per client.
//! - [`Checkpoints`]: for every span of queries between two checkpoints (`n` = 1, 2, 5, 10, 20,
//!   ...), the latest completion time of a query in it; the time by which the first `n`
//!   queries had all been answered is the running maximum over the spans up to `n`.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// Sub-buckets per power of two (as bits): relative precision 1/128.
const SUB_BITS: u32 = 7;
const SUB: usize = 1 << SUB_BITS;
/// Buckets for every `u64` value.
const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB;

/// Query latency summary in microseconds (nearest-rank percentiles, within 1/128 of the exact
/// value: [`Histogram`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Mean.
    pub mean_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 95th percentile.
    pub p95_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Maximum.
    pub max_us: f64,
}

/// Latencies in nanoseconds, counted in log-linear buckets.
#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Box<[u64]>,
    n: u64,
    sum: u128,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; BUCKETS].into_boxed_slice(), n: 0, sum: 0, max: 0 }
    }
}

/// The bucket of `ns`: the value itself below [`SUB`], else the power of two and the
/// [`SUB_BITS`] bits below the leading one.
fn bucket(ns: u64) -> usize {
    if ns < SUB as u64 {
        return ns as usize;
    }
    let exp = 63 - ns.leading_zeros();
    let sub = (ns >> (exp - SUB_BITS)) as usize & (SUB - 1);
    (exp - SUB_BITS + 1) as usize * SUB + sub
}

/// The middle of bucket `b`'s values.
fn middle(b: usize) -> f64 {
    if b < SUB {
        return b as f64;
    }
    let shift = (b / SUB) as u32 - 1;
    let low = ((SUB + b % SUB) as u64) << shift;
    low as f64 + ((1u64 << shift) - 1) as f64 / 2.0
}

impl Histogram {
    /// Counts one latency.
    pub fn record(&mut self, ns: u64) {
        self.counts[bucket(ns)] += 1;
        self.n += 1;
        self.sum += ns as u128;
        self.max = self.max.max(ns);
    }

    /// Adds `other`'s counts (another client's).
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        self.n += other.n;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }

    /// The `p` quantile: the middle of the bucket holding the `ceil(p * n)`-th smallest
    /// latency, in nanoseconds (at most the maximum).
    fn quantile(&self, p: f64) -> f64 {
        let rank = ((p * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return middle(b).min(self.max as f64);
            }
        }
        self.max as f64
    }

    /// Mean, p50, p95, p99 and maximum, in microseconds (all zero when nothing was counted).
    pub fn summary(&self) -> Latency {
        if self.n == 0 {
            return Latency::default();
        }
        Latency {
            mean_us: self.sum as f64 / self.n as f64 / 1e3,
            p50_us: self.quantile(0.50) / 1e3,
            p95_us: self.quantile(0.95) / 1e3,
            p99_us: self.quantile(0.99) / 1e3,
            max_us: self.max as f64 / 1e3,
        }
    }
}

/// When the first `n` queries of a stream had all been answered, for `n` = 1, 2, 5, 10, 20,
/// 50, ... and the stream's length; shared by the clients.
#[derive(Debug)]
pub struct Checkpoints {
    /// The checkpoints `n`, increasing, the last the stream's length.
    marks: Vec<usize>,
    /// Per span `[marks[k - 1], marks[k])` of query indexes: the latest completion (ns).
    latest: Vec<AtomicU64>,
}

impl Checkpoints {
    /// The checkpoints of a stream of `len` queries.
    pub fn new(len: usize) -> Checkpoints {
        let mut marks = Vec::new();
        let mut base = 1usize;
        'outer: loop {
            for m in [1, 2, 5] {
                if base * m >= len {
                    break 'outer;
                }
                marks.push(base * m);
            }
            base *= 10;
        }
        marks.push(len);
        let latest = marks.iter().map(|_| AtomicU64::new(0)).collect();
        Checkpoints { marks, latest }
    }

    /// Query `i` was answered `end_ns` after the start.
    pub fn done(&self, i: usize, end_ns: u64) {
        let k = self.marks.partition_point(|&m| m <= i);
        self.latest[k].fetch_max(end_ns, Ordering::Relaxed);
    }

    /// `(n, seconds)` at every checkpoint (an empty stream has none).
    pub fn progress(&self) -> Vec<(usize, f64)> {
        if self.marks == [0] {
            return Vec::new();
        }
        let mut latest = 0u64;
        self.marks
            .iter()
            .zip(&self.latest)
            .map(|(&n, t)| {
                latest = latest.max(t.load(Ordering::Relaxed));
                (n, latest as f64 / 1e9)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The exact `p` quantile: the `ceil(p * n)`-th smallest.
    fn exact(sorted: &[u64], p: f64) -> f64 {
        sorted[((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1] as f64
    }

    #[test]
    fn buckets_are_ordered_and_hold_their_values() {
        let mut last = 0;
        for ns in
            (0..5000u64).chain((13..64).flat_map(|e| [1u64 << e, (1 << e) + 1, (1 << e) + (1 << (e - 1))]))
        {
            let b = bucket(ns);
            assert!(b >= last && b < BUCKETS, "{ns}");
            last = b;
            assert!((middle(b) - ns as f64).abs() <= ns as f64 / SUB as f64, "{ns} in bucket {b}");
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn percentiles_are_within_one_128th_of_the_exact_ones_and_merge_across_clients() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let ns: Vec<u64> = (0..20_000).map(|_| (rng.gen::<f64>().powi(4) * 5e7) as u64 + 50).collect();
        let (mut a, mut b) = (Histogram::default(), Histogram::default());
        for (i, &x) in ns.iter().enumerate() {
            if i % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
        }
        a.merge(&b);
        let l = a.summary();
        let mut sorted = ns.clone();
        sorted.sort_unstable();
        for (got, p) in [(l.p50_us, 0.5), (l.p95_us, 0.95), (l.p99_us, 0.99)] {
            let want = exact(&sorted, p) / 1e3;
            assert!((got - want).abs() <= want / SUB as f64, "p{p}: {got} vs {want}");
        }
        assert_eq!(l.max_us, *sorted.last().unwrap() as f64 / 1e3);
        let mean = ns.iter().sum::<u64>() as f64 / ns.len() as f64 / 1e3;
        assert!((l.mean_us - mean).abs() < 1e-9 * mean);
        assert_eq!(Histogram::default().summary().max_us, 0.0);
    }

    #[test]
    fn checkpoints_wait_for_the_slowest_query_before_them() {
        // Completion times out of order (several clients).
        let done: Vec<u64> = vec![5, 1, 9, 2, 3, 4, 20, 6, 7, 8, 10, 11];
        let c = Checkpoints::new(done.len());
        for (i, &t) in done.iter().enumerate().rev() {
            c.done(i, t);
        }
        let p = c.progress();
        assert_eq!(p.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 2, 5, 10, 12]);
        // Brute force: the latest completion among the first n.
        for &(n, t) in &p {
            assert_eq!(t, *done[..n].iter().max().unwrap() as f64 / 1e9, "n = {n}");
        }
        let one = Checkpoints::new(1);
        one.done(0, 7);
        assert_eq!(one.progress(), vec![(1, 7e-9)]);
        assert!(Checkpoints::new(0).progress().is_empty());
    }
}
