//! [`SweepSchedule`]: when maintained PageRank brings its residual back by pushing and when
//! by a sweep. Pushing a batch's residual is cheap right after a sweep and grows from batch to
//! batch (each push leaves most of what it moved spread more thinly over the neighbours, and
//! thin residual costs more arcs per unit taken off); a sweep costs a few pulls and starts
//! over. The schedule keeps the cost of the current cycle (the sweep that began it and the
//! pushes since) and sweeps once the next batch's pushes are expected to cost more than the
//! cycle's average per batch: past that point every further batch of pushes raises the average
//! a cycle costs. The next batch's cost is predicted from the last two batches' growth.

/// How many times an arc read by a push costs one read by a pull (a push reads its vertex's
/// list and adds to residuals and the queue at random, a pull streams the lists, two threads
/// at once). Set from the stream times on kron20 at tolerance 1e-9
/// (`bench/incremental/run.py --kernels pagerank`): with additions, 2.04-2.12 s at 10, 1.95
/// at 15, 1.83-1.89 at 20 and 1.83 at 30; with 50/50 and at 1e-8, 20 and 30 were as fast
/// as 10 or faster.
pub const PUSH_COST: f64 = 20.0;

/// The most the predicted cost of a batch's pushes grows over the last batch's (a batch that
/// pushed a few arcs does not make the next one look a thousand times dearer).
const MAX_GROWTH: f64 = 4.0;

/// Costs in arcs read by a pull, a pushed arc counting [`PUSH_COST`] of them.
#[derive(Debug, Clone, Copy, Default)]
pub struct SweepSchedule {
    /// The sweep that began the cycle and every push since.
    cycle: f64,
    /// Batches since the cycle began, the sweeping one included.
    batches: u64,
    /// The pushes of the last batch that pushed, and of the one before it in this cycle.
    last: f64,
    prev: f64,
}

impl SweepSchedule {
    /// Begins a cycle with a sweep that pulled `arcs` arcs in all, during a batch.
    pub fn swept(&mut self, arcs: u64) {
        *self = SweepSchedule { cycle: arcs as f64, batches: 1, last: 0.0, prev: 0.0 };
    }

    /// Counts a batch of the cycle.
    pub fn batch(&mut self) {
        self.batches += 1;
    }

    /// Counts the pushes of a batch, `arcs` arcs read.
    pub fn pushed(&mut self, arcs: u64) {
        let cost = arcs as f64 * PUSH_COST;
        self.cycle += cost;
        (self.prev, self.last) = (self.last, cost);
    }

    /// The cycle's cost per batch so far.
    fn average(&self) -> f64 {
        self.cycle / self.batches.max(1) as f64
    }

    /// Whether the next batch past the target should sweep rather than push: its pushes,
    /// predicted as the last batch's times the growth from the one before, cost more than the
    /// cycle's average.
    pub fn should_sweep(&self) -> bool {
        let predicted =
            if self.prev > 0.0 { self.last * (self.last / self.prev).min(MAX_GROWTH) } else { self.last };
        predicted > self.average()
    }

    /// The arcs a batch's pushes may read before it sweeps instead: twice the cycle's average.
    pub fn push_budget(&self) -> u64 {
        (2.0 * self.average() / PUSH_COST).ceil() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On pushes that double from batch to batch after a sweep of cost `S`, the schedule
    /// sweeps when the next batch would cost more than the average so far, which is where the
    /// average of a whole cycle is smallest.
    #[test]
    fn sweeps_where_the_cycle_average_is_least() {
        let sweep = 1000;
        let push = |k: u32| (10u64 << k) as f64 * PUSH_COST;
        // The best cycle length by brute force: sweep, then pushes 0..k.
        let average = |k: u32| (sweep as f64 + (0..k).map(push).sum::<f64>()) / (k + 1) as f64;
        let best = (0..12).min_by(|&a, &b| average(a).total_cmp(&average(b))).unwrap();
        let mut s = SweepSchedule::default();
        s.swept(sweep);
        let mut k: u32 = 0;
        while !s.should_sweep() {
            s.batch();
            s.pushed(10u64 << k);
            k += 1;
        }
        assert!(k.abs_diff(best) <= 1, "swept after {k} pushing batches, best {best}");
        assert!(average(k) <= average(best) * 1.1);
        // Cheap pushes go on; pushes growing past the average do not. A sweep of `S = 200 P`
        // arcs (`P` = PUSH_COST):
        let sweep = (200.0 * PUSH_COST) as u64;
        let mut s = SweepSchedule::default();
        s.swept(sweep);
        s.batch();
        s.pushed(100);
        // The average is (S + 100 P) / 2 = 150 P, the prediction 100 P: below it.
        assert!(!s.should_sweep());
        assert_eq!(s.push_budget(), ((sweep as f64 + 100.0 * PUSH_COST) / PUSH_COST).ceil() as u64);
        s.batch();
        s.pushed(200);
        // The average is (S + 300 P) / 3 = 167 P, the prediction 400 P: above it.
        assert!(s.should_sweep());
    }
}
