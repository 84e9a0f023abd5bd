//! PageRank, with the definition and stopping rule of `networkx.pagerank`.
//!
//! Returns one score per vertex; the scores sum to 1 (up to rounding: the last iterate is scaled
//! to sum 1, which with `f32` contributions, below, it misses by about `1e-8`).
//!
//! Definition (networkx `pagerank` with `dangling=None`, `nstart=None`): start from `x = 1/n`;
//! `p` = the personalization vector normalised to sum 1 (uniform `1/n` when absent). Each
//! iteration computes
//! `x'[v] = d * Σ_{u→v} x[u] * w(u,v) / W(u)  +  d * (Σ_{u dangling} x[u]) * p[v]  +  (1 - d) * p[v]`
//! where `W(u)` is `u`'s out-weight (out-degree when unweighted or weights are not used) and a
//! vertex is dangling when `W(u) = 0`; so dangling mass is spread by the personalization vector,
//! as networkx does. It stops when `Σ |x' - x| < n * tol` (converged) or after `max_iter`
//! iterations. `tol = 0` gives the fixed-iteration mode used by benchmarks (e.g. 20 iterations).
//! Unlike networkx, running out of iterations is not an error: the result says whether it
//! converged. Multigraph note: networkx's `DiGraph` collapses duplicate edges; here every stored
//! arc counts (a duplicated arc has twice the weight).
//!
//! Algorithm ([`Method::Jacobi`], the default): pull-based power iteration: per iteration,
//! each vertex's outgoing contribution `d * x[u] / W(u)` is computed once, then every vertex sums
//! its in-neighbours' contributions. The in-scan runs over contiguous vertex ranges balanced by
//! in-edge counts, read with [`Adjacency::for_each_in_range`] on the caller's rayon pool.
//! Out-weights and in-degrees are found once, by one scan of each direction.
//!
//! [`Method::GaussSeidel`] (as the GAP Benchmark Suite's `pr`, `PageRankPullGS`) updates the
//! scores in place during the sweep, so a vertex's sum already uses the new scores of the
//! vertices before it. It solves `y = d * Σ_{u→v} y[u] * w(u,v) / W(u) + (1 - d) * p` (no
//! dangling term) and returns `x = y / Σ y`: when the dangling mass is spread by `p`, as here,
//! `x` is a multiple of `y` (both are `(I - d A)^-1 p` scaled), so this is the same PageRank
//! without a dangling pass per sweep. It often needs fewer sweeps than the power iteration
//! for the same tolerance on large graphs (not always: more on small graphs, at damping near 1
//! and on reordered copies), but its iterates differ from networkx's, and with several threads
//! they depend on timing (a thread may or may not see another's updates of the same sweep). It
//! stops when a sweep changes `y` by less than `n * tol * Σ y` in L1.
//!
//! Precision: the scan's random reads of `contrib` dominate the run time, so for graphs of at
//! least [`F32_CONTRIB_MIN_VERTICES`] vertices the contributions are stored as `f32` (half the
//! cache footprint, as GAPBS does), unless an out-weight is so extreme that a contribution
//! would leave `f32`'s normal range ([`f32_contributions_fit`]); sums, scores and the
//! convergence test stay `f64`. The rounding of each contribution (relative `6e-8`) limits the
//! attainable L1 accuracy to a few `1e-8` (the f32 iteration settles at its own fixed point,
//! whose change per step is then 0 while `T(x) - x` is not), so a stopping threshold
//! `n * tol` below [`F32_MIN_STOP`] keeps `f64` contributions: a reported convergence holds.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use ocgraph_core::{Adjacency, Error, Result, Vertex};
use rayon::prelude::*;

use crate::bfs::check_directions;
use crate::chunks::{
    degrees, edge_balanced_ranges, in_order, mark_cuts, ordered_sum, pieces_for, split_by_ranges,
    vertex_blocks,
};

/// Graphs with at least this many vertices store per-iteration contributions as `f32`.
pub const F32_CONTRIB_MIN_VERTICES: usize = 1 << 16;

/// The smallest stopping threshold `n * tol` (L1) that `f32` contributions serve: their rounding
/// leaves a true residual `Σ |T(x) - x|` near `1e-8` that the f32 iterates no longer show
/// (`tests/kernels.rs::pagerank_with_f32_contributions_matches_reference` fails with f32 at
/// tol 1e-14: 1.1e-8 over an allowed 1.7e-9), so below this `f64` is kept (with a hundredfold
/// margin). `tol = 0`, the fixed-iteration mode, never claims convergence.
pub const F32_MIN_STOP: f64 = 1e-6;

/// Storage type of the per-iteration contributions: `f64`, or `f32` for large graphs.
trait Contrib: Copy + Send + Sync + Default {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Contrib for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl Contrib for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// A contribution slot updated in place by a Gauss-Seidel sweep while other threads read it:
/// an `f64` or `f32` in an atomic word (relaxed loads and stores, plain moves on x86).
pub(crate) trait SharedContrib: Send + Sync {
    fn new(x: f64) -> Self;
    fn get(&self) -> f64;
    fn set(&self, x: f64);
}

impl SharedContrib for AtomicU64 {
    fn new(x: f64) -> Self {
        AtomicU64::new(x.to_bits())
    }
    fn get(&self) -> f64 {
        f64::from_bits(self.load(Relaxed))
    }
    fn set(&self, x: f64) {
        self.store(x.to_bits(), Relaxed)
    }
}

impl SharedContrib for AtomicU32 {
    fn new(x: f64) -> Self {
        AtomicU32::new((x as f32).to_bits())
    }
    fn get(&self) -> f64 {
        f32::from_bits(self.load(Relaxed)) as f64
    }
    fn set(&self, x: f64) {
        self.store((x as f32).to_bits(), Relaxed)
    }
}

/// How [`pagerank`] iterates (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Power iteration, as networkx: the same iterates, deterministic.
    #[default]
    Jacobi,
    /// In-place sweeps, as GAPBS: often fewer iterations on large graphs (more on some: small
    /// graphs, damping near 1, reordered copies), timing-dependent iterates.
    GaussSeidel,
}

impl std::str::FromStr for Method {
    type Err = Error;

    fn from_str(s: &str) -> Result<Method> {
        match s {
            "jacobi" => Ok(Method::Jacobi),
            "gauss-seidel" => Ok(Method::GaussSeidel),
            _ => Err(Error::invalid(format!("unknown PageRank method {s:?} (jacobi, gauss-seidel)"))),
        }
    }
}

/// Parameters of [`pagerank`]; the defaults are networkx's.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRankOptions {
    /// Damping factor `d` (networkx `alpha`), in `[0, 1]`. Default 0.85.
    pub damping: f64,
    /// Maximum number of iterations. Default 100.
    pub max_iter: usize,
    /// Convergence tolerance: stop when `Σ |x' - x| < n * tol`; 0 runs exactly `max_iter`
    /// iterations. Default 1e-6.
    pub tol: f64,
    /// Teleport (and dangling) distribution, one non-negative value per vertex, normalised
    /// internally; `None` = uniform.
    pub personalization: Option<Vec<f64>>,
    /// Use arc weights when the graph has them (networkx `weight="weight"`). Default true.
    pub use_weights: bool,
    /// Jacobi (networkx's iterates, the default) or Gauss-Seidel sweeps.
    pub method: Method,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            max_iter: 100,
            tol: 1e-6,
            personalization: None,
            use_weights: true,
            method: Method::Jacobi,
        }
    }
}

/// Scores and convergence information from [`pagerank`].
#[derive(Debug, Clone, PartialEq)]
pub struct PageRankResult {
    /// One score per vertex, summing to 1.
    pub scores: Vec<f64>,
    /// Iterations performed.
    pub iterations: usize,
    /// Whether `Σ |x' - x| < n * tol` was reached (always false with `tol = 0`).
    pub converged: bool,
}

/// Validates the options and returns the normalised teleport vector.
pub(crate) fn teleport_vector(n: usize, opts: &PageRankOptions) -> Result<Vec<f64>> {
    if !(0.0..=1.0).contains(&opts.damping) {
        return Err(Error::invalid(format!("damping must be in [0, 1], got {}", opts.damping)));
    }
    if opts.method == Method::GaussSeidel && opts.damping == 1.0 {
        // The sweep solves `y = d A y + (1 - d) p` and normalises `y`: at `d = 1` it has no
        // teleport term and `y` drains to 0 through the dangling vertices (0 / 0).
        return Err(Error::invalid(
            "damping 1 needs the Jacobi method: Gauss-Seidel's sweep has no teleport term then",
        ));
    }
    if !(opts.tol >= 0.0 && opts.tol.is_finite()) {
        return Err(Error::invalid(format!("tol must be non-negative and finite, got {}", opts.tol)));
    }
    match &opts.personalization {
        None => Ok(vec![1.0 / n as f64; n]),
        Some(p) => {
            if p.len() != n {
                return Err(Error::invalid(format!(
                    "personalization has {} values for {n} vertices",
                    p.len()
                )));
            }
            if let Some((v, x)) = p.iter().enumerate().find(|(_, x)| !(**x >= 0.0 && x.is_finite())) {
                return Err(Error::invalid(format!(
                    "personalization[{v}] = {x}; values must be finite and >= 0"
                )));
            }
            let sum: f64 = p.iter().sum();
            if sum <= 0.0 {
                return Err(Error::invalid("personalization values sum to 0"));
            }
            Ok(p.iter().map(|x| x / sum).collect())
        }
    }
}

/// Out-weight `W(u)` of every vertex: out-degree, or the sum of out-arc weights.
pub(crate) fn out_weights<O: Adjacency>(out: &O, weighted: bool) -> Result<Vec<f64>> {
    if !weighted {
        return Ok(degrees(out).into_par_iter().map(|d| d as f64).collect());
    }
    let mut w = vec![0.0; out.num_vertices()];
    let blocks = vertex_blocks(out.num_vertices());
    let bad: Option<(Vertex, Vertex, f32)> = w
        .par_chunks_mut(crate::chunks::VERTEX_BLOCK as usize)
        .zip(blocks)
        .map(|(slot, block)| {
            let lo = block.start;
            let mut bad = None;
            out.for_each_weighted_in_range(block, |u, nbrs, ws| {
                let mut s = 0.0;
                for (&v, &x) in nbrs.iter().zip(ws) {
                    if !x.is_finite() || x < 0.0 {
                        bad.get_or_insert((u, v, x));
                    }
                    s += x as f64;
                }
                slot[(u - lo) as usize] = s;
            });
            bad
        })
        .reduce(|| None, |a, b| a.or(b));
    if let Some((u, v, x)) = bad {
        return Err(crate::weights::refused_weight(out, u, v, x, "PageRank needs finite weights >= 0"));
    }
    Ok(w)
}

/// Bytes per vertex PageRank makes sure are available before it starts: the iteration's
/// state (scores, next scores, out-weights, teleport vector: 8 each; contributions 4, or 8 under
/// 65,536 vertices) and the result's copy, rounded up.
pub const PAGERANK_STATE_BYTES: u64 = 48;

/// PageRank of the graph with out-edges `out` and in-edges `in_` (pass the same adjacency twice
/// for an undirected graph; for a weighted directed graph `in_` must carry the in-arc weights).
/// Runs on the current rayon pool.
///
/// Errors: mismatched directions, damping outside `[0, 1]`, negative `tol`, a bad
/// personalization vector (wrong length, negative, all zero), or a negative weight.
pub fn pagerank<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    opts: &PageRankOptions,
) -> Result<PageRankResult> {
    check_directions(out, in_)?;
    let n = out.num_vertices();
    if n == 0 {
        teleport_vector(0, &PageRankOptions { personalization: None, ..opts.clone() })?;
        return Ok(PageRankResult { scores: Vec::new(), iterations: 0, converged: true });
    }
    crate::state::check_state("pagerank", n, PAGERANK_STATE_BYTES)?;
    let setup = Setup::new(out, in_, opts)?;
    match (opts.method, f32_contributions_fit(n, &setup.w_out, opts.tol)) {
        (Method::Jacobi, true) => iterate::<I, f32>(in_, opts, setup),
        (Method::Jacobi, false) => iterate::<I, f64>(in_, opts, setup),
        (Method::GaussSeidel, true) => sweep::<I, AtomicU32>(in_, opts, setup),
        (Method::GaussSeidel, false) => sweep::<I, AtomicU64>(in_, opts, setup),
    }
}

/// Out-weights `W(u)` (of a vertex with arcs) inside this range keep every contribution
/// `d x[u] / W(u)` well inside `f32`'s normal range for any score `x[u]` above `1e-15`.
const F32_SAFE_OUT_WEIGHTS: std::ops::RangeInclusive<f64> = 1e-15..=1e15;

/// Whether the contributions are stored as `f32`: on graphs of at least
/// [`F32_CONTRIB_MIN_VERTICES`] vertices whose out-weights `w_out` all lie in
/// [`F32_SAFE_OUT_WEIGHTS`] (or are 0), with `tol` 0 or a stopping threshold `n * tol` of at
/// least [`F32_MIN_STOP`]. Extreme weights would make contributions overflow to infinity or
/// lose their precision as subnormals, and a smaller threshold would be met by rounding alone.
pub(crate) fn f32_contributions_fit(n: usize, w_out: &[f64], tol: f64) -> bool {
    n >= F32_CONTRIB_MIN_VERTICES
        && (tol == 0.0 || n as f64 * tol >= F32_MIN_STOP)
        && w_out.par_iter().all(|&w| w == 0.0 || F32_SAFE_OUT_WEIGHTS.contains(&w))
}

/// What both iterations need: the teleport vector, the out-weights and the in-scan's ranges.
struct Setup {
    n: usize,
    p: Vec<f64>,
    weighted: bool,
    w_out: Vec<f64>,
    ranges: Vec<std::ops::Range<Vertex>>,
}

impl Setup {
    fn new<O: Adjacency, I: Adjacency>(out: &O, in_: &I, opts: &PageRankOptions) -> Result<Setup> {
        let n = out.num_vertices();
        let p = teleport_vector(n, opts)?;
        let weighted = opts.use_weights && out.is_weighted() && in_.is_weighted();
        let w_out = out_weights(out, weighted)?;
        let ranges = edge_balanced_ranges(&degrees(in_), pieces_for(n));
        mark_cuts(in_, &ranges);
        Ok(Setup { n, p, weighted, w_out, ranges })
    }
}

/// The Gauss-Seidel iteration, with contributions shared as `C` (see the module docs).
fn sweep<I: Adjacency, C: SharedContrib>(
    in_: &I,
    opts: &PageRankOptions,
    setup: Setup,
) -> Result<PageRankResult> {
    let Setup { n, p, weighted, w_out, ranges } = setup;
    let d = opts.damping;
    let contrib_of = |xu: f64, wu: f64| if wu > 0.0 { d * xu / wu } else { 0.0 };

    let mut x = p.clone();
    let contrib: Vec<C> = x.par_iter().zip(&w_out).map(|(&xu, &wu)| C::new(contrib_of(xu, wu))).collect();
    let (mut iterations, mut converged) = (opts.max_iter, false);
    let base = 1.0 - d;
    for iter in 1..=opts.max_iter {
        let pieces = split_by_ranges(&mut x, &ranges);
        // In vertex order, so that every piece sees the new scores of almost all vertices
        // before it (rayon's halving split has one thread start in the middle, and the sweep
        // then converges more slowly: 9 sweeps instead of 6 on kron20).
        let (err, sum) = in_order(
            pieces,
            || (0.0, 0.0),
            |(err, sum), (r, slot): (std::ops::Range<Vertex>, &mut [f64])| {
                let lo = r.start;
                let mut update = |v: Vertex, pulled: f64| {
                    let i = v as usize;
                    let val = pulled + base * p[i];
                    let old = &mut slot[(v - lo) as usize];
                    *err += (val - *old).abs();
                    *sum += val;
                    *old = val;
                    contrib[i].set(contrib_of(val, w_out[i]));
                };
                if weighted {
                    in_.for_each_weighted_in_range(r, |v, nbrs, ws| {
                        update(
                            v,
                            nbrs.iter().zip(ws).map(|(&u, &w)| contrib[u as usize].get() * w as f64).sum(),
                        )
                    });
                } else {
                    in_.for_each_in_range(r, |v, nbrs| {
                        update(v, nbrs.iter().map(|&u| contrib[u as usize].get()).sum())
                    });
                }
            },
        )
        .into_iter()
        .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        // The change of the normalised scores is about the change of `y` over its sum.
        if err < n as f64 * opts.tol * sum {
            (iterations, converged) = (iter, true);
            break;
        }
    }
    Ok(normalised(x, iterations, converged))
}

/// The scores `y` scaled to sum 1: Gauss-Seidel's `y` (see the module docs), and the power
/// iteration's last iterate, whose sum drifts from 1 by about `1e-8` with `f32` contributions
/// (each rounded on its own; `f64` ones leave it within rounding of 1).
pub(crate) fn normalised(mut y: Vec<f64>, iterations: usize, converged: bool) -> PageRankResult {
    let sum = ordered_sum(y.len(), |i| y[i]);
    y.par_iter_mut().for_each(|s| *s /= sum);
    PageRankResult { scores: y, iterations, converged }
}

/// The power iteration, with contributions stored as `C`.
fn iterate<I: Adjacency, C: Contrib>(
    in_: &I,
    opts: &PageRankOptions,
    setup: Setup,
) -> Result<PageRankResult> {
    let Setup { n, p, weighted, w_out, ranges } = setup;
    let d = opts.damping;

    let mut x = vec![1.0 / n as f64; n];
    let mut next = vec![0.0; n];
    let mut contrib = vec![C::default(); n];
    for iter in 1..=opts.max_iter {
        contrib.par_iter_mut().zip(&x).zip(&w_out).for_each(|((c, &xu), &wu)| {
            *c = C::from_f64(if wu > 0.0 { d * xu / wu } else { 0.0 });
        });
        let dangling = ordered_sum(n, |u| if w_out[u] > 0.0 { 0.0 } else { x[u] }) * d;
        let err = pull(in_, weighted, &ranges, &contrib, &x, &p, dangling + (1.0 - d), &mut next);
        std::mem::swap(&mut x, &mut next);
        if err < n as f64 * opts.tol {
            return Ok(normalised(x, iter, true));
        }
    }
    Ok(normalised(x, opts.max_iter, false))
}

/// The vertex ranges a pull over `in_` is cut into (about equal arc counts), for
/// [`iterate_from`].
pub(crate) fn pull_ranges<I: Adjacency>(in_: &I) -> Vec<std::ops::Range<Vertex>> {
    edge_balanced_ranges(&degrees(in_), pieces_for(in_.num_vertices()))
}

/// What [`iterate_from`] leaves besides the scores.
pub(crate) struct Pulled {
    /// `T(x) - x` for the scores left in place, as the last pull computed it.
    pub residual: Vec<f64>,
    /// Its L1 norm.
    pub l1: f64,
    /// Pulls made.
    pub steps: usize,
    /// A bound on the L1 distance between `residual` and the exact `T(x) - x`: 0 with `f64`
    /// contributions, [`f32_rounding_bound`] with `f32` ones.
    pub rounding: f64,
}

/// A bound on the L1 error that storing the contributions `d x[u] / W(u)` as `f32` puts into a
/// pull, for `n` scores summing to `sum` and out-weights within [`F32_SAFE_OUT_WEIGHTS`]: each
/// contribution is off by at most `2^-24` of itself (or `2^-150` when subnormal), and the arcs
/// of `u` carry it `W(u)` times, so the error is at most `2^-24 d sum + n 2^-150 1e15`.
pub(crate) fn f32_rounding_bound(n: usize, damping: f64, sum: f64) -> f64 {
    damping * sum * 2f64.powi(-24) + n as f64 * 2f64.powi(-150) * *F32_SAFE_OUT_WEIGHTS.end()
}

/// Power iterations (uniform teleport, dangling mass spread uniformly) from the scores `x`,
/// which should sum to 1, with the out-weights `w_out` already known and the pull cut into
/// `ranges` ([`pull_ranges`], of this graph or of one with the same vertices and other arcs: the
/// cuts only balance the threads): stops at the first `x` whose step `T(x) - x` has an L1
/// norm at most `target`, after `max_iter` steps, or at the first step that did not shrink
/// (rounding's limit). Leaves that `x` in place. Used to bring maintained scores back within
/// their tolerance from where they are, one pull per step and no other scan. The contributions
/// are `f32` when [`f32_contributions_fit`] holds for a stopping threshold of `target` (as in
/// [`pagerank`]); the result says how far that may put the residual off.
pub(crate) fn iterate_from<I: Adjacency>(
    graph: &PullGraph<'_, I>,
    x: &mut Vec<f64>,
    target: f64,
    max_iter: usize,
) -> Pulled {
    let n = x.len();
    if target > 0.0 && f32_contributions_fit(n, graph.w_out, target / n as f64) {
        let mut pulled = iterate_from_as::<I, f32>(graph, x, target, max_iter);
        pulled.rounding = f32_rounding_bound(n, graph.damping, ordered_sum(n, |i| x[i]));
        pulled
    } else {
        iterate_from_as::<I, f64>(graph, x, target, max_iter)
    }
}

/// What [`iterate_from`] pulls over: the in-lists (`weighted`: with their weights), the
/// out-weights, the damping and the pull's cuts.
pub(crate) struct PullGraph<'a, I> {
    pub in_: &'a I,
    pub weighted: bool,
    pub w_out: &'a [f64],
    pub damping: f64,
    pub ranges: &'a [std::ops::Range<Vertex>],
}

/// [`iterate_from`] with contributions stored as `C` (`rounding` left 0).
fn iterate_from_as<I: Adjacency, C: Contrib>(
    graph: &PullGraph<'_, I>,
    x: &mut Vec<f64>,
    target: f64,
    max_iter: usize,
) -> Pulled {
    let PullGraph { in_, weighted, w_out, damping, ranges } = *graph;
    let n = x.len();
    let p = vec![1.0 / n.max(1) as f64; n];
    mark_cuts(in_, ranges);
    let (mut next, mut contrib) = (vec![0.0; n], vec![C::default(); n]);
    let (mut steps, mut last) = (0, f64::INFINITY);
    loop {
        contrib.par_iter_mut().zip(x.par_iter()).zip(w_out).for_each(|((c, &xu), &wu)| {
            *c = C::from_f64(if wu > 0.0 { damping * xu / wu } else { 0.0 });
        });
        let dangling = ordered_sum(n, |u| if w_out[u] > 0.0 { 0.0 } else { x[u] }) * damping;
        let err = pull(in_, weighted, ranges, &contrib, x, &p, dangling + (1.0 - damping), &mut next);
        steps += 1;
        // In exact arithmetic a step's norm is at most `damping` times the last one's (exactly
        // that on some graphs, so rounding may show it a little larger long before it stops
        // the iteration): a step that did not shrink at all has reached what rounding lets
        // the iteration reach, and a `target` below that is never met.
        let stalled = err >= last;
        last = err;
        if err <= target || steps >= max_iter || stalled {
            next.par_iter_mut().zip(x.par_iter()).for_each(|(t, &xv)| *t -= xv);
            return Pulled { residual: next, l1: err, steps, rounding: 0.0 };
        }
        std::mem::swap(x, &mut next);
    }
}

/// One pull iteration: `next[v] = Σ_{u→v} contrib[u] * w(u,v) + base * p[v]`; returns
/// `Σ |next - x|`.
#[allow(clippy::too_many_arguments)]
fn pull<I: Adjacency, C: Contrib>(
    in_: &I,
    weighted: bool,
    ranges: &[std::ops::Range<Vertex>],
    contrib: &[C],
    x: &[f64],
    p: &[f64],
    base: f64,
    next: &mut [f64],
) -> f64 {
    // Each piece's change in a slot of its own, added in piece order: the same sum whichever
    // thread took which piece.
    let mut errs = vec![0.0; ranges.len()];
    let pieces: Vec<_> = split_by_ranges(next, ranges).into_iter().zip(&mut errs).collect();
    in_order(
        pieces,
        || (),
        |(), ((r, slot), err): ((std::ops::Range<Vertex>, &mut [f64]), &mut f64)| {
            let lo = r.start;
            let mut finish = |v: Vertex, sum: f64| {
                let i = v as usize;
                let val = sum + base * p[i];
                *err += (val - x[i]).abs();
                slot[(v - lo) as usize] = val;
            };
            if weighted {
                in_.for_each_weighted_in_range(r, |v, nbrs, ws| {
                    let sum =
                        nbrs.iter().zip(ws).map(|(&u, &w)| contrib[u as usize].to_f64() * w as f64).sum();
                    finish(v, sum);
                });
            } else {
                in_.for_each_in_range(r, |v, nbrs| {
                    finish(v, nbrs.iter().map(|&u| contrib[u as usize].to_f64()).sum());
                });
            }
        },
    );
    errs.iter().sum()
}

/// Checks a PageRank result serially: one score per vertex, all finite and `>= 0`, summing to 1
/// within `1e-6`; and the residual of one more power-iteration step, computed by a plain serial
/// *push* over out-edges, `Σ |T(x) - x|`, is at most `n * tol` when the result says it
/// converged (`2 * n * tol` for Gauss-Seidel, whose last sweep changed the scores by less than
/// `n * tol`: each change moves `T(x)` by at most `d` times as much through the in-sums and as
/// much again through the dangling mass), else at most `2 * d^iterations` (the contraction
/// bound), plus `1e-9`.
pub fn verify_pagerank<O: Adjacency>(
    out: &O,
    opts: &PageRankOptions,
    result: &PageRankResult,
) -> Result<(), String> {
    let n = out.num_vertices();
    let x = &result.scores;
    if x.len() != n {
        return Err(format!("{} scores for {n} vertices", x.len()));
    }
    if let Some(v) = x.iter().position(|s| !(s.is_finite() && *s >= 0.0)) {
        return Err(format!("score of vertex {v} is {}", x[v]));
    }
    if n == 0 {
        return Ok(());
    }
    let sum: f64 = x.iter().sum();
    if (sum - 1.0).abs() > 1e-6 {
        return Err(format!("scores sum to {sum}"));
    }
    let p = teleport_vector(n, opts).map_err(|e| e.to_string())?;
    let weighted = opts.use_weights && out.is_weighted();
    let d = opts.damping;
    let mut y = vec![0.0; n];
    let mut dangling = 0.0;
    for u in 0..n as Vertex {
        let nbrs = out.neighbors(u);
        let ws: Vec<f64> = match (weighted, out.weights(u)) {
            (true, Some(w)) => w.iter().map(|&w| w as f64).collect(),
            _ => vec![1.0; nbrs.len()],
        };
        let total: f64 = ws.iter().sum();
        if total > 0.0 {
            for (&v, w) in nbrs.iter().zip(&ws) {
                y[v as usize] += d * x[u as usize] * w / total;
            }
        } else {
            dangling += x[u as usize];
        }
    }
    let residual: f64 = (0..n).map(|v| (y[v] + (d * dangling + 1.0 - d) * p[v] - x[v]).abs()).sum();
    let bound = if result.converged {
        n as f64 * opts.tol * if opts.method == Method::GaussSeidel { 2.0 } else { 1.0 }
    } else {
        2.0 * d.powi(result.iterations.min(i32::MAX as usize) as i32)
    } + 1e-9;
    if residual > bound {
        return Err(format!("one more iteration moves the scores by {residual} (allowed {bound})"));
    }
    Ok(())
}
