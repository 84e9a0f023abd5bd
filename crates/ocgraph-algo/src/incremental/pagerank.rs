//! PageRank kept within its tolerance by residual push (networkx semantics: damping `d`,
//! uniform teleport, dangling mass spread uniformly, weights when the graph has them).
//!
//! With `T(x) = d * P^T x + (d * dangling(x) + 1 - d) / n` the networkx iteration, the state is
//! the scores `x` and the residual `r = T(x) - x`, kept as a per-vertex part plus a pending
//! uniform part `g / n` (what dangling vertices push goes to every vertex: it is added to all
//! residuals only when it grows past its share of the tolerance, one pass over the vertices).
//! Pushing `v` moves `r_v` into `x_v` and `d * r_v * w / W(v)` to each out-neighbour (or
//! `d * r_v` to `g` when `v` is dangling). A batch changes `r` only through the vertices whose
//! out-lists changed: their old contributions (read from the previous snapshot) are taken back
//! and the new ones added, and only the vertices whose residual then exceeds `tol` are queued.
//! Pushing stops as soon as `Σ |r_v| + |g| <= n * tol / 4` (the sum is kept as residuals
//! change), so `Σ |T(x) - x| <= n * tol / 4`: after normalising `x` to sum 1 (the result), one
//! more networkx iteration moves it by less than `n * tol / 2`, within networkx's criterion.
//!
//! A batch whose contributions leave `Σ |r| + |g|` above [`WARM_FACTOR`] times the target (or
//! above what the last push that failed started from), or whose pushing reads a sixteenth of
//! the graph's arcs before the tolerance holds, is brought back by power iterations from the current scores instead ([`crate::pagerank`]'s pull, from
//! `x` rather than from `1/n`): such a batch moved the scores so far that the residual has to
//! travel through most of the graph, and a pull step moves it through every vertex at scan
//! speed, where pushing reads lists one by one. From the current scores a few steps suffice,
//! against the static kernel's full run from `1/n` (bench/incremental/run.py measures both).
//!
//! The first computation is the static kernel ([`crate::pagerank`], Jacobi) followed by one
//! pass computing `r`. Memory: 24 bytes per vertex (scores, residuals, out-weights), a queue
//! and a bitmap; a warm restart adds 36 bytes per vertex while it runs.

use std::collections::VecDeque;

use ocgraph_core::memory::{try_reserve, try_resize};
use ocgraph_core::update::{BatchChanges, Snapshot};
use ocgraph_core::{Adjacency, Error, Result, Vertex};

use super::first_values::FirstValues;
use super::{bytes, Changes, Maintained, Values};
use crate::{PageRankOptions, PageRankResult};

/// Pushing is skipped for power iterations when a batch leaves the residual above this many
/// times the target (see the module docs).
const WARM_FACTOR: f64 = 4.0;

/// Maintained PageRank (see the module docs).
pub struct PageRank {
    damping: f64,
    tol: f64,
    seq: u64,
    x: Vec<f64>,
    r: Vec<f64>,
    /// Pending residual shared uniformly by every vertex (`g / n` each).
    g: f64,
    /// `Σ |r_v|`, kept as residuals change.
    l1: f64,
    /// Residuals above this are queued for pushing (lowered when the queue runs dry before
    /// the tolerance holds).
    eps: f64,
    /// `W(v)`: out-degree or out-weight sum.
    w_out: Vec<f64>,
    /// Number of arcs at the last recomputation (the push budget's scale).
    arcs: u64,
    /// `Σ x`.
    sum: f64,
    /// The snapshot the state is current for (old lists of changed vertices come from it).
    prev: Option<Snapshot>,
    queued: Vec<bool>,
    queue: VecDeque<Vertex>,
    /// First normalised score since the last `changes` of each vertex pushed since.
    old: FirstValues<f64>,
    /// The residual, in multiples of the target, that the last failed push started from:
    /// batches that leave at least as much skip pushing (see the module docs).
    push_failed_at: f64,
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
                "pagerank: tol must be from {MIN_TOL:e} to a finite value, got {tol:e}"
            )));
        }
        Ok(PageRank {
            damping,
            tol,
            seq: 0,
            x: Vec::new(),
            r: Vec::new(),
            g: 0.0,
            l1: 0.0,
            eps: tol,
            w_out: Vec::new(),
            arcs: 0,
            sum: 0.0,
            prev: None,
            queued: Vec::new(),
            queue: VecDeque::new(),
            old: FirstValues::default(),
            push_failed_at: f64::INFINITY,
        })
    }

    /// The residual `Σ |r_v| + |g|` pushing brings the state back under.
    fn target(&self) -> f64 {
        self.n() as f64 * self.tol / 4.0
    }

    fn n(&self) -> usize {
        self.x.len()
    }

    /// Adds `delta` to `r_y`, queueing `y` when it passes the threshold.
    fn add_residual(&mut self, y: Vertex, delta: f64) {
        let i = y as usize;
        let before = self.r[i].abs();
        self.r[i] += delta;
        self.l1 += self.r[i].abs() - before;
        if self.r[i].abs() > self.eps && !self.queued[i] {
            self.queued[i] = true;
            self.queue.push_back(y);
        }
    }

    /// Adds the pending uniform residual to every vertex.
    fn flush_uniform(&mut self) {
        let share = self.g / self.n().max(1) as f64;
        self.g = 0.0;
        for y in 0..self.n() as Vertex {
            self.add_residual(y, share);
        }
    }

    /// Pushes queued residuals until `Σ |r_v| + |g|` is within [`PageRank::target`]: when the
    /// queue runs dry first, the pending uniform part is spread (when it is the larger part) or
    /// the queueing threshold is lowered and the vertices above it queued (one pass each).
    /// Returns false (leaving a consistent state still to push) once it has read a quarter of the
    /// graph's arcs: power iterations from the current scores are then cheaper.
    fn push(&mut self, snap: &Snapshot) -> bool {
        let mut arcs = Vec::new();
        let d = self.damping;
        let budget = self.arcs / 16;
        let mut read = 0u64;
        loop {
            while self.l1 + self.g.abs() > self.target() {
                let Some(v) = self.queue.pop_front() else { break };
                let i = v as usize;
                self.queued[i] = false;
                let delta = std::mem::take(&mut self.r[i]);
                self.l1 -= delta.abs();
                if delta == 0.0 {
                    continue;
                }
                let score = self.x[i] / self.sum;
                self.old.note(v, score);
                self.x[i] += delta;
                self.sum += delta;
                let w = self.w_out[i];
                if w > 0.0 {
                    out_arcs(snap, v, &mut arcs);
                    read += arcs.len() as u64 + 1;
                    for &(y, wy) in &arcs {
                        self.add_residual(y, d * delta * wy / w);
                    }
                } else {
                    self.g += d * delta;
                }
                if read > budget {
                    self.eps = self.eps.max(self.tol);
                    return false;
                }
            }
            // A residual sum that is not a number (refused before the push) never gets within.
            if self.l1 + self.g.abs() <= self.target() || !(self.l1 + self.g).is_finite() {
                break;
            }
            if self.g.abs() > self.target() / 2.0 {
                self.flush_uniform();
            } else if self.queue.is_empty() {
                // Every residual is below the threshold, yet the sum is not: lower it (the
                // sum is then at most n * eps, so this ends), recounting the sum exactly.
                self.eps /= 4.0;
                if self.eps < f64::MIN_POSITIVE {
                    break;
                }
                self.l1 = self.r.iter().map(|x| x.abs()).sum();
                for v in 0..self.n() {
                    if self.r[v].abs() > self.eps && !self.queued[v] {
                        self.queued[v] = true;
                        self.queue.push_back(v as Vertex);
                    }
                }
            }
        }
        // Later batches queue at the original threshold again.
        self.eps = self.eps.max(self.tol);
        true
    }

    /// Takes back (`sign = -1`) or adds (`+1`) the contribution of `u` with out-arcs `arcs` of
    /// total weight `w` to the residuals.
    fn contribute(&mut self, u: Vertex, arcs: &[(Vertex, f64)], w: f64, sign: f64) {
        let c = sign * self.damping * self.x[u as usize];
        if w > 0.0 {
            for &(y, wy) in arcs {
                self.add_residual(y, c * wy / w);
            }
        } else {
            self.g += c;
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
        for v in [&mut self.x, &mut self.r, &mut self.w_out] {
            try_reserve(v, n, what)?;
        }
        try_resize(&mut self.queued, n, false, what)?;
        // The pending uniform part was shared by the old vertices only.
        self.flush_uniform();
        let dangling: f64 = (0..old_n).filter(|&v| self.w_out[v] == 0.0).map(|v| self.x[v]).sum();
        let mass = self.damping * dangling + 1.0 - self.damping;
        self.x.resize(n, 0.0);
        self.r.resize(n, 0.0);
        self.w_out.resize(n, 0.0);
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
        // Scores, residuals, out-weights, the previous scores and the static kernel's state.
        crate::state::check_state("maintained pagerank", snap.num_vertices(), 96)?;
        let before: Vec<f64> = self.result_scores();
        let opts = PageRankOptions { damping: self.damping, tol: self.tol, ..PageRankOptions::default() };
        let PageRankResult { scores, .. } = crate::pagerank(&snap.out(), &snap.in_(), &opts)?;
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
        self.eps = self.tol;
        self.sum = scores.iter().sum();
        self.x = scores;
        self.w_out = w_out;
        self.g = 0.0;
        self.queued = vec![false; n];
        self.queue.clear();
        for v in 0..n as Vertex {
            self.add_residual(v, 0.0);
        }
        // No push budget right after the static kernel. The push notes the recomputed scores as
        // first values; `changes` must report those from before the rebuild, noted below.
        self.arcs = u64::MAX / 8;
        let noted = std::mem::take(&mut self.old);
        self.push(snap);
        self.old = noted;
        self.arcs = total;
        // A vertex new since the last result had the score 0 (as `grow` gives it).
        for (v, b) in self.result_scores().into_iter().enumerate() {
            let a = before.get(v).copied().unwrap_or(0.0);
            if a != b {
                self.old.note(v as Vertex, a);
            }
        }
        self.prev = Some(snap.clone());
        self.seq = snap.seq();
        Ok(())
    }

    fn apply(&mut self, changes: &BatchChanges, snap: &Snapshot) -> Result<()> {
        let Some(prev) = self.prev.clone() else { return self.rebuild(snap) };
        self.grow(snap.num_vertices())?;
        let mut sources: Vec<Vertex> = Vec::with_capacity(changes.edges.len() * 2);
        for e in &changes.edges {
            sources.push(e.src);
            if !changes.directed {
                sources.push(e.dst);
            }
        }
        sources.sort_unstable();
        sources.dedup();
        let (mut old, mut new) = (Vec::new(), Vec::new());
        for u in sources {
            let w_old = out_arcs(&prev, u, &mut old);
            let w_new = out_arcs(snap, u, &mut new);
            if let Some(&(y, w)) = new.iter().find(|a| !a.1.is_finite() || a.1 < 0.0) {
                return Err(Error::invalid(format!(
                    "pagerank: arc {u} -> {y} has weight {w}; PageRank needs finite weights >= 0"
                )));
            }
            self.contribute(u, &old, w_old, -1.0);
            self.contribute(u, &new, w_new, 1.0);
            self.w_out[u as usize] = w_new;
            self.arcs = (self.arcs + new.len() as u64).saturating_sub(old.len() as u64);
        }
        check_finite(self.l1 + self.g)?;
        let excess = (self.l1 + self.g.abs()) / self.target();
        if excess > WARM_FACTOR.min(self.push_failed_at) {
            self.warm_restart(snap);
        } else if !self.push(snap) {
            self.push_failed_at = excess;
            self.warm_restart(snap);
        }
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
        Changes {
            vertices: vs.iter().map(|e| e.0).collect(),
            old: Values::Float(vs.iter().map(|e| e.1).collect()),
            new: Values::Float(vs.iter().map(|e| now(e.0)).collect()),
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.n() * 24 + 24);
        bytes::put_u64(&mut out, self.n() as u64);
        bytes::put_u64(&mut out, self.g.to_bits());
        for i in 0..self.n() {
            for v in [self.x[i], self.r[i], self.w_out[i]] {
                bytes::put_u64(&mut out, v.to_bits());
            }
        }
        out
    }

    fn decode(&mut self, seq: u64, mut b: &[u8]) -> Option<()> {
        let n = bytes::get_u64(&mut b)? as usize;
        let g = f64::from_bits(bytes::get_u64(&mut b)?);
        if b.len() != n.checked_mul(24)? {
            return None;
        }
        let (mut x, mut r, mut w) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            x.push(f64::from_bits(bytes::get_u64(&mut b)?));
            r.push(f64::from_bits(bytes::get_u64(&mut b)?));
            w.push(f64::from_bits(bytes::get_u64(&mut b)?));
        }
        self.sum = x.iter().sum();
        self.l1 = r.iter().map(|v: &f64| v.abs()).sum();
        self.eps = self.tol;
        (self.x, self.r, self.w_out, self.g, self.seq) = (x, r, w, g, seq);
        self.queued = vec![false; n];
        self.queue.clear();
        self.old.clear();
        Some(())
    }

    fn attach(&mut self, snap: &Snapshot) {
        // The saved state holds out-weights, not arc counts: the push budget's scale is the
        // snapshot's.
        self.arcs = snap.out().num_arcs();
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
    /// Brings the state within the tolerance by power iterations from the normalised current
    /// scores (see the module docs), recording the old score of every vertex that moved.
    fn warm_restart(&mut self, snap: &Snapshot) {
        let mut x = self.result_scores();
        let weighted = snap.out().is_weighted() && snap.in_().is_weighted();
        let target = self.target();
        // Each step contracts the step's L1 norm by at least the damping factor, and the first
        // is at most 2 (scores summing to 1): this many steps reach the target.
        let steps = if self.damping > 0.0 { (target / 2.0).ln() / self.damping.ln() } else { 0.0 };
        let (r, l1, _) = crate::pagerank::iterate_from(
            &snap.in_(),
            weighted,
            &self.w_out,
            self.damping,
            &mut x,
            target,
            // At least one move (damping 0: one reaches the fixed point) and the step measuring it.
            steps.ceil().max(1.0) as usize + 1,
        );
        for (v, &b) in x.iter().enumerate() {
            let a = self.x[v] / self.sum;
            if a != b {
                self.old.note(v as Vertex, a);
            }
        }
        self.sum = x.iter().sum();
        (self.x, self.r, self.l1, self.g) = (x, r, l1, 0.0);
        for q in self.queue.drain(..) {
            self.queued[q as usize] = false;
        }
        self.eps = self.tol;
    }

    /// The scores normalised to sum 1.
    fn result_scores(&self) -> Vec<f64> {
        self.x.iter().map(|v| v / self.sum).collect()
    }
}
