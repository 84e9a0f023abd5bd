//! Command-line options choosing how a graph is opened (page backend and its parameters),
//! shared by every subcommand that reads a graph.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueEnum};
use ocgraph_core::page::policy::policy_by_name;
use ocgraph_core::page::{Advice, BackendKind};
use ocgraph_core::{has_updates, Error, Graph, GraphView, OpenOptions, Result};

use crate::cmd::size_arg;

/// The page backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// Memory-map the files; the OS page cache does the I/O.
    Mmap,
    /// The user-space buffer pool with a hard memory budget.
    Pool,
}

/// A `--policy` value: a policy name, or `gac:key=value:...`, checked by building the policy.
fn policy_arg(s: &str) -> std::result::Result<String, String> {
    policy_by_name(s, 2).map(|_| s.to_string()).map_err(|e| e.to_string())
}

/// Access-pattern advice for the neighbour files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AdviceArg {
    /// Default kernel behaviour.
    Normal,
    /// No read-ahead.
    Random,
    /// Aggressive read-ahead.
    Sequential,
    /// Prefetch now.
    Willneed,
}

/// How to open a graph: `--backend`, `--memory`, `--policy`, `--page-size`, `--advice`, `--stats`,
/// `--trace`.
#[derive(Debug, Clone, Args)]
pub struct BackendArgs {
    /// Page backend.
    #[arg(long, value_enum, default_value_t = Backend::Mmap)]
    pub backend: Backend,
    /// Buffer pool capacity (pool backend), e.g. 256MB, 1GiB. `ocgraph query` also sizes its
    /// neighbourhood prefetcher by it, on mmap too (give it the page cache's cap there).
    #[arg(long, allow_negative_numbers = true, value_parser = size_arg, default_value = "1GiB")]
    pub memory: u64,
    /// Buffer pool replacement policy: clock, lru, fifo, lifo, random, s3fifo, arc, gac, or
    /// gac with parameters (gac:key=value:..., e.g. gac:decay=0.99:guided=0).
    #[arg(long, value_parser = policy_arg, default_value = "clock")]
    pub policy: String,
    /// Buffer pool frame size (power of two, 4KiB..64KiB).
    #[arg(long, allow_negative_numbers = true, value_parser = size_arg, default_value = "4KiB")]
    pub page_size: u64,
    /// Access-pattern advice for the neighbour files (mmap backend).
    #[arg(long, value_enum, default_value_t = AdviceArg::Normal)]
    pub advice: AdviceArg,
    /// Print the backend's I/O statistics as JSON to stderr at the end.
    #[arg(long)]
    pub stats: bool,
    /// Record every page request into this trace file (replay it with `ocgraph cache-sim`).
    /// Traces record commands that read a stored graph: `update`, `stream` and `compact`, which
    /// write it, refuse the flag.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

impl BackendArgs {
    /// The [`OpenOptions`] these arguments describe.
    pub fn options(&self) -> Result<OpenOptions> {
        let backend = match self.backend {
            Backend::Mmap => BackendKind::Mmap {
                advice: match self.advice {
                    AdviceArg::Normal => Advice::Normal,
                    AdviceArg::Random => Advice::Random,
                    AdviceArg::Sequential => Advice::Sequential,
                    AdviceArg::Willneed => Advice::WillNeed,
                },
            },
            Backend::Pool => BackendKind::Pool {
                capacity: self.memory,
                page_size: usize::try_from(self.page_size)
                    .map_err(|_| Error::invalid(format!("page size {} is too large", self.page_size)))?,
                policy: self.policy.clone(),
            },
        };
        Ok(OpenOptions { backend })
    }

    /// The backend of a command that writes the graph (`command`): `--trace` records the page
    /// requests of commands that read a stored graph, so it is refused here.
    pub fn writer_backend(&self, command: &str) -> Result<BackendKind> {
        if let Some(t) = &self.trace {
            return Err(Error::invalid(format!(
                "--trace {}: `ocgraph {command}` writes the graph; traces record commands that read a stored graph",
                t.display()
            )));
        }
        Ok(self.options()?.backend)
    }

    /// Refuses, before any work, a file of the command (`files`, see
    /// [`ocgraph_core::format::refuse_one_file_twice`]) or the `--trace` that is also another
    /// of its files, which the write would replace.
    pub fn refuse_shared_files(&self, files: &[ocgraph_core::format::CommandFile]) -> Result<()> {
        let mut all = files.to_vec();
        all.push((self.trace.as_deref(), "--trace", true));
        ocgraph_core::format::refuse_one_file_twice(&all)
    }

    /// Opens the graph at `path` with these options (starting the `--trace` recording).
    pub fn open(&self, path: &Path) -> Result<Graph> {
        let mut g = Graph::open(path, &self.options()?)?;
        if let Some(t) = &self.trace {
            ocgraph_core::format::refuse_output_place(path, t, "--trace")?;
            // The command's own results go to standard output: a binary trace there would be
            // mixed with them.
            if ocgraph_core::format::names_standard_output(t) {
                return Err(Error::invalid(format!(
                    "--trace {}: the command prints its results there; write the trace to a file",
                    t.display()
                )));
            }
            g.start_trace(t)?;
        }
        Ok(g)
    }

    /// Opens the graph at `path` for reading: as stored, or the latest snapshot when it has
    /// updates (see [`GraphView`]). `--trace` records the stored graph only, so it refuses a
    /// graph with updates.
    pub fn open_view(&self, path: &Path) -> Result<GraphView> {
        if self.trace.is_none() {
            return GraphView::open(path, &self.options()?);
        }
        if has_updates(path)? {
            return Err(Error::invalid(format!(
                "{}: --trace records a stored graph, and this one has updates (levels or a log)",
                path.display()
            )));
        }
        Ok(GraphView::Stored(Arc::new(self.open(path)?)))
    }

    /// Opens the graph at `path` as stored, refusing a graph with unmerged updates (for
    /// commands that read the base CSR directly; `what` names the command in the error).
    pub fn open_stored(&self, path: &Path, what: &str) -> Result<Graph> {
        refuse_updates(path, what)?;
        self.open(path)
    }

    /// With `--stats`, prints `g`'s I/O statistics as JSON to stderr; with `--trace`, writes out
    /// the trace and prints its size to stderr.
    pub fn report_stats(&self, g: &Graph) -> Result<()> {
        if self.stats {
            eprintln!("{}", g.io_stats().to_json());
        }
        if let Some((path, n)) = g.finish_trace()? {
            eprintln!("trace: {n} page requests written to {}", path.display());
        }
        Ok(())
    }
}

/// An error when the graph at `path` has unmerged updates (levels or logged batches): `what`
/// reads the stored CSR only.
pub fn refuse_updates(path: &Path, what: &str) -> Result<()> {
    if has_updates(path)? {
        return Err(Error::invalid(format!(
            "{}: {what} reads a stored graph, and this one has unmerged updates; run `ocgraph compact` first",
            path.display()
        )));
    }
    Ok(())
}
