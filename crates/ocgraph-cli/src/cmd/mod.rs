//! The subcommands, one module each.

mod advise;
mod cache_sim;
mod check;
mod export;
mod generate;
mod import;
mod info;
mod labels;
mod layout;
mod mine;
mod output_args;
mod pack;
mod parquet;
mod query;
mod reorder;
mod run;
mod run_output;
mod spark;
mod stream;
mod stream_watch;
mod stream_workload;
mod text_lines;
mod update;
mod workload;

use clap::Subcommand;
use ocgraph_core::Result;

/// Every `ocgraph` subcommand.
#[derive(Subcommand)]
pub enum Command {
    /// Build a graph from an edge-list file (text, CSV, MatrixMarket, gzip'd, binary pairs, Parquet).
    Import(import::ImportArgs),
    /// Generate a synthetic graph (Kronecker, Erdős–Rényi, road grid).
    Generate(generate::GenerateArgs),
    /// Print a graph's size, layout and degree statistics.
    ///
    /// The degree statistics are those of the out-degrees, whole numbers: the median is the
    /// lower of the two middle values when the vertex count is even (of 1 and 5: 1).
    Info(info::InfoArgs),
    /// Verify every checksum and the CSR invariants of a graph.
    Check(check::CheckArgs),
    /// Write a graph as an edge list (text, CSV, binary pairs with or without weights, or Parquet).
    Export(export::ExportArgs),
    /// Build or remove the layouts stored beside a graph's CSR: the grid, block-compressed, packed
    /// and hub copies.
    Layout(layout::LayoutArgs),
    /// Set, show or remove the vertex labels stored with a graph (for labelled patterns).
    Labels(labels::LabelsArgs),
    /// Copy a graph with its neighbour lists packed (bit-packed gaps: about half the bytes).
    Pack(pack::PackArgs),
    /// Copy a graph with its vertices renumbered by descending degree (hubs first; ids kept).
    Reorder(reorder::ReorderArgs),
    /// Run an analytics kernel (bfs, sssp, wcc, pagerank, ...) with timing and verification.
    Run(run::RunArgs),
    /// Mine patterns: k-cliques, motif censuses, user patterns (count or list).
    Mine(mine::MineArgs),
    /// Apply durable updates: add/remove edges (from files) and vertices.
    Update(update::UpdateArgs),
    /// Merge a graph's update levels into a new base (atomic switch).
    Compact(update::CompactArgs),
    /// Replay a page-access trace (`run --trace`) through replacement policies and OPT.
    CacheSim(cache_sim::CacheSimArgs),
    /// Generate a seeded query workload (edge queries, friends-of-friends, shortest paths).
    Workload(workload::WorkloadArgs),
    /// Apply a stream of updates in batches, keeping results current (wcc, bfs, sssp,
    /// pagerank); report per-batch latency and throughput.
    Stream(stream::StreamArgs),
    /// Answer a workload's queries with a prefetcher; report latency, throughput and I/O.
    Query(query::QueryArgs),
    /// Run the analytics on Apache Spark (`spark run ALGO G --master local[2]`), via Python.
    Spark(spark::SparkArgs),
    /// Recommend backend, memory budget, policy and copy (reorder/pack) per kernel.
    Advise(advise::AdviseArgs),
}

/// Runs a parsed subcommand.
pub fn run(cmd: Command) -> Result<()> {
    // Rayon's global pool, started here so that a failure to start it is an error, not a panic
    // at its first use; `run` and `mine` start pools of their own instead.
    let global_threads = match &cmd {
        Command::Run(_) | Command::Mine(_) => None,
        Command::Import(a) => Some(a.threads),
        Command::Layout(a) => Some(a.threads()),
        Command::Stream(a) => Some(a.threads),
        _ => Some(0),
    };
    if let Some(threads) = global_threads {
        start_global_pool(threads)?;
    }
    match cmd {
        Command::Import(a) => import::run(&a),
        Command::Generate(a) => generate::run(&a),
        Command::Info(a) => info::run(&a),
        Command::Check(a) => check::run(&a),
        Command::Export(a) => export::run(&a),
        Command::Layout(a) => layout::run(&a),
        Command::Labels(a) => labels::run(&a),
        Command::Pack(a) => pack::run(&a),
        Command::Reorder(a) => reorder::run(&a),
        Command::Run(a) => run::run(&a),
        Command::Mine(a) => reporting_corruption(&a.graph, || mine::run(&a)),
        Command::CacheSim(a) => cache_sim::run(&a),
        Command::Update(a) => reporting_corruption(&a.graph, || update::run(&a)),
        Command::Compact(a) => reporting_corruption(&a.graph, || update::compact(&a)),
        Command::Workload(a) => reporting_corruption(&a.graph, || workload::run(&a)),
        Command::Query(a) => reporting_corruption(&a.graph, || query::run(&a)),
        Command::Stream(a) => reporting_corruption(&a.graph, || stream::run(&a)),
        Command::Spark(a) => spark::run(&a),
        Command::Advise(a) => advise::run(&a),
    }
}

/// Runs `f`, a command reading the graph at `graph`. When it panics on lists that are not what
/// the graph says (a corrupted file that was not checked), the graph is verified as `ocgraph
/// check` does and the corrupted file is reported instead of the panic; a panic on a graph that
/// checks out passes through.
pub(crate) fn reporting_corruption(graph: &std::path::Path, f: impl FnOnce() -> Result<()>) -> Result<()> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => match ocgraph_core::format::check_graph(graph) {
            Err(corrupt) => {
                // The panic was the corruption's doing: its message would only mislead.
                crate::panic_report::take();
                Err(corrupt)
            }
            Ok(_) => std::panic::resume_unwind(payload),
        },
    }
}

/// clap value parser for counts that must be at least 1 (`--trials`, `--batch-size`).
pub(crate) fn positive(s: &str) -> std::result::Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(k) => Ok(k),
        Err(e) => Err(e.to_string()),
    }
}

/// clap value parser for a batch size: 1 up to the most items one batch may hold.
pub(crate) fn batch_size_arg(s: &str) -> std::result::Result<usize, String> {
    let max = ocgraph_core::update::wal_frame::MAX_BATCH_ITEMS;
    match positive(s)? {
        k if k > max => Err(format!("a batch holds at most {max} items")),
        k => Ok(k),
    }
}

/// clap value parser for a duration in seconds: a finite number, 0 or more.
pub(crate) fn seconds_arg(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("must be a finite number of seconds, 0 or more".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// clap value parser for byte sizes (`256MB`, `1GiB`, `4096`).
pub(crate) fn size_arg(s: &str) -> std::result::Result<u64, String> {
    ocgraph_core::size::parse_size(s).map_err(|e| e.to_string())
}

/// Most `--threads` accepted: far above any machine's cores, low enough that a typo does not
/// ask the OS for millions of threads.
const MAX_THREADS: usize = 1024;

/// Refuses a `--threads` above [`MAX_THREADS`].
fn check_threads(threads: usize) -> Result<()> {
    if threads > MAX_THREADS {
        return Err(ocgraph_core::Error::invalid(format!("--threads {threads}: at most {MAX_THREADS}")));
    }
    Ok(())
}

/// clap value parser for a count of threads a command starts itself (`query --clients`): at
/// most [`MAX_THREADS`].
pub(crate) fn thread_count_arg(s: &str) -> std::result::Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|_| format!("'{s}' is not a thread count"))?;
    if n > MAX_THREADS {
        return Err(format!("{n}: at most {MAX_THREADS}"));
    }
    Ok(n)
}

/// A rayon pool of `threads` threads (0 = one per core) for one command on `graph`, at most
/// [`ocgraph_core::Graph::reading_threads`].
pub(crate) fn thread_pool(threads: usize, graph: &ocgraph_core::Graph) -> Result<rayon::ThreadPool> {
    check_threads(threads)?;
    // 0 is one per core; a small buffer pool takes fewer readers.
    let wanted = if threads > 0 { threads } else { default_threads() };
    let threads = graph.reading_threads(Some(wanted)).unwrap_or(wanted);
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| threads_refused(threads, e))
}

/// Starts rayon's global pool with `threads` threads (0 = one per core, or `RAYON_NUM_THREADS`).
fn start_global_pool(threads: usize) -> Result<()> {
    check_threads(threads)?;
    let count = if threads > 0 { threads } else { default_threads() };
    rayon::ThreadPoolBuilder::new().num_threads(count).build_global().map_err(|e| threads_refused(count, e))
}

/// The threads rayon starts by default (`RAYON_NUM_THREADS` when set, else one per core),
/// found without starting its global pool: rayon reports a global pool that cannot start
/// (no address space left for the threads' stacks under `ulimit -v`) only by a panic.
fn default_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The error of `threads` worker threads the system would not start.
fn threads_refused(threads: usize, e: rayon::ThreadPoolBuildError) -> ocgraph_core::Error {
    ocgraph_core::memory::threads_refused(threads, &e.to_string())
}

/// Prints a report line: on standard error when `data_on_stdout` (the command writes its data
/// to standard output, `-`, which must hold the data alone), else on standard output.
pub(crate) fn report(data_on_stdout: bool, line: &str) {
    if data_on_stdout {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

/// Whether any of `outs` names standard output (`-`).
pub(crate) fn data_on_stdout(outs: &[Option<&std::path::Path>]) -> bool {
    outs.iter().flatten().any(|p| ocgraph_core::format::names_standard_output(p))
}
