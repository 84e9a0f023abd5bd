//! `ocgraph run`: run an analytics kernel on a graph, GAPBS-style: time each trial, optionally
//! verify each result (PASS/FAIL), and write the result as `.npy` or `.txt`.
//!
//! Vertex arguments (`--source`, `--target`) are internal vertex ids `0..n`, or, with
//! `--source-id` / `--target-id`, the ids of the input (relabelled or reordered graphs). The
//! kernels run on a rayon pool of `--threads` threads (0 = one per core).

use std::num::IntErrorKind;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use ocgraph_algo::*;
use ocgraph_core::ids::{IdLookup, OriginalId};
use ocgraph_core::{with_adjacency, Adjacency, Error, Grid, Hubs, Layout, Result, Vertex};

use crate::backend_args::BackendArgs;
use ocgraph_core::ingest::Progress;

use super::run_output::{is_npy, write_values, Shape, Values};
use crate::progress::CliProgress;

/// The kernels `ocgraph run` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Algo {
    /// Hop depths from --source (direction-optimising BFS); output: depth per vertex (-1 unreachable).
    Bfs,
    /// Weighted distances from --source (delta-stepping; weights must be >= 0); output: distance per vertex (inf unreachable).
    Sssp,
    /// Weakly connected components (Afforest); output: smallest vertex id of each vertex's component.
    Wcc,
    /// PageRank as networkx (--damping, --max-iter, --tol; --tol 0 = fixed iterations; weights must be >= 0); output: scores.
    Pagerank,
    /// Triangles of the undirected simple graph; output: the count.
    TriangleCount,
    /// Diameter lower bound by BFS sweeps from --source; output: [bound, from, to].
    Diameter,
    /// Vertices within --k hops of --source (sorted); output: the vertex ids.
    KHop,
    /// A fewest-hops path from --source to --target; output: the path (empty if none).
    ShortestPath,
    /// Sparse matrix-vector product y = A^T x with x = 1 (weighted in-degrees); output: y.
    Spmv,
}

impl Algo {
    /// What the kernel's values are, for `--original-ids`.
    fn shape(self) -> Shape {
        match self {
            Algo::Bfs | Algo::Sssp | Algo::Pagerank | Algo::Spmv => Shape::PerVertex,
            Algo::Wcc => Shape::VertexPerVertex,
            Algo::KHop | Algo::ShortestPath => Shape::Vertices,
            Algo::Diameter => Shape::BoundAndEnds,
            Algo::TriangleCount => Shape::Counts,
        }
    }
}

/// Which stored layout a kernel reads (`--layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// The grid for pagerank, wcc and spmv when the graph has one and no pending updates,
    /// else the adjacency lists: their packed copies (`ocgraph layout pack`) when the graph has
    /// them and the buffer pool is smaller than the plain lists, else the plain lists; for bfs
    /// and wcc, with the hub index (`ocgraph layout hubs`) when the graph has one (see
    /// docs/layouts.md for the measurements behind the rule).
    Auto,
    /// The plain adjacency lists (a packed graph's packed lists).
    Csr,
    /// The packed copies of the adjacency lists (`ocgraph layout pack`).
    Packed,
    /// The grid (`ocgraph layout grid`): pagerank, wcc and spmv only.
    Grid,
    /// The hub index (`ocgraph layout hubs`) with the lists auto reads: bfs and wcc only.
    Hubs,
}

impl From<LayoutArg> for Layout {
    fn from(l: LayoutArg) -> Layout {
        match l {
            LayoutArg::Auto => Layout::Auto,
            LayoutArg::Csr => Layout::Csr,
            LayoutArg::Packed => Layout::Packed,
            LayoutArg::Grid => Layout::Grid,
            LayoutArg::Hubs => Layout::Hubs,
        }
    }
}

/// Arguments of `ocgraph run`.
#[derive(Args)]
pub struct RunArgs {
    /// The kernel to run.
    #[arg(value_enum)]
    algo: Algo,
    /// Graph directory.
    graph: PathBuf,
    /// Threads for the kernel (0 = one per core).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    threads: usize,
    /// Number of timed trials.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1, value_parser = super::positive)]
    trials: usize,
    /// Before the timed trials, run untimed ones until this many seconds have passed (at least
    /// one when > 0), so that the timed trials find the graph cached and the pool settled; I/O
    /// statistics then cover the timed trials only (a --trace records the warm-up too).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.0, value_parser = super::seconds_arg)]
    warmup_secs: f64,
    /// Verify every trial's result with the kernel's serial checker; a failed check exits 1.
    #[arg(long)]
    verify: bool,
    /// Source / start vertex (bfs, sssp, diameter, k-hop, shortest-path; default 0).
    #[arg(long, allow_negative_numbers = true)]
    source: Option<Vertex>,
    /// Target vertex (shortest-path).
    #[arg(long, allow_negative_numbers = true)]
    target: Option<Vertex>,
    /// Source vertex by its original id (the input's id in a relabelled or reordered graph, as
    /// `ocgraph export --original-ids` writes it); instead of --source.
    #[arg(long, conflicts_with = "source")]
    source_id: Option<String>,
    /// Target vertex by its original id; instead of --target.
    #[arg(long, conflicts_with = "target")]
    target_id: Option<String>,
    /// Hops (k-hop; default 2).
    #[arg(long, allow_negative_numbers = true)]
    k: Option<u32>,
    /// Damping factor (pagerank; default 0.85).
    #[arg(long, allow_negative_numbers = true)]
    damping: Option<f64>,
    /// Maximum iterations (pagerank; default 100).
    #[arg(long, allow_negative_numbers = true)]
    max_iter: Option<usize>,
    /// Convergence tolerance, networkx's rule; 0 runs exactly --max-iter iterations (pagerank;
    /// default 1e-6).
    #[arg(long, allow_negative_numbers = true)]
    tol: Option<f64>,
    /// Iteration: jacobi (networkx's iterates) or gauss-seidel (in-place sweeps as GAPBS's pr:
    /// often fewer iterations on large graphs, more on some, timing-dependent iterates)
    /// (pagerank; default jacobi).
    #[arg(long)]
    method: Option<PageRankMethod>,
    /// Bucket width (sssp; default: max weight / (2 x average degree), at most the median of a
    /// sample of the weights / average degree, at least the min weight; at least max weight / 2
    /// when the pool's --memory is smaller than the graph's lists).
    #[arg(long, allow_negative_numbers = true)]
    delta: Option<f64>,
    /// BFS sweeps (diameter; default 4).
    #[arg(long, allow_negative_numbers = true)]
    sweeps: Option<usize>,
    /// Write the result to this file: `.npy` (NumPy array) or anything else (text, one value a line).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write --out as text naming vertices by their original ids (the input's ids in a
    /// relabelled or reordered graph): `id value` lines for per-vertex results (a component's
    /// label as the id of the vertex naming it), one id a line for k-hop and shortest-path, the
    /// bound then the two ends' ids for diameter.
    #[arg(long, requires = "out")]
    original_ids: bool,
    /// Layout to read: auto, csr, packed, grid (pagerank, wcc, spmv; built by `ocgraph layout
    /// grid`) or hubs (bfs, wcc; built by `ocgraph layout hubs`).
    #[arg(long, value_enum, default_value_t = LayoutArg::Auto)]
    layout: LayoutArg,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Runs `ocgraph run` (a corrupted file a kernel panics on is reported, see
/// [`super::reporting_corruption`]).
pub fn run(args: &RunArgs) -> Result<()> {
    super::reporting_corruption(&args.graph, || run_kernel(args))
}

/// [`run`] without the check after a panic.
fn run_kernel(args: &RunArgs) -> Result<()> {
    if let Some(out) = &args.out {
        ocgraph_core::format::refuse_output_place(&args.graph, out, "--out")?;
        if args.original_ids && is_npy(out) {
            return Err(Error::invalid(format!(
                "--original-ids writes text (`id value` lines), but --out {} names a NumPy file: \
                 name a text file, or write the array without --original-ids (element i is vertex i)",
                out.display()
            )));
        }
    }
    args.backend.refuse_shared_files(&[(args.out.as_deref(), "--out", true)])?;
    warn_inapplicable(args);
    let view = args.backend.open_view(&args.graph)?;
    let pool = super::thread_pool(args.threads, view.base())?;
    // The id map is loaded once, and only when a vertex is given or written by its original id.
    let ids = match (&args.source_id, &args.target_id, args.original_ids) {
        (None, None, false) => None,
        _ => Some(view.ids()?),
    };
    let by_id = |flag: &str, id: &Option<String>| -> Result<Option<Vertex>> {
        match (id.as_deref(), &ids) {
            (Some(id), Some(ids)) => vertex_by_original(ids, &args.graph, flag, id).map(Some),
            _ => Ok(None),
        }
    };
    // A vertex given by its internal id is checked here, so that the error names its flag.
    for (flag, v) in [("--source", args.source), ("--target", args.target)] {
        if let Some(v) = v.filter(|&v| v as usize >= view.num_vertices()) {
            return Err(Error::invalid(format!(
                "{flag} {v}: out of range ({} has {} vertices)",
                args.graph.display(),
                view.num_vertices()
            )));
        }
    }
    let ends = Ends {
        source: by_id("--source-id", &args.source_id)?.or(args.source).unwrap_or(0),
        target: by_id("--target-id", &args.target_id)?.or(args.target),
    };
    let reads_hubs = matches!(args.algo, Algo::Bfs | Algo::Wcc);
    let (grid, hubs, why) = view.choose_stored(args.layout.into(), has_grid_kernel(args.algo), reads_hubs)?;
    let stored = Stored { grid: grid.as_ref(), hubs: hubs.as_ref() };
    // With `--out -` the values go to standard output alone, the report to standard error.
    let say = |line: &str| super::report(super::data_on_stdout(&[args.out.as_deref()]), line);
    let progress = CliProgress::new(false);
    let name = args.algo.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
    progress.spinner(&format!("{name} on {}", args.graph.display()));
    // The report names vertices as they were given: by original id when ids are loaded.
    let vertex_name = |v: Vertex| match &ids {
        Some(ids) => ids.original(v).to_string(),
        None => v.to_string(),
    };
    let started = std::time::Instant::now();
    let mut warmups = 0;
    while args.warmup_secs > 0.0 && (warmups == 0 || started.elapsed().as_secs_f64() < args.warmup_secs) {
        pool.install(|| {
            with_adjacency!(&view, |out, inn| execute(args, ends, 1, false, stored, out, inn, &vertex_name))
        })?;
        warmups += 1;
    }
    if warmups > 0 {
        view.reset_io_stats();
        say(&format!("warm-up: {warmups} untimed trial(s) in {:.3} s", started.elapsed().as_secs_f64()));
    }
    let result = pool.install(|| {
        with_adjacency!(&view, |out, inn| {
            execute(args, ends, args.trials, args.verify, stored, out, inn, &vertex_name)
        })
    });
    progress.finish();
    let (report, values, summary) = result?;
    for (i, t) in report.trial_secs.iter().enumerate() {
        say(&format!("trial {i}: {t:.6} s"));
    }
    say(&format!(
        "{}: {summary}; mean {:.6} s, min {:.6} s over {} trial(s), {} thread(s)",
        report.name,
        report.mean_secs(),
        report.min_secs(),
        report.trial_secs.len(),
        pool.current_num_threads()
    ));
    if report.verified.is_some() {
        match &report.verify_error {
            Some(msg) => say(&format!("verification: {} ({msg})", report.verdict())),
            None => say(&format!("verification: {}", report.verdict())),
        }
    }
    if let Some(path) = &args.out {
        let written_ids = if args.original_ids { ids.as_ref() } else { None };
        write_values(path, &values, args.algo.shape(), written_ids)?;
    }
    if args.backend.stats {
        let lists = if view.base().reads_packed() { "packed" } else { "csr" };
        let hubs = if hubs.is_some() { "hubs + " } else { "" };
        let ran = if grid.is_some() { "grid".to_string() } else { format!("{hubs}{lists}") };
        eprintln!("layout: {ran} ({why})");
    }
    args.backend.report_stats(view.base())?;
    if report.verified == Some(false) {
        // A result that fails its check fails the command (exit 1), so that scripts see it.
        eprintln!(
            "error: the result failed verification ({})",
            report.verify_error.as_deref().unwrap_or("-")
        );
        std::process::exit(1);
    }
    Ok(())
}

/// Warns on standard error about each kernel option given to a kernel it does not apply to
/// (`run sssp --k 3`), which the kernel runs without: scripts that pass one set of options to
/// every kernel keep working, and a mistyped kernel name does not go unnoticed.
fn warn_inapplicable(args: &RunArgs) {
    use Algo::*;
    let sourced: &[Algo] = &[Bfs, Sssp, Diameter, KHop, ShortestPath];
    let options: [(&str, bool, &[Algo]); 11] = [
        ("--source", args.source.is_some(), sourced),
        ("--source-id", args.source_id.is_some(), sourced),
        ("--target", args.target.is_some(), &[ShortestPath]),
        ("--target-id", args.target_id.is_some(), &[ShortestPath]),
        ("--k", args.k.is_some(), &[KHop]),
        ("--damping", args.damping.is_some(), &[Pagerank]),
        ("--max-iter", args.max_iter.is_some(), &[Pagerank]),
        ("--tol", args.tol.is_some(), &[Pagerank]),
        ("--method", args.method.is_some(), &[Pagerank]),
        ("--delta", args.delta.is_some(), &[Sssp]),
        ("--sweeps", args.sweeps.is_some(), &[Diameter]),
    ];
    let name = |a: Algo| a.to_possible_value().expect("no skipped variants").get_name().to_string();
    for (flag, given, kernels) in options {
        if given && !kernels.contains(&args.algo) {
            let of: Vec<String> = kernels.iter().map(|&a| name(a)).collect();
            eprintln!(
                "warning: {flag} does not apply to {} (an option of {}); ignored",
                name(args.algo),
                of.join(", ")
            );
        }
    }
}

/// The stored layouts beside the lists a kernel reads: the grid, the hub index.
#[derive(Clone, Copy)]
struct Stored<'a> {
    grid: Option<&'a Grid<'a>>,
    hubs: Option<&'a Hubs<'a>>,
}

/// Kernels with a grid version.
fn has_grid_kernel(algo: Algo) -> bool {
    matches!(algo, Algo::Pagerank | Algo::Wcc | Algo::Spmv)
}

/// The source and target vertices of a run, resolved from their flags.
#[derive(Clone, Copy)]
struct Ends {
    source: Vertex,
    target: Option<Vertex>,
}

/// The vertex whose original id in `ids` (the id map of the graph at `dir`) is `id` (a string
/// on graphs with string ids, taken as written: `007` is not `7`; an integer otherwise); `flag`
/// names the argument in the error.
fn vertex_by_original(ids: &IdLookup, dir: &Path, flag: &str, id: &str) -> Result<Vertex> {
    let key = if ids.has_string_ids() {
        OriginalId::Str(id.to_string())
    } else {
        OriginalId::Int(id.parse::<u64>().map_err(|e| {
            let d = dir.display();
            Error::invalid(match e.kind() {
                IntErrorKind::PosOverflow => format!("{flag} {id}: past the largest original id, 2^64 - 1"),
                _ if id.strip_prefix('-').is_some_and(|v| v.parse::<u64>().is_ok()) => {
                    format!("{flag} {id}: negative; the original ids of {d} are integers from 0 to 2^64 - 1")
                }
                _ => format!("{flag} {id}: the original ids of {d} are integers"),
            })
        })?)
    };
    ids.vertex(&key).ok_or_else(|| {
        Error::invalid(format!("{flag} {id}: no vertex of {} has this original id", dir.display()))
    })
}

/// Runs the chosen kernel for `trials` trials, checking each with its verifier when `verify`;
/// returns the report, the output values and a one-line summary, which names a vertex `v` as
/// `vertex_name(v)`.
#[allow(clippy::too_many_arguments)]
fn execute<A: Adjacency>(
    args: &RunArgs,
    ends: Ends,
    trials: usize,
    verify: bool,
    stored: Stored<'_>,
    out: A,
    inn: A,
    vertex_name: &dyn Fn(Vertex) -> String,
) -> Result<(KernelReport, Values, String)> {
    let grid = stored.grid;
    let s = ends.source;
    let name = args.algo.to_possible_value().expect("no skipped variants").get_name().to_string();
    Ok(match args.algo {
        Algo::Bfs => {
            let (rep, r) = run_trials(
                &name,
                trials,
                verify,
                || bfs_with_hubs(&out, &inn, stored.hubs, s),
                |r| verify_bfs(&out, s, r),
            )?;
            let depth = r.depth_i64();
            let reached = depth.iter().filter(|&&d| d >= 0).count();
            let max = depth.iter().max().copied().unwrap_or(0);
            (rep, Values::I64(depth), format!("reached {reached} vertices, max depth {max}"))
        }
        Algo::Sssp => {
            let (rep, d) =
                run_trials(&name, trials, verify, || sssp(&out, s, args.delta), |d| verify_sssp(&out, s, d))?;
            let reached = d.iter().filter(|x| x.is_finite()).count();
            let max = d.iter().copied().filter(|x| x.is_finite()).fold(0.0, f64::max);
            (rep, Values::F64(d), format!("reached {reached} vertices, max distance {max}"))
        }
        Algo::Wcc => {
            let run = || match (grid, stored.hubs) {
                (_, Some(h)) => wcc_with_hubs(&out, &inn, h),
                (Some(g), None) => wcc_grid(g),
                (None, None) => wcc(&out, &inn),
            };
            let (rep, labels) = run_trials(&name, trials, verify, run, |l| verify_wcc(&out, l))?;
            let count = labels.iter().enumerate().filter(|&(v, &l)| v == l as usize).count();
            (rep, Values::U32(labels), format!("{count} components"))
        }
        Algo::Pagerank => {
            let defaults = PageRankOptions::default();
            let opts = PageRankOptions {
                damping: args.damping.unwrap_or(defaults.damping),
                max_iter: args.max_iter.unwrap_or(defaults.max_iter),
                tol: args.tol.unwrap_or(defaults.tol),
                method: args.method.unwrap_or(defaults.method),
                ..defaults
            };
            let (rep, r) = run_trials(
                &name,
                trials,
                verify,
                || match grid {
                    Some(g) => pagerank_grid(g, &out, &opts),
                    None => pagerank(&out, &inn, &opts),
                },
                |r| verify_pagerank(&out, &opts, r),
            )?;
            let summary = format!(
                "{} iterations, {}",
                r.iterations,
                if r.converged { "converged" } else { "not converged (iteration limit)" }
            );
            (rep, Values::F64(r.scores), summary)
        }
        Algo::TriangleCount => {
            let (rep, c) = run_trials(
                &name,
                trials,
                verify,
                || triangle_count(&out, &inn),
                |&c| verify_triangle_count(&out, &inn, c),
            )?;
            (rep, Values::I64(vec![c as i64]), format!("{c} triangles"))
        }
        Algo::Diameter => {
            let (rep, e) = run_trials(
                &name,
                trials,
                verify,
                || diameter_estimate(&out, &inn, s, args.sweeps.unwrap_or(4)),
                |e| verify_diameter_estimate(&out, e),
            )?;
            let (a, b) = e.endpoints;
            let summary =
                format!("diameter >= {} (from {} to {})", e.lower_bound, vertex_name(a), vertex_name(b));
            (rep, Values::I64(vec![e.lower_bound as i64, a.into(), b.into()]), summary)
        }
        Algo::KHop => {
            let k = args.k.unwrap_or(2);
            let (rep, vs) =
                run_trials(&name, trials, verify, || k_hop(&out, s, k), |r| verify_k_hop(&out, s, k, r))?;
            let summary = format!("{} vertices within {k} hops of {}", vs.len(), vertex_name(s));
            (rep, Values::U32(vs), summary)
        }
        Algo::ShortestPath => {
            let t =
                ends.target.ok_or_else(|| Error::invalid("shortest-path needs --target or --target-id"))?;
            let (rep, p) = run_trials(
                &name,
                trials,
                verify,
                || shortest_path(&out, &inn, s, t),
                |p| verify_shortest_path(&out, s, t, p.as_deref()),
            )?;
            let (from, to) = (vertex_name(s), vertex_name(t));
            let summary = match &p {
                Some(p) => format!("path of {} hops from {from} to {to}", p.len() - 1),
                None => format!("no path from {from} to {to}"),
            };
            (rep, Values::U32(p.unwrap_or_default()), summary)
        }
        Algo::Spmv => {
            let mut x = Vec::new();
            let n = out.num_vertices();
            ocgraph_core::memory::try_resize(&mut x, n, 1.0, || format!("spmv's x on {n} vertices"))?;
            let run = || match grid {
                Some(g) => spmv_grid(g, &x),
                None => spmv(&out, &inn, &x),
            };
            let (rep, y) = run_trials(&name, trials, verify, run, |y| verify_spmv(&out, &x, y))?;
            let total: f64 = y.iter().sum();
            (rep, Values::F64(y), format!("sum of y {total}"))
        }
    })
}
