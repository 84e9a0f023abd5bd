//! PageRank kept within its tolerance by residual push and sweeps (networkx semantics: damping
//! `d`, uniform teleport, dangling mass spread uniformly, weights when the graph has them).
//!
//! With `T_c(x) = d * P^T x + (d * dangling(x) + c) / n`, networkx's iteration is `T_{1-d}`; the
//! scores normalised to sum 1 are the same for every teleport mass `c > 0` (the fixed point is
//! linear in `c`), so the state keeps its own `c`, and a residual that every vertex shares
//! equally (what dangling vertices push, or stop pushing, goes to every vertex) changes `c`
//! instead of the residuals. The state is the scores `x` and the residual `T_c(x) - x`, kept in
//! two parts: a per-vertex part `r`, and a pending share `p_u` per vertex: of `u`'s contribution
//! `d * x_u * w / W(u)` to each out-neighbour, the residuals hold `(d * x_u / W(u) - p_u) * w`.
//!
//! A batch changes the residual only through the vertices whose out-lists changed. For such a
//! vertex `u` only the arcs that changed touch a neighbour (a removed arc takes back the share
//! the neighbour holds, an added one gets that same share) and the change of `W(u)` moves into
//! `p_u`: a hub losing one arc of 60,000 costs one residual update, not 120,000. On unweighted
//! graphs the changed arcs are point reads of the previous and the current snapshot
//! (`arc_weights_to`) and `W(u)` the degree; weighted graphs merge the two lists of `u` to sum
//! `W(u)` exactly.
//! `Σ |r_v| + Σ |p_u| W(u)` bounds `Σ |T_c(x) - x|`, and while it is within
//! [`PageRank::target`] the batch costs nothing more.
//!
//! Past it, the vertices whose residual exceeds `tol` are pushed (`r_v` moves into `x_v`, and
//! `d * r_v * w / W(v)` plus the pending share to each out-neighbour, or out of `c` when `v`
//! is dangling) until the bound holds again, the largest residual per arc read first (a
//! [`BucketQueue`]): a batch's fresh residual sits on few vertices and goes first, the thin
//! residual earlier pushes spread over the neighbours waits. Residual spread thinly over many
//! vertices is taken off faster by sweeps: when no vertex is left above `tol`, when the batch
//! left more than [`WARM_FACTOR`] times the target, or when the [`SweepSchedule`] expects
//! the batch's pushes to cost more than the batches since the last sweep have cost on average
//! or they read past its budget (pushes grow from batch to batch as the residual thins; the
//! sweep and those pushes are counted in arcs read, a pushed arc as several pulled ones),
//! the scores move by their whole residual at once (`x + r - (Σ R / n) 1` is one step of
//! networkx's iteration without reading an arc, up to the pending shares; see
//! [`PageRank::step`]), are normalised to sum 1 (`c = 1 - d` again) and
//! one pull over the in-lists
//! ([`crate::pagerank`]'s power iteration from the current scores) computes the residual exactly
//! again, pending shares included; further pulls follow until the residual is at most
//! [`SETTLE_TO`] of the target, which leaves later batches room before the next sweep. On large
//! graphs the pulls store contributions as `f32`, as the static kernel does; the bound then
//! adds how far their rounding may put the computed residual from the exact one.
//!
//! The target is on how far one more networkx iteration would move the result: with
//! `R = T_c(x) - x`, `s = Σ x` and the result `x / s`, that iteration moves it by
//! `(R - (Σ R / n) 1) / s`, and `Σ R = c - (1 - d) s` exactly (every score passes on `d` of
//! itself, and `c` comes in), so the move is at most `(Σ |R| + |c - (1 - d) s|) / s` in L1
//! ([`PageRank::move_bound`] over `s`). The state keeps that within `f n tol`, `f` =
//! [`TARGET_FRACTION`]: within networkx's criterion (`n * tol`) with a tenth of it to spare.
//! A residual whose positive and negative parts balance may take all of it, a residual of one
//! sign half.
//!
//! The first computation is the static kernel ([`crate::pagerank`], Jacobi) followed by one
//! pass computing `r`. Memory: 32 bytes per vertex (scores, residuals, out-weights, pending
//! shares), 2 for the queue's bucket and its entries (4 bytes each, at most one per queued
//! vertex and bucket it rose through); a sweep adds 20 to 24 bytes per vertex while it runs.

use ocgraph_core::memory::try_reserve;
use ocgraph_core::update::{BatchChanges, Snapshot};
use ocgraph_core::{Adjacency, Error, Result, Vertex};

use super::bucket_queue::BucketQueue;
use super::first_values::FirstValues;
use super::sweep_schedule::SweepSchedule;
use super::{bytes, Changes, Maintained, Values};
use crate::pagerank::{iterate_from, PullGraph};
use crate::{PageRankOptions, PageRankResult};

/// Pushing is skipped for sweeps when a batch leaves the residual above this many times the
/// target (see the module docs).
const WARM_FACTOR: f64 = 4.0;

/// The target's fraction of `s * n * tol` (see the module docs): a result whose next networkx
/// iteration moves it by at most 0.9 of networkx's criterion. The larger the fraction, the more
/// batches fit between sweeps (`bench/incremental/run.py --kernels pagerank` measures it).
const TARGET_FRACTION: f64 = 0.9;

/// Sweeps go on until the residual is at most this fraction of the target (see the module
/// docs).
const SETTLE_TO: f64 = 0.5;

/// Maintained PageRank (see the module docs).
pub struct PageRank {
    damping: f64,
    tol: f64,
    seq: u64,
    x: Vec<f64>,
    r: Vec<f64>,
    /// `p_u`, per unit of arc weight: the part of `d * x_u / W(u)` not yet in the residuals of
    /// `u`'s out-neighbours (0 for dangling vertices).
    pending: Vec<f64>,
    /// `Σ |p_u| W(u)`, kept as pending shares change.
    pending_l1: f64,
    /// `c`, the teleport mass of the iteration the residuals are kept for (see the module
    /// docs).
    teleport: f64,
    /// `Σ |r_v|`, kept as residuals change.
    l1: f64,
    /// How far `r` may be from the exact residual: a sweep's pull with `f32` contributions
    /// rounds them ([`crate::pagerank::f32_rounding_bound`]); pushes and batches change `r`
    /// and the exact residual alike, so the distance stays until the next sweep.
    rounding: f64,
    /// `W(v)`: out-degree or out-weight sum.
    w_out: Vec<f64>,
    /// Number of arcs (kept as batches add and remove them): a pull's cost.
    arcs: u64,
    /// When to push and when to sweep.
    schedule: SweepSchedule,
    /// `Σ x`.
    sum: f64,
    /// The cuts of a sweep's pull ([`crate::pagerank::pull_ranges`], made at the first sweep
    /// on this many vertices).
    ranges: Vec<std::ops::Range<Vertex>>,
    /// The snapshot the state is current for (old lists of changed vertices come from it).
    prev: Option<Snapshot>,
    /// The vertices whose residual exceeds `tol`, largest `|r_v| / (W(v) + 1)` first.
    queue: BucketQueue,
    /// First normalised score since the last `changes` of each vertex pushed since.
    old: FirstValues<f64>,
    /// `Σ x` when `changes` last reported (or the scores were last replaced): a score not
    /// pushed since is as that call saw it over this sum, so old values are normalised by it
    /// (a batch's pushes move `Σ x` before later vertices are first pushed).
    reported_sum: f64,
}

/// The out-arcs of `v` with their weights (1 when unweighted), and their weight sum.
fn out_arcs(snap: &Snapshot, v: Vertex, arcs: &mut Vec<(Vertex, f64)>) -> f64 {
    arcs.clear();
    if (v as usize) >= snap.num_vertices() {
        return 0.0;
    }
    let out = snap.out();
    let ns = out.neighbors(v);
    match out.weights(v) {
        Some(ws) => arcs.extend(ns.iter().zip(ws.iter()).map(|(&y, &w)| (y, w as f64))),
        None => arcs.extend(ns.iter().map(|&y| (y, 1.0))),
    }
    arcs.iter().map(|a| a.1).sum()
}

/// The arcs whose weight differs between the lists `old` and `new` (sorted by neighbour), as
/// `(neighbour, old weight, new weight)` with 0 for a missing arc, into `diff`. Unsorted lists
/// give a longer diff with the same sums per neighbour.
fn list_diff(old: &[(Vertex, f64)], new: &[(Vertex, f64)], diff: &mut Vec<(Vertex, f64, f64)>) {
    let (mut a, mut b) = (0, 0);
    while a < old.len() || b < new.len() {
        match (old.get(a), new.get(b)) {
            (Some(&(y, wy)), Some(&(z, wz))) if y == z => {
                if wy != wz {
                    diff.push((y, wy, wz));
                }
                (a, b) = (a + 1, b + 1);
            }
            (Some(&(y, wy)), Some(&(z, _))) if y < z => {
                diff.push((y, wy, 0.0));
                a += 1;
            }
            (Some(&(y, wy)), None) => {
                diff.push((y, wy, 0.0));
                a += 1;
            }
            (_, Some(&(z, wz))) => {
                diff.push((z, 0.0, wz));
                b += 1;
            }
            (None, None) => unreachable!("the loop runs while a list has arcs left"),
        }
    }
}

/// The push priority of a vertex with residual `r` and out-weight `w`: the residual per arc a
/// push reads (the out-weight standing for the out-degree), when it exceeds `tol`; else 0.
fn priority(r: f64, w: f64, tol: f64) -> f64 {
    if r.abs() > tol {
        r.abs() / (w + 1.0)
    } else {
        0.0
    }
}

/// The smallest tolerance a maintained PageRank takes.
pub const MIN_TOL: f64 = 1e-300;

impl PageRank {
    /// An empty state (no vertices, batch 0), to rebuild or decode into; checks the parameters.
    pub fn empty(damping: f64, tol: f64) -> Result<PageRank> {
        if !(0.0..1.0).contains(&damping) {
            return Err(Error::invalid(format!("pagerank: damping must be in [0, 1), got {damping}")));
        }
        // Far below any useful tolerance, and far enough above f64's subnormal range that a
        // push always shrinks a residual (a subnormal target never was reached: the pushes of
        // the last ulps of residual returned the same values, forever).
        if !(MIN_TOL..=f64::MAX).contains(&tol) {
            return Err(Error::invalid(format!(
                "pagerank: tol must be from {MIN_TOL:e} to a finite value, got {tol:?}"
            )));
        }
        Ok(PageRank {
            damping,
            tol,
            seq: 0,
            x: Vec::new(),
            r: Vec::new(),
            pending: Vec::new(),
            pending_l1: 0.0,
            teleport: 1.0 - damping,
            l1: 0.0,
            rounding: 0.0,
            w_out: Vec::new(),
            arcs: 0,
            schedule: SweepSchedule::default(),
            sum: 0.0,
            ranges: Vec::new(),
            prev: None,
            queue: BucketQueue::default(),
            old: FirstValues::default(),
            reported_sum: 0.0,
        })
    }

    /// What [`PageRank::move_bound`] is kept within: `s * n * tol * TARGET_FRACTION` (see the
    /// module docs).
    fn target(&self) -> f64 {
        self.sum * self.n() as f64 * self.tol * TARGET_FRACTION
    }

    /// `s` times a bound on how far one more networkx iteration moves the result: the bound on
    /// `Σ |R|` plus `|Σ R|` (see the module docs).
    fn move_bound(&self) -> f64 {
        self.bound() + self.residual_sum().abs()
    }

    /// `Σ R = c - (1 - d) s`, exactly (see the module docs).
    fn residual_sum(&self) -> f64 {
        self.teleport - (1.0 - self.damping) * self.sum
    }

    /// The bound on `Σ |T_c(x) - x|` the state keeps (see the module docs).
    fn bound(&self) -> f64 {
        self.l1 + self.pending_l1 + self.rounding
    }

    fn n(&self) -> usize {
        self.x.len()
    }

    /// The push priority of `v` (see [`priority`]).
    fn priority(&self, v: Vertex) -> f64 {
        priority(self.r[v as usize], self.w_out[v as usize], self.tol)
    }

    /// Adds `delta` to `r_y`, queueing `y` when it passes the threshold.
    fn add_residual(&mut self, y: Vertex, delta: f64) {
        let i = y as usize;
        let before = self.r[i];
        let after = before + delta;
        self.r[i] = after;
        self.l1 += after.abs() - before.abs();
        if after.abs() > self.tol {
            self.queue.raise(y, priority(after, self.w_out[i], self.tol));
        }
    }

    /// Pushes queued residuals, largest per arc first, until [`PageRank::move_bound`] is
    /// within [`PageRank::target`]. Returns false (leaving a consistent state for a sweep to finish)
    /// when the queue runs dry first or once it has read `budget` arcs.
    fn push(&mut self, snap: &Snapshot, budget: u64) -> bool {
        let mut arcs = Vec::new();
        let d = self.damping;
        let mut read = 0u64;
        let done = loop {
            if self.move_bound() <= self.target() {
                break true;
            }
            let (r, w_out, tol) = (&self.r, &self.w_out, self.tol);
            let Some(v) = self.queue.pop(|v| priority(r[v as usize], w_out[v as usize], tol)) else {
                break false;
            };
            let i = v as usize;
            let delta = std::mem::take(&mut self.r[i]);
            self.l1 -= delta.abs();
            let w = self.w_out[i];
            let p = std::mem::take(&mut self.pending[i]);
            self.pending_l1 -= p.abs() * w;
            if delta == 0.0 && p == 0.0 {
                continue;
            }
            self.old.note(v, self.x[i] / self.reported_sum);
            self.x[i] += delta;
            self.sum += delta;
            if w > 0.0 {
                // The new share and the pending one, to every out-neighbour at once.
                let share = d * delta / w + p;
                out_arcs(snap, v, &mut arcs);
                read += arcs.len() as u64 + 1;
                for &(y, wy) in &arcs {
                    self.add_residual(y, share * wy);
                }
            } else {
                // Every vertex's residual grows by `d * delta / n`: `c` takes it.
                self.teleport -= d * delta;
            }
            if read > budget {
                break false;
            }
        };
        self.schedule.pushed(read);
        done
    }

    /// Brings the bound back within the target after a batch changed the residual: by pushing,
    /// then (when pushing stops short) by sweeps (see the module docs).
    fn settle(&mut self, snap: &Snapshot) {
        let target = self.target();
        if self.move_bound() <= target {
            return;
        }
        let sweep_now = self.schedule.should_sweep() || self.move_bound() > WARM_FACTOR * target;
        if sweep_now || !self.push(snap, self.schedule.push_budget()) {
            self.sweep(snap);
        }
    }

    /// Applies the change of `u`'s out-arcs to the residuals: `diff` lists the arcs whose weight
    /// changed, as `(neighbour, old weight, new weight)` with 0 for an arc that is not there, and
    /// the out-weight goes from `w_old` to `w_new`. Only those arcs touch a neighbour; the change
    /// of `W(u)` moves into `u`'s pending share (see the module docs).
    fn change_arcs(&mut self, u: Vertex, diff: &[(Vertex, f64, f64)], w_old: f64, w_new: f64) {
        let i = u as usize;
        let d = self.damping;
        let xu = self.x[i];
        let p_old = std::mem::take(&mut self.pending[i]);
        self.pending_l1 -= p_old.abs() * w_old;
        // The share (per unit weight) u's out-neighbours hold.
        let held = if w_old > 0.0 { d * xu / w_old - p_old } else { 0.0 };
        if w_old > 0.0 && w_new > 0.0 {
            // Removed arcs take the held share back, added arcs get it, kept arcs keep it.
            for &(y, wo, wn) in diff {
                self.add_residual(y, held * (wn - wo));
            }
            let p_new = d * xu / w_new - held;
            self.pending[i] = p_new;
            self.pending_l1 += p_new.abs() * w_new;
            return;
        }
        // To or from dangling (every old arc removed, or none there before): the whole
        // contribution moves between the residuals and the share of every vertex, which `c`
        // takes.
        if w_old > 0.0 {
            for &(y, wo, _) in diff {
                self.add_residual(y, -held * wo);
            }
        } else {
            self.teleport += d * xu;
        }
        if w_new > 0.0 {
            let share = d * xu / w_new;
            for &(y, _, wn) in diff {
                self.add_residual(y, share * wn);
            }
        } else {
            self.teleport -= d * xu;
        }
    }

    /// Grows the state to `n` vertices: the teleport share of every vertex changes from
    /// `1 / old n` to `1 / n`; new vertices start with score 0.
    fn grow(&mut self, n: usize) -> Result<()> {
        let old_n = self.n();
        if n <= old_n {
            return Ok(());
        }
        let what = || format!("maintained pagerank's state for {n} vertices");
        for v in [&mut self.x, &mut self.r, &mut self.w_out, &mut self.pending] {
            try_reserve(v, n, what)?;
        }
        self.queue.resize(n, what)?;
        let dangling: f64 = (0..old_n).filter(|&v| self.w_out[v] == 0.0).map(|v| self.x[v]).sum();
        let mass = self.damping * dangling + self.teleport;
        self.x.resize(n, 0.0);
        self.r.resize(n, 0.0);
        self.w_out.resize(n, 0.0);
        self.pending.resize(n, 0.0);
        let shift = mass * (1.0 / n as f64 - 1.0 / old_n.max(1) as f64);
        for y in 0..n as Vertex {
            let delta = if (y as usize) < old_n { shift } else { mass / n as f64 };
            self.add_residual(y, delta);
        }
        Ok(())
    }
}

impl Maintained for PageRank {
    fn seq(&self) -> u64 {
        self.seq
    }

    fn rebuild(&mut self, snap: &Snapshot) -> Result<()> {
        // Scores, residuals, out-weights, pending shares, the previous scores and the static
        // kernel's state.
        crate::state::check_state("maintained pagerank", snap.num_vertices(), 104)?;
        let before: Vec<f64> = self.x.iter().map(|v| v / self.reported_sum).collect();
        let opts = PageRankOptions { damping: self.damping, tol: self.tol, ..PageRankOptions::default() };
        let PageRankResult { scores, iterations, .. } = crate::pagerank(&snap.out(), &snap.in_(), &opts)?;
        let n = scores.len();
        let d = self.damping;
        // Two scans of the out-lists (block by block, not point reads).
        let mut w_out = vec![0.0; n];
        let mut total = 0u64;
        let out = snap.out();
        let weighted = out.is_weighted();
        out.for_each_weighted_in_range(0..n as Vertex, |u, ns, ws| {
            w_out[u as usize] = if weighted { ws.iter().map(|&w| w as f64).sum() } else { ns.len() as f64 };
            total += ns.len() as u64;
        });
        self.arcs = total;
        let dangling: f64 = (0..n).filter(|&v| w_out[v] == 0.0).map(|v| scores[v]).sum();
        let mut y = vec![(d * dangling + 1.0 - d) / n.max(1) as f64; n];
        out.for_each_weighted_in_range(0..n as Vertex, |u, ns, ws| {
            let wu = w_out[u as usize];
            if wu > 0.0 {
                let c = d * scores[u as usize] / wu;
                for (i, &t) in ns.iter().enumerate() {
                    y[t as usize] += c * if weighted { ws[i] as f64 } else { 1.0 };
                }
            }
        });
        self.r = y.iter().zip(&scores).map(|(a, b)| a - b).collect();
        self.l1 = self.r.iter().map(|x| x.abs()).sum();
        check_finite(self.l1)?;
        self.sum = scores.iter().sum();
        self.x = scores;
        self.w_out = w_out;
        self.pending = vec![0.0; n];
        self.pending_l1 = 0.0;
        self.teleport = 1.0 - d;
        self.rounding = 0.0;
        self.queue.resize(n, || format!("maintained pagerank's queue for {n} vertices"))?;
        self.requeue();
        self.schedule.swept(iterations as u64 * total);
        // Settling notes the recomputed scores as first values; `changes` must report those
        // from before the rebuild, noted below.
        let noted = std::mem::take(&mut self.old);
        self.settle(snap);
        self.old = noted;
        // A vertex new since the last result had the score 0 (as `grow` gives it).
        for (v, b) in self.result_scores().into_iter().enumerate() {
            let a = before.get(v).copied().unwrap_or(0.0);
            if a != b {
                self.old.note(v as Vertex, a);
            }
        }
        // Every other score is `a` over the new sum.
        self.reported_sum = self.sum;
        self.prev = Some(snap.clone());
        self.seq = snap.seq();
        Ok(())
    }

    fn apply(&mut self, changes: &BatchChanges, snap: &Snapshot) -> Result<()> {
        let Some(prev) = self.prev.clone() else { return self.rebuild(snap) };
        self.grow(snap.num_vertices())?;
        let weighted = snap.is_weighted();
        let (before, after) = (prev.out(), snap.out());
        let (mut diff, mut old, mut new) = (Vec::new(), Vec::new(), Vec::new());
        let (mut was, mut is) = (Vec::new(), Vec::new());
        let mut targets = Vec::new();
        for arcs in changes.net_arcs().chunk_by(|a, b| a.src == b.src) {
            let u = arcs[0].src;
            diff.clear();
            let (w_old, w_new) = if weighted {
                // Out-weights summed from the lists, exactly.
                let w_old = out_arcs(&prev, u, &mut old);
                let w_new = out_arcs(snap, u, &mut new);
                list_diff(&old, &new, &mut diff);
                (w_old, w_new)
            } else {
                // Only the arcs the batch touched are read; the out-weight is the degree.
                targets.clear();
                targets.extend(arcs.iter().map(|a| a.dst));
                if (u as usize) < prev.num_vertices() {
                    before.arc_weights_to(u, &targets, &mut was);
                } else {
                    was.clear();
                    was.resize(targets.len(), None);
                }
                after.arc_weights_to(u, &targets, &mut is);
                for (k, &y) in targets.iter().enumerate() {
                    if was[k].is_some() != is[k].is_some() {
                        diff.push((y, was[k].is_some() as u8 as f64, is[k].is_some() as u8 as f64));
                    }
                }
                let w_old = self.w_out[u as usize];
                (w_old, w_old + diff.iter().map(|e| e.2 - e.1).sum::<f64>())
            };
            if let Some(&(y, _, w)) = diff.iter().find(|e| !e.2.is_finite() || e.2 < 0.0) {
                return Err(Error::invalid(format!(
                    "pagerank: arc {u} -> {y} has weight {w}; PageRank needs finite weights >= 0"
                )));
            }
            self.change_arcs(u, &diff, w_old, w_new);
            self.w_out[u as usize] = w_new;
            let added = diff.iter().filter(|e| e.1 == 0.0 && e.2 != 0.0).count() as u64;
            let removed = diff.iter().filter(|e| e.1 != 0.0 && e.2 == 0.0).count() as u64;
            self.arcs = (self.arcs + added).saturating_sub(removed);
        }
        check_finite(self.bound())?;
        self.schedule.batch();
        self.settle(snap);
        self.prev = Some(snap.clone());
        self.seq = changes.seq;
        Ok(())
    }

    fn result(&self) -> Values {
        Values::Float(self.result_scores())
    }

    fn changes(&mut self) -> Changes {
        let mut vs = self.old.drain();
        let now = |v: Vertex| self.x[v as usize] / self.sum;
        vs.retain(|&(v, o)| now(v) != o);
        let changes = Changes {
            vertices: vs.iter().map(|e| e.0).collect(),
            old: Values::Float(vs.iter().map(|e| e.1).collect()),
            new: Values::Float(vs.iter().map(|e| now(e.0)).collect()),
        };
        self.reported_sum = self.sum;
        changes
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.n() * 32 + 24);
        bytes::put_u64(&mut out, self.n() as u64);
        bytes::put_u64(&mut out, self.teleport.to_bits());
        bytes::put_u64(&mut out, self.rounding.to_bits());
        for i in 0..self.n() {
            for v in [self.x[i], self.r[i], self.w_out[i], self.pending[i]] {
                bytes::put_u64(&mut out, v.to_bits());
            }
        }
        out
    }

    fn decode(&mut self, seq: u64, n: usize, mut b: &[u8]) -> Option<()> {
        let saved_n = bytes::get_u64(&mut b)?;
        let c = f64::from_bits(bytes::get_u64(&mut b)?);
        let rounding = f64::from_bits(bytes::get_u64(&mut b)?);
        if saved_n != n as u64 || b.len() != n.checked_mul(32)? || rounding.is_nan() || rounding < 0.0 {
            return None;
        }
        let mut columns: [Vec<f64>; 4] = std::array::from_fn(|_| Vec::with_capacity(n));
        for _ in 0..n {
            for c in &mut columns {
                c.push(f64::from_bits(bytes::get_u64(&mut b)?));
            }
        }
        let [x, r, w, p] = columns;
        self.sum = x.iter().sum();
        self.reported_sum = self.sum;
        self.l1 = r.iter().map(|v: &f64| v.abs()).sum();
        self.pending_l1 = p.iter().zip(&w).map(|(p, w)| p.abs() * w).sum();
        (self.x, self.r, self.w_out, self.pending, self.teleport, self.seq) = (x, r, w, p, c, seq);
        self.rounding = rounding;
        self.queue.resize(n, String::new).ok()?;
        self.requeue();
        self.old.clear();
        Some(())
    }

    fn attach(&mut self, snap: &Snapshot) {
        // The saved state holds out-weights, not arc counts: a pull's cost is the snapshot's.
        self.arcs = snap.out().num_arcs();
        // As if one pull began the cycle.
        self.schedule.swept(self.arcs);
        self.prev = Some(snap.clone());
    }
}

/// Refuses residuals whose sum is not finite (weights so extreme that a score or a residual
/// overflowed): pushing them would never reach the tolerance.
fn check_finite(residual: f64) -> Result<()> {
    if residual.is_finite() {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "pagerank: the residuals sum to {residual}: the edge weights are too extreme for the maintained scores"
    )))
}

impl PageRank {
    /// Takes the scores (recording every old one) moved one step of networkx's iteration by
    /// the kept residual, normalised to sum 1: `x + r - m` is `T_{(1-d) s}(x)` up to the
    /// pending shares, the iteration for the scores at their own scale, `m = Σ R / n` being
    /// what the kept teleport mass `c` adds to every vertex beyond `(1 - d) s / n`. (`x + r`
    /// alone steps towards the fixed point of sum `c / (1 - d)`, and normalising it leaves that
    /// uniform part of the residual in place: on kron20's 1K batches of additions, half of the
    /// residual, `bench/incremental/run.py --kernels pagerank`.)
    fn step(&mut self) -> Vec<f64> {
        let mut x = std::mem::take(&mut self.x);
        let m = self.residual_sum() / x.len() as f64;
        let mut moved = 0.0;
        for (v, (xv, &rv)) in x.iter_mut().zip(&self.r).enumerate() {
            self.old.note(v as Vertex, *xv / self.reported_sum);
            // A step may not take a score below 0 (the fixed point has none): rounding, or a
            // batch's uniform residual larger than a score's teleport share, is cut off here
            // and the sweep's pull measures what that leaves.
            *xv = (*xv + rv - m).max(0.0);
            moved += *xv;
        }
        x.iter_mut().for_each(|xv| *xv /= moved);
        x
    }

    /// Moves the scores by their residual ([`PageRank::step`]) and pulls until the residual
    /// is at most [`SETTLE_TO`] of the target (see the module docs).
    fn sweep(&mut self, snap: &Snapshot) {
        let mut x = self.step();
        // The target for scores summing to 1.
        let goal = SETTLE_TO * x.len() as f64 * self.tol * TARGET_FRACTION;
        let weighted = snap.out().is_weighted() && snap.in_().is_weighted();
        // Each step contracts the step's L1 norm by at least the damping factor, and the first
        // is at most 2 (scores summing to 1): this many steps reach the goal.
        let steps = if self.damping > 0.0 { (goal / 2.0).ln() / self.damping.ln() } else { 0.0 };
        let in_ = snap.in_();
        // Cut once per vertex count: arcs added and removed since only unbalance the threads a
        // little, and cutting anew is a scan of every degree.
        if self.ranges.last().map(|r| r.end as usize) != Some(x.len()) {
            self.ranges = crate::pagerank::pull_ranges(&in_);
        }
        let graph = PullGraph {
            in_: &in_,
            weighted,
            w_out: &self.w_out,
            damping: self.damping,
            ranges: &self.ranges,
        };
        // At least the step measuring the residual (damping 0: the first one is 0).
        let pulled = iterate_from(&graph, &mut x, goal, steps.ceil().max(0.0) as usize + 1);
        self.sum = x.iter().sum();
        (self.x, self.r, self.l1, self.rounding) = (x, pulled.residual, pulled.l1, pulled.rounding);
        self.teleport = 1.0 - self.damping;
        self.pending.fill(0.0);
        self.pending_l1 = 0.0;
        self.schedule.swept(pulled.steps as u64 * self.arcs);
        self.requeue();
    }

    /// Queues every vertex by its residual (after the residuals were replaced).
    fn requeue(&mut self) {
        self.queue.clear();
        for v in 0..self.n() as Vertex {
            let p = self.priority(v);
            if p > 0.0 {
                self.queue.raise(v, p);
            }
        }
    }

    /// The scores normalised to sum 1.
    fn result_scores(&self) -> Vec<f64> {
        self.x.iter().map(|v| v / self.sum).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
    use ocgraph_core::update::{ChangeSubscriber, Durability, WalItem, WritableGraph, WriteOptions};
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    /// `T_c(x) - x` for the state's scores and teleport mass, from the snapshot's lists.
    fn exact_residual(s: &PageRank, snap: &Snapshot) -> Vec<f64> {
        let (n, d) = (s.n(), s.damping);
        let mut t = vec![0.0; n];
        let (mut dangling, mut arcs) = (0.0, Vec::new());
        for u in 0..n {
            let w = out_arcs(snap, u as Vertex, &mut arcs);
            if w > 0.0 {
                for &(y, wy) in &arcs {
                    t[y as usize] += d * s.x[u] * wy / w;
                }
            } else {
                dangling += s.x[u];
            }
        }
        (0..n).map(|v| t[v] + (d * dangling + s.teleport) / n as f64 - s.x[v]).collect()
    }

    /// The residual as the state keeps it: `r_v + Σ_{u -> v} p_u w(u, v)`.
    fn kept_residual(s: &PageRank, snap: &Snapshot) -> Vec<f64> {
        let n = s.n();
        let mut k = s.r.clone();
        let mut arcs = Vec::new();
        for u in 0..n {
            out_arcs(snap, u as Vertex, &mut arcs);
            for &(y, wy) in &arcs {
                k[y as usize] += s.pending[u] * wy;
            }
        }
        k
    }

    /// Checks, for the exact residual `exact`, that its L1 norm is within the state's bound,
    /// its sum is `c - (1 - d) s`, and the move of one more networkx iteration from the result
    /// (`Σ |R - Σ R / n|`, over `s`) is within the move bound, which is within the target.
    fn check_move(s: &PageRank, exact: &[f64], slack: f64, what: &str) {
        let l1: f64 = exact.iter().map(|r| r.abs()).sum();
        assert!(l1 <= s.bound() + slack, "{what}: residual {l1} above the bound {}", s.bound());
        let sum: f64 = exact.iter().sum();
        let expected = s.teleport - (1.0 - s.damping) * s.sum;
        assert!((sum - expected).abs() <= 1e-12, "{what}: residual sums to {sum}, not {expected}");
        let mean = sum / exact.len() as f64;
        let moved: f64 = exact.iter().map(|r| (r - mean).abs()).sum();
        assert!(moved <= s.move_bound() + slack, "{what}: move {moved} above its bound {}", s.move_bound());
        assert!(
            s.move_bound() <= s.target(),
            "{what}: move bound {} above the target {}",
            s.move_bound(),
            s.target()
        );
    }

    struct Kept(Mutex<PageRank>);

    /// The graph at `dir` opened for writing (durability none), with a PageRank state of
    /// tolerance `tol` computed and kept current by its batches.
    fn kept_state(dir: &std::path::Path, tol: f64) -> (WritableGraph, Arc<Kept>) {
        let opts = WriteOptions { durability: Durability::None, ..Default::default() };
        let w = WritableGraph::open(dir, &opts).unwrap();
        let mut state = PageRank::empty(0.85, tol).unwrap();
        state.rebuild(&w.snapshot()).unwrap();
        let kept = Arc::new(Kept(Mutex::new(state)));
        w.subscribe(kept.clone()).unwrap();
        (w, kept)
    }

    impl ChangeSubscriber for Kept {
        fn on_batch(&self, changes: &BatchChanges, snap: &Snapshot) {
            self.0.lock().unwrap().apply(changes, snap).unwrap();
        }
    }

    /// After every batch the kept parts add up to the exact residual, whose L1 norm is within
    /// the bound, which is within the target; batches that fit the target leave pending shares.
    #[test]
    fn the_kept_residual_is_the_exact_one_and_within_the_bound() {
        for (directed, weighted) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(3 + directed as u64 + 2 * weighted as u64);
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("g");
            let n: u32 = 400;
            let weight =
                |rng: &mut Xoshiro256PlusPlus| if weighted { rng.gen_range(1..4) as f32 } else { 1.0 };
            let (mut src, mut dst, mut ws) = (Vec::new(), Vec::new(), Vec::new());
            for v in 1..n {
                // A hub, and a ring.
                for (a, b) in [(0, v), (v, (v % (n - 1)) + 1)] {
                    src.push(a);
                    dst.push(b);
                    ws.push(weight(&mut rng));
                }
            }
            let o = BuildOptions { directed, weighted, ..BuildOptions::default() };
            let mut b = GraphBuilder::new(&dir, o).unwrap();
            b.push(&src, &dst, Some(&ws)).unwrap();
            b.finish(IdMap::Identity, &NoProgress).unwrap();
            let (w, kept) = kept_state(&dir, 1e-4);
            let mut with_pending = 0;
            for round in 0..60u32 {
                let mut items = vec![WalItem::RemoveEdge { src: 0, dst: 1 + round }];
                for _ in 0..3 {
                    let (src, dst) = (rng.gen_range(0..n), rng.gen_range(0..n));
                    items.push(WalItem::AddEdge { src, dst, weight: weight(&mut rng) });
                }
                if weighted {
                    items.push(WalItem::SetWeight { src: 0, dst: 200 + round, weight: weight(&mut rng) });
                }
                if round % 20 == 19 {
                    items.push(WalItem::RemoveVertex { v: rng.gen_range(1..n) });
                    items.push(WalItem::AddVertices { count: 2 });
                }
                w.update(&items).unwrap();
                let snap = w.snapshot();
                let s = kept.0.lock().unwrap();
                let (exact, mine) = (exact_residual(&s, &snap), kept_residual(&s, &snap));
                let what = format!("directed {directed} weighted {weighted} batch {round}");
                for (v, (a, b)) in exact.iter().zip(&mine).enumerate() {
                    assert!((a - b).abs() <= 1e-12, "{what}: vertex {v}: residual {a}, kept {b}");
                }
                check_move(&s, &exact, 1e-12, &what);
                with_pending += (s.pending_l1 > 0.0) as u32;
            }
            assert!(
                with_pending > 10,
                "directed {directed} weighted {weighted}: {with_pending} batches left pending shares"
            );
        }
    }

    /// On a graph large enough for sweeps to pull with `f32` contributions, the kept residual
    /// stays within the rounding allowance of the exact one, the exact one within the bound
    /// and the bound within the target, batch after batch and across a save and a decode.
    #[test]
    fn sweeps_with_f32_contributions_keep_the_bound() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let n = crate::pagerank::F32_CONTRIB_MIN_VERTICES as u32 + 5000;
        let (mut src, mut dst) = (Vec::new(), Vec::new());
        for v in 0..n {
            for w in [(v + 1) % n, rng.gen_range(0..n), rng.gen_range(0..n / 100)] {
                src.push(v);
                dst.push(w);
            }
        }
        let mut b = GraphBuilder::new(&dir, BuildOptions::default()).unwrap();
        b.push(&src, &dst, None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let (w, kept) = kept_state(&dir, 1e-8);
        let mut f32_sweeps = 0;
        for round in 0..12 {
            let items: Vec<WalItem> = (0..400)
                .map(|k| {
                    let (src, dst) = (rng.gen_range(0..n), rng.gen_range(0..n));
                    if k % 4 == 0 {
                        WalItem::RemoveEdge { src, dst: (src + 1) % n }
                    } else {
                        WalItem::AddEdge { src, dst, weight: 1.0 }
                    }
                })
                .collect();
            w.update(&items).unwrap();
            let snap = w.snapshot();
            let mut s = kept.0.lock().unwrap();
            if round == 6 {
                let mut decoded = PageRank::empty(0.85, 1e-8).unwrap();
                decoded.decode(s.seq, s.n(), &s.encode()).unwrap();
                decoded.attach(&snap);
                assert_eq!(decoded.rounding, s.rounding);
                *s = decoded;
            }
            let exact = exact_residual(&s, &snap);
            let off: f64 = exact.iter().zip(kept_residual(&s, &snap)).map(|(a, b)| (a - b).abs()).sum();
            assert!(
                off <= s.rounding,
                "batch {round}: kept residual {off} from the exact one, allowed {}",
                s.rounding
            );
            check_move(&s, &exact, 1e-15, &format!("batch {round}"));
            f32_sweeps += (s.rounding > 0.0) as u32;
        }
        assert!(f32_sweeps > 0, "no batch swept with f32 contributions");
    }

    /// A residual every vertex shares equally (here: the kept teleport mass raised by `delta`
    /// at the fixed point) is the residual of a fixed point of another scale: the step takes
    /// it off whole, leaving the fixed point (normalised), where `x + r` normalised would move
    /// every score towards the uniform vector by `delta` of the way.
    #[test]
    fn the_step_takes_off_a_uniform_residual() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let n = 200u32;
        // Random arcs out of the first 150 vertices: the last 50 are dangling.
        let (src, dst): (Vec<u32>, Vec<u32>) =
            (0..800).map(|_| (rng.gen_range(0..150), rng.gen_range(0..n))).unzip();
        let mut b =
            GraphBuilder::new(&dir, BuildOptions { directed: true, ..BuildOptions::default() }).unwrap();
        b.reserve_vertices(n as u64);
        b.push(&src, &dst, None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let (w, kept) = kept_state(&dir, 1e-15);
        let mut s = kept.0.lock().unwrap();
        let fixed = s.result_scores();
        let exact = exact_residual(&s, &w.snapshot());
        assert!(exact.iter().map(|r| r.abs()).sum::<f64>() < 1e-10, "not at the fixed point");
        let delta = 0.01;
        s.teleport += delta;
        for r in &mut s.r {
            *r += delta / n as f64;
        }
        let stepped = s.step();
        let off: f64 = stepped.iter().zip(&fixed).map(|(a, b)| (a - b).abs()).sum();
        assert!(off < 1e-10, "the step moved the fixed point by {off}");
        // What `x + r` normalised would have given: far from it.
        let sum: f64 = fixed.iter().sum::<f64>() + delta;
        let naive: f64 = fixed.iter().map(|&x| ((x + delta / n as f64) / sum - x).abs()).sum();
        assert!(naive > 1e-3, "{naive}");
    }

    /// Power iterations toward a residual rounding cannot reach stop where rounding stops them
    /// (about 230 steps at damping 0.85 from 2 to 1e-16), not at their step budget.
    #[test]
    fn sweeps_toward_an_unreachable_residual_stop_at_rounding() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let n = 300u32;
        let (src, dst): (Vec<u32>, Vec<u32>) =
            (0..1200).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n))).unzip();
        let mut b = GraphBuilder::new(&dir, BuildOptions::default()).unwrap();
        b.reserve_vertices(n as u64);
        b.push(&src, &dst, None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let w =
            WritableGraph::open(&dir, &WriteOptions { durability: Durability::None, ..Default::default() })
                .unwrap();
        let snap = w.snapshot();
        let in_ = snap.in_();
        let w_out: Vec<f64> = (0..n).map(|v| snap.out().degree(v) as f64).collect();
        let mut x = vec![1.0 / n as f64; n as usize];
        let ranges = crate::pagerank::pull_ranges(&in_);
        let graph = PullGraph { in_: &in_, weighted: false, w_out: &w_out, damping: 0.85, ranges: &ranges };
        let pulled = iterate_from(&graph, &mut x, 0.0, 1_000_000);
        let (err, steps) = (pulled.l1, pulled.steps);
        assert!(steps < 1_000, "{steps} steps");
        assert!(err < 1e-13, "stopped at {err}");
    }

    #[test]
    fn the_saved_state_keeps_the_pending_shares() {
        let mut a = PageRank::empty(0.85, 1e-6).unwrap();
        a.x = vec![0.5, 0.3, 0.2];
        a.r = vec![1e-3, -2e-3, 0.0];
        a.w_out = vec![2.0, 1.0, 0.0];
        a.pending = vec![1e-4, -3e-4, 0.0];
        a.teleport = 0.2;
        a.rounding = 1e-9;
        let mut b = PageRank::empty(0.85, 1e-6).unwrap();
        b.decode(7, 3, &a.encode()).unwrap();
        // Not for a graph of another vertex count.
        assert!(PageRank::empty(0.85, 1e-6).unwrap().decode(7, 4, &a.encode()).is_none());
        assert_eq!(
            (&b.x, &b.r, &b.w_out, &b.pending, b.teleport, b.rounding, b.seq),
            (&a.x, &a.r, &a.w_out, &a.pending, a.teleport, a.rounding, 7)
        );
        assert!((b.pending_l1 - 5e-4).abs() < 1e-15, "{}", b.pending_l1);
        assert!((b.l1 - 3e-3).abs() < 1e-15, "{}", b.l1);
        assert!((b.bound() - (3e-3 + 5e-4 + 1e-9)).abs() < 1e-15);
        // Forms without the rounding allowance or the pending shares (16 bytes of header, 32
        // or 24 a vertex) are not taken for this one.
        let mut old = a.encode();
        old.drain(16..24);
        assert!(b.decode(7, 3, &old).is_none());
        let mut short = Vec::new();
        bytes::put_u64(&mut short, 3);
        bytes::put_u64(&mut short, 0);
        short.resize(16 + 3 * 24, 0);
        assert!(b.decode(7, 3, &short).is_none());
    }
}
