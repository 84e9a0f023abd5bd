//! `ocgraph query`: answer a workload file's queries (in order with one client, or with N
//! concurrent clients) with an optional prefetcher; report throughput, latency percentiles and
//! the backend's I/O statistics.
//!
//! Output: two human-readable lines on stdout (throughput and latency; the I/O counters), then
//! (with `--json`) the report as one JSON line
//! with the I/O statistics under `"io"` and the process's peak resident set under
//! `"peak_rss_bytes"` (null where `/proc` has none). `--stats` prints the I/O statistics to
//! stderr like the other commands.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use ocgraph_algo::queries::Kernels;
use ocgraph_core::query::prefetch::advisor::LOCK_RESERVE;
use ocgraph_core::query::{run_queries, write_answers, PrefetchMode, RunOptions, Workload};
use ocgraph_core::Result;

use crate::backend_args::BackendArgs;

/// The prefetchers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Prefetch {
    /// No prefetching.
    None,
    /// Neighbour lists of some of the visited vertices' neighbours (highest degree first);
    /// on the pool, a bounds miss also reads the page where the list is predicted to start.
    #[value(alias = "neighborhood")]
    Neighbourhood,
    /// The next window of the neighbours file after the visited vertex's list.
    Sequential,
    /// Reads ahead in the workload file (the bound).
    Omniscient,
}

impl Prefetch {
    fn mode(self) -> PrefetchMode {
        match self {
            Prefetch::None => PrefetchMode::None,
            Prefetch::Neighbourhood => PrefetchMode::Neighbourhood,
            Prefetch::Sequential => PrefetchMode::Sequential,
            Prefetch::Omniscient => PrefetchMode::Omniscient,
        }
    }
}

/// Arguments of `ocgraph query`.
#[derive(Args)]
pub struct QueryArgs {
    /// Graph directory.
    pub(crate) graph: PathBuf,
    /// The workload file (`ocgraph workload`).
    #[arg(long)]
    workload: PathBuf,
    /// The prefetcher.
    #[arg(long, value_enum, default_value_t = Prefetch::None)]
    prefetch: Prefetch,
    /// Concurrent query threads (1 answers the stream in order; at most 1024).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1, value_parser = super::thread_count_arg)]
    clients: usize,
    /// Queries the omniscient prefetcher advises ahead at most (default: 64 edge, 4 fof, 2
    /// shortest-path); it also stops where the advised queries would fill a quarter of --memory.
    #[arg(long, allow_negative_numbers = true)]
    lookahead: Option<usize>,
    /// Write the answers to this file (text; format in `ocgraph_core::query::runner`).
    #[arg(long)]
    answers: Option<PathBuf>,
    /// Also print the report as one JSON line on stdout (on stderr with `--answers -`, whose
    /// answers stdout then holds alone).
    #[arg(long)]
    json: bool,
    /// mmap: the share of --memory the neighbourhood prefetcher leaves out of the pages it
    /// locks and plans for (the default suits a memory limit that also covers this process's
    /// own pages; 0 when --memory is the graph's pages' alone).
    #[arg(long, allow_negative_numbers = true, value_parser = share, default_value_t = LOCK_RESERVE)]
    lock_reserve: f64,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Runs `ocgraph query`.
pub fn run(args: &QueryArgs) -> Result<()> {
    if let Some(out) = &args.answers {
        ocgraph_core::format::refuse_output_place(&args.graph, out, "--answers")?;
    }
    args.backend.refuse_shared_files(&[
        (Some(args.workload.as_path()), "--workload", false),
        (args.answers.as_deref(), "--answers", true),
    ])?;
    let w = Workload::load(&args.workload)?;
    let g = args.backend.open_stored(&args.graph, "ocgraph query")?;
    g.reset_io_stats();
    let opts = RunOptions {
        prefetch: args.prefetch.mode(),
        clients: args.clients,
        keep_answers: args.answers.is_some(),
        lookahead: args.lookahead,
        memory: Some(args.backend.memory),
        lock_reserve: args.lock_reserve,
        ..RunOptions::default()
    };
    let r = run_queries(&g, &w, &opts, &Kernels)?;
    let io = g.io_stats();
    let l = &r.latency;
    // With `--answers -` the answers go to standard output alone, the report to standard error.
    let say = |line: &str| super::report(super::data_on_stdout(&[args.answers.as_deref()]), line);
    say(&format!(
        "{} x{} prefetch={} clients={}: {:.3} s, {:.0} queries/s; latency us p50 {:.1} p95 {:.1} p99 {:.1} max {:.1}",
        r.kind, r.queries, r.prefetch, r.clients, r.seconds, r.queries_per_second, l.p50_us, l.p95_us, l.p99_us,
        l.max_us
    ));
    say(&format!(
        "io ({}): {} page requests, hit ratio {:.3}, {:.1} MiB read in {} calls, {} major faults",
        io.backend,
        io.page_requests,
        io.hit_ratio(),
        io.bytes_read as f64 / (1u64 << 20) as f64,
        io.read_calls,
        io.major_faults
    ));
    if args.json {
        let mut v = serde_json::to_value(&r).expect("report serialises");
        v["io"] = io.to_json();
        v["peak_rss_bytes"] = peak_rss_bytes().into();
        say(&v.to_string());
    }
    if let (Some(path), Some(answers)) = (&args.answers, &r.answers) {
        write_answers(path, w.kind, answers)?;
    }
    args.backend.report_stats(&g)
}

/// A share from 0 to 1 (below 1).
fn share(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a share from 0 to 1 (below 1)")),
    }
}

/// This process's peak resident set in bytes (`VmHWM` in `/proc/self/status`: this program's
/// own, unlike `getrusage`'s maximum, which a parent's before `exec` can raise).
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().strip_suffix("kB")?;
    Some(kb.trim().parse::<u64>().ok()? * 1024)
}
